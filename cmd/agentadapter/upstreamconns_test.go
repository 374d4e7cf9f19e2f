package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeReusesUpstreamConnections is issue 30's count through serve:
// after warm-up, calls from 1 and from 8 client sessions to an HTTP
// upstream open and close no upstream TCP connection. With
// idleConnsPerHost 2, the connections the warm-up opened beyond 2 close.
func TestServeReusesUpstreamConnections(t *testing.T) {
	t.Run("default", func(t *testing.T) { testUpstreamConns(t, 0) })
	t.Run("idleConnsPerHost 2", func(t *testing.T) { testUpstreamConns(t, 2) })
}

func testUpstreamConns(t *testing.T, idle int) {
	const sessions, warm = 8, 32
	s := mcp.NewServer(&mcp.Implementation{Name: "counted", Version: "v1"}, nil)
	obj := &jsonschema.Schema{Type: "object"}
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	s.AddTool(&mcp.Tool{Name: "echo", Annotations: ro, InputSchema: obj}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
	})
	// hold answers once warm calls of it are in flight: the warm-up opens
	// that many upstream connections at once.
	var mu sync.Mutex
	waiting := 0
	all := make(chan struct{})
	s.AddTool(&mcp.Tool{Name: "hold", Annotations: ro, InputSchema: obj}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		if waiting++; waiting == warm {
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
	var accepted, closed atomic.Int64
	up := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	up.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			accepted.Add(1)
		case http.StateClosed, http.StateHijacked:
			closed.Add(1)
		}
	}
	up.Start()
	t.Cleanup(func() {
		up.CloseClientConnections()
		up.Close()
	})

	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"up": {"type": "http", "url": %q}},
  "agentadapter": {"store": "memory:", "idleConnsPerHost": %d, "policy": {"approval": {"default": "never"}}, "servers": {"up": {"trust": "trusted"}}}}`, up.URL+"/mcp", idle))
	gw := startServe(t, dir, nil, "--config", "gateway.json")
	clients := make([]*mcp.ClientSession, sessions)
	for i := range clients {
		clients[i] = connect(t, gw.base+"/mcp", nil)
	}
	call := func(cs *mcp.ClientSession, name string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"x": 1}})
		if err == nil && res.IsError {
			err = fmt.Errorf("%s: %s", name, text(res))
		}
		return err
	}
	each := func(per int, perSession int, name string) {
		var wg sync.WaitGroup
		errs := make(chan error, sessions*per*perSession)
		for _, cs := range clients {
			for range per {
				wg.Go(func() {
					for range perSession {
						if err := call(cs, name); err != nil {
							errs <- err
							return
						}
					}
				})
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	each(warm/sessions, 1, "hold")
	if idle > 0 {
		// The transport keeps idle of the warm connections and closes the rest.
		for deadline := time.Now().Add(10 * time.Second); closed.Load() < warm-int64(idle) && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if got := closed.Load(); got < warm-int64(idle) {
			t.Errorf("idleConnsPerHost %d: %d of the %d warm-up connections closed, want at least %d", idle, got, accepted.Load(), warm-int64(idle))
		}
		return
	}

	const n = 200
	opened, shut := accepted.Load(), closed.Load()
	for range n {
		if err := call(clients[0], "echo"); err != nil {
			t.Fatal(err)
		}
	}
	if got, gone := accepted.Load()-opened, closed.Load()-shut; got != 0 || gone != 0 {
		t.Errorf("%d sequential calls from 1 session opened %d upstream connections and closed %d, want 0 and 0", n, got, gone)
	}
	opened, shut = accepted.Load(), closed.Load()
	each(1, n/sessions, "echo")
	if got, gone := accepted.Load()-opened, closed.Load()-shut; got != 0 || gone != 0 {
		t.Errorf("%d calls from %d sessions opened %d upstream connections and closed %d, want 0 and 0", n, sessions, got, gone)
	}
}
