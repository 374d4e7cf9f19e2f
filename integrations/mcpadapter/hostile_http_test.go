package mcpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// workServer is a go-sdk server with one read-only tool, "work", that counts
// its executions.
func workServer(runs *atomic.Int32) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "work", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "work", InputSchema: impSchema(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := runs.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint("run ", n, strings.Repeat(".", 4096))}}}, nil
		})
	return s
}

// callOf returns the JSON-RPC id of a tools/call request body, or nil.
func callOf(body []byte) json.RawMessage {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method != "tools/call" {
		return nil
	}
	return m.ID
}

// crashingWriter passes half of the first body write through, then drops
// the connection, as a server process dying mid-response does.
type crashingWriter struct {
	http.ResponseWriter
	done bool
}

func (w *crashingWriter) Write(p []byte) (int, error) {
	if w.done {
		return len(p), nil
	}
	w.done = true
	w.ResponseWriter.Write(p[:len(p)/2])
	w.ResponseWriter.(http.Flusher).Flush()
	if conn, _, err := w.ResponseWriter.(http.Hijacker).Hijack(); err == nil {
		conn.Close()
	}
	return len(p), nil
}

func (w *crashingWriter) Flush() {}

// A server that dies in the middle of its answer, over HTTP with JSON and
// with event-stream responses: the call is a connection error that says it
// may have run (not "the server refused"), the session is marked lost and
// the next call goes to a new one; a trusted read-only call is sent again.
func TestHTTPServerCrashMidCall(t *testing.T) {
	for _, jsonResponse := range []bool{true, false} {
		for _, trust := range []bool{false, true} {
			t.Run(fmt.Sprintf("json=%v/trust=%v", jsonResponse, trust), func(t *testing.T) {
				var runs atomic.Int32
				var crash atomic.Bool
				crash.Store(true)
				srv := workServer(&runs)
				h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
				ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodPost {
						body, _ := io.ReadAll(r.Body)
						r.Body = io.NopCloser(bytes.NewReader(body))
						if callOf(body) != nil && crash.CompareAndSwap(true, false) {
							w = &crashingWriter{ResponseWriter: w}
						}
					}
					h.ServeHTTP(w, r)
				}))
				t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })

				e := newImportEnv(t, nil)
				if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "srv", URL: ts.URL, Trust: trust}); err != nil {
					t.Fatal(err)
				}
				res, err := e.call(t, context.Background(), "work", `{}`)
				if trust {
					if err != nil || !strings.HasPrefix(res.Text(), "run 2") {
						t.Fatalf("trusted read-only call after a crash = %v, %v; want it sent again", res, err)
					}
					return
				}
				if err == nil || err.Kind != adapter.KindConnection || strings.Contains(err.Message, "refused") || !strings.Contains(err.Message, "may or may not have run") {
					t.Fatalf("call cut by a crash: %v, want a connection error saying it may have run", err)
				}
				if runs.Load() != 1 {
					t.Errorf("the tool ran %d times, want 1 (no resend of an untrusted call)", runs.Load())
				}
				res, err = e.call(t, context.Background(), "work", `{}`)
				if err != nil || !strings.HasPrefix(res.Text(), "run 2") {
					t.Fatalf("next call = %v, %v; want it sent on a new session", res, err)
				}
			})
		}
	}
}

// A call made while the server is down is sent once the server is back
// (within the reconnect window), whatever the tool: it never left, so
// sending it is no duplicate.
func TestCallWaitsForServerBack(t *testing.T) {
	var runs atomic.Int32
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	serve := func(ln net.Listener) *httptest.Server {
		srv := workServer(&runs)
		ts := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		ts.Listener.Close()
		ts.Listener = ln
		ts.Start()
		return ts
	}
	ts := serve(ln)
	e := newImportEnv(t, nil)
	if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "srv", URL: "http://" + addr}); err != nil {
		t.Fatal(err)
	}
	ts.CloseClientConnections()
	ts.Close() // the server restarts: its sessions are gone
	back := make(chan *httptest.Server, 1)
	time.AfterFunc(500*time.Millisecond, func() {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Error(err)
			back <- nil
			return
		}
		back <- serve(ln)
	})
	t.Cleanup(func() {
		if ts := <-back; ts != nil {
			ts.CloseClientConnections()
			ts.Close()
		}
	})
	res, cerr := e.call(t, context.Background(), "work", `{}`)
	if cerr != nil || !strings.HasPrefix(res.Text(), "run 1") {
		t.Fatalf("call while the server restarts = %v, %v; want it sent once the server is back", res, cerr)
	}
	if st := e.m.Servers()[0]; !st.Connected {
		t.Errorf("status after the call: %+v", st)
	}
}

