package mcpadapter_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// reuseSessions is how many callers share the upstream at once: more than
// http.DefaultTransport's two idle connections per host.
const reuseSessions = 8

// countedUpstream serves a go-sdk server over streamable HTTP and counts
// the TCP connections its listener accepts and those that close. Its tools: echo, and hold,
// which answers only once 4×reuseSessions calls of it are in flight, so
// that a warm-up opens that many connections at once: a caller holds one
// for its call in flight and may hold more still reading the ends of its
// last responses.
func countedUpstream(t testing.TB) (url string, accepted, closed *atomic.Int64, late *atomic.Bool) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "counted", Version: "v1"}, nil)
	obj := &jsonschema.Schema{Type: "object"}
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: obj}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
	})
	var mu sync.Mutex
	var waiting int
	all := make(chan struct{})
	s.AddTool(&mcp.Tool{Name: "hold", InputSchema: obj}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		if waiting++; waiting == 4*reuseSessions {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held"}}}, nil
	})
	accepted, closed, late = new(atomic.Int64), new(atomic.Int64), new(atomic.Bool)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	// With late set, the end of each response stream comes a little after
	// its last event, as from a remote server: a client that ends the
	// call's context once it has the answer closes the connection under
	// that end.
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.Method == http.MethodPost && late.Load() {
			time.Sleep(time.Millisecond)
		}
	}))
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			accepted.Add(1)
		case http.StateClosed, http.StateHijacked:
			closed.Add(1)
		}

	}
	ts.Start()
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL, accepted, closed, late
}

// TestUpstreamConnectionsReused: after warm-up, calls through the manager
// to an HTTP upstream open no new TCP connection, one caller at a time
// (the per-call context ended only once the response stream is read) and
// reuseSessions at once (idle connections kept for that many).
func TestUpstreamConnectionsReused(t *testing.T) {
	url, accepted, closed, late := countedUpstream(t)
	e := newImportEnv(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.m.Connect(ctx, mcpadapter.Upstream{Name: "up", URL: url}); err != nil {
		t.Fatal(err)
	}
	// Calls under no deadline of their own, as from the gateway: the
	// manager's CallTimeout bounds each, in a context that ends when the
	// call returns.
	call := func(name string) error {
		_, err := e.exec.Call(context.Background(), name, json.RawMessage(`{"x":1}`))
		return err
	}
	concurrent := func(callers, per int, name string) {
		var wg sync.WaitGroup
		errs := make(chan error, callers*per)
		for range callers {
			wg.Go(func() {
				for range per {
					if err := call(name); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}

	// Warm-up: 4×reuseSessions calls in flight together, then a few one
	// at a time.
	concurrent(4*reuseSessions, 1, "hold")
	late.Store(true)
	for range 5 {
		if err := call("echo"); err != nil {
			t.Fatal(err)
		}
	}

	// A connection closed under a response still being read shows as a
	// close, even while the pool has others to replace it.
	const n = 400
	opened, shut := accepted.Load(), closed.Load()
	for range n {
		if err := call("echo"); err != nil {
			t.Fatal(err)
		}
	}
	if got, gone := accepted.Load()-opened, closed.Load()-shut; got != 0 || gone != 0 {
		t.Errorf("%d sequential calls opened %d new TCP connections and closed %d, want 0 and 0", n, got, gone)
	}

	late.Store(false)
	opened, shut = accepted.Load(), closed.Load()
	concurrent(reuseSessions, n/reuseSessions, "echo")
	if got, gone := accepted.Load()-opened, closed.Load()-shut; got != 0 || gone != 0 {
		t.Errorf("%d calls from %d concurrent callers opened %d new TCP connections and closed %d, want 0 and 0", n, reuseSessions, got, gone)
	}
}
