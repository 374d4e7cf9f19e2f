package mcpadapter_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// What a hook, a guard or a tool sees of the inbound HTTP request
// (ToolCall.Native, RequestFromContext) lacks the headers that speak for
// the caller (Authorization, Cookie, Proxy-Authorization), the session id
// (whoever holds it speaks in the session) and the Mcp-Param-* mirrors of
// the arguments; the rest of the header is there. At both eras.
func TestInboundHeadersHidden(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(exAddTool(t))
	var mu sync.Mutex
	var seen []http.Header
	hook := func(next adapter.Invoker) adapter.Invoker {
		return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
			req, _ := c.Native.(*mcp.CallToolRequest)
			if req == nil || req.Extra == nil || req.Extra.Header == nil {
				t.Errorf("Native = %T without the request's header", c.Native)
			} else {
				mu.Lock()
				seen = append(seen, req.Extra.Header)
				mu.Unlock()
			}
			return next(ctx, c)
		}
	}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Hooks: []adapter.Hook{hook}})
	defer exec.Close()
	ex := newExporter(t, reg, exec, nil)
	srv := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}})
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer alice")
		r.Header.Set("Cookie", "sid=secret-cookie")
		r.Header.Set("Proxy-Authorization", "Basic c2VjcmV0")
		r.Header.Set("Mcp-Param-Tenant", "secret-tenant")
		r.Header.Set("X-Kept", "kept")
		return http.DefaultTransport.RoundTrip(r)
	})}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
		if err != nil || res.IsError {
			t.Fatalf("%s: CallTool: %+v %v", version, res, err)
		}
		cs.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 {
		t.Fatalf("the hook saw %d calls, want 2", len(seen))
	}
	for i, h := range seen {
		for _, k := range []string{"Authorization", "Cookie", "Proxy-Authorization", "Mcp-Param-Tenant", "Mcp-Session-Id"} {
			if v := h.Get(k); v != "" {
				t.Errorf("call %d: the tool's view of the request has %s: %q", i+1, k, v)
			}
		}
		if h.Get("X-Kept") != "kept" {
			t.Errorf("call %d: the other headers are gone too: %v", i+1, h)
		}
	}
}