// hugeServer answers tools/call of "huge" with a 256 MiB text result,
// streamed (it never holds it), as JSON or as an event stream; everything
// else goes to a real go-sdk server.
func hugeServer(t *testing.T, eventStream bool) string {
	var runs atomic.Int32
	srv := workServer(&runs)
	srv.AddTool(&mcp.Tool{Name: "huge", InputSchema: impSchema(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if id := callOf(body); id != nil && bytes.Contains(body, []byte(`"huge"`)) {
				streamHuge(w, id, eventStream)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	return ts.URL
}

func streamHuge(w http.ResponseWriter, id json.RawMessage, eventStream bool) {
	const total = 256 << 20
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, id)
	tail := `"}]}}`
	if eventStream {
		w.Header().Set("Content-Type", "text/event-stream")
		head = "event: message\ndata: " + head
		tail += "\n\n"
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	if _, err := io.WriteString(w, head); err != nil {
		return
	}
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for n := 0; n < total; n += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return // the client hung up: what a bounded client does
		}
	}
	io.WriteString(w, tail)
}

// A 256 MiB result is refused while it is read: the heap never grows past
// 2 × MaxResultBytes + 32 MiB, and the call is a tool_error.
func TestHugeResultBoundedMemory(t *testing.T) {
	for _, eventStream := range []bool{false, true} {
		t.Run(fmt.Sprint("event-stream=", eventStream), func(t *testing.T) {
			url := hugeServer(t, eventStream)
			e := newImportEnv(t, nil)
			if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "srv", URL: url}); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			base := ms.HeapAlloc
			var peak atomic.Uint64
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				var ms runtime.MemStats
				for {
					runtime.ReadMemStats(&ms)
					if ms.HeapAlloc > peak.Load() {
						peak.Store(ms.HeapAlloc)
					}
					select {
					case <-stop:
						return
					case <-time.After(2 * time.Millisecond):
					}
				}
			}()
			_, err := e.call(t, context.Background(), "huge", `{}`)
			close(stop)
			<-sampled
			if err == nil || err.Kind != adapter.KindToolError || !strings.Contains(err.Message, "larger than") {
				t.Fatalf("huge result: %v, want a tool_error naming the limit", err)
			}
			limit := uint64(2*mcpadapter.DefaultMaxResultBytes + 32<<20)
			if grew := peak.Load() - min(base, peak.Load()); grew > limit {
				t.Errorf("heap grew by %d MiB reading a 256 MiB result; the bound is %d MiB", grew>>20, limit>>20)
			} else {
				t.Logf("heap grew by %.1f MiB (bound %d MiB)", float64(grew)/(1<<20), limit>>20)
			}
			// The session dropped the unreadable message; the next call works.
			if res, err := e.call(t, context.Background(), "work", `{}`); err != nil || !strings.HasPrefix(res.Text(), "run") {
				t.Errorf("next call = %v, %v", res, err)
			}
		})
	}
}

// Empty content blocks count: 200k of them are over the 4 MiB limit.
func TestEmptyBlocksCount(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "blocks", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "blocks", InputSchema: impSchema(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			c := make([]mcp.Content, 200_000)
			for i := range c {
				c[i] = &mcp.TextContent{}
			}
			return &mcp.CallToolResult{Content: c}, nil
		})
	e := newImportEnv(t, nil)
	if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "srv", Transport: inMemoryTo(t, srv)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.call(t, context.Background(), "blocks", `{}`); err == nil || err.Kind != adapter.KindToolError || !strings.Contains(err.Message, "larger than") {
		t.Fatalf("200k empty blocks: %v, want a tool_error naming the limit", err)
	}
}
