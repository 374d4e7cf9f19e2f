package mcpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

const exInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// exPost sends a raw MCP POST and returns the response status and headers.
func exPost(t *testing.T, url, body string, header map[string]string) (int, http.Header) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}

func TestHTTPProtections(t *testing.T) {
	ex := newExporter(t, exTools(t), nil, nil)
	srv := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{
		MaxRequestBodyBytes: 4096,
		TrustedOrigins:      []string{"https://app.example.com"},
	})
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":%q}}`, strings.Repeat("x", 8192))
	tests := []struct {
		name   string
		body   string
		header map[string]string
		want   int
	}{
		{"plain initialize", exInitialize, nil, http.StatusOK},
		{"DNS rebinding Host", exInitialize, map[string]string{"Host": "evil.example.com"}, http.StatusForbidden},
		{"rebinding Host with port", exInitialize, map[string]string{"Host": "evil.example.com:80"}, http.StatusForbidden},
		{"foreign Origin", exInitialize, map[string]string{"Origin": "https://evil.example.com"}, http.StatusForbidden},
		{"cross-site fetch", exInitialize, map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"trusted Origin", exInitialize, map[string]string{"Origin": "https://app.example.com"}, http.StatusOK},
		{"body over the limit", big, nil, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := exPost(t, srv.URL, tt.body, tt.header); got != tt.want {
				t.Errorf("status = %d, want %d", got, tt.want)
			}
		})
	}
}

// exVerifier accepts "alice" and "bob" (scope tools), "noscope", and an
// expired token; anything else is invalid.
func exVerifier(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	switch token {
	case "alice", "bob":
		return &auth.TokenInfo{UserID: token, Scopes: []string{"tools", "read"}, Expiration: time.Now().Add(time.Hour)}, nil
	case "noscope":
		return &auth.TokenInfo{UserID: "carol", Expiration: time.Now().Add(time.Hour)}, nil
	case "expired":
		return &auth.TokenInfo{UserID: "alice", Scopes: []string{"tools"}, Expiration: time.Now().Add(-time.Hour)}, nil
	case "noexpiry":
		return &auth.TokenInfo{UserID: "alice", Scopes: []string{"tools"}}, nil
	}
	return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
}

func TestHTTPBearerAuth(t *testing.T) {
	ex := newExporter(t, exTools(t), nil, nil)
	for _, withMetadata := range []bool{false, true} {
		opts := &mcpadapter.AuthOptions{Verifier: exVerifier, Scopes: []string{"tools"}}
		if withMetadata {
			opts.ResourceMetadataURL = "https://auth.example.com/.well-known/oauth-protected-resource"
		}
		srv := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Auth: opts})
		tests := []struct {
			name          string
			authorization string
			want          int
		}{
			{"missing token", "", http.StatusUnauthorized},
			{"not a bearer", "Basic YWxpY2U6eA==", http.StatusUnauthorized},
			{"invalid token", "Bearer nope", http.StatusUnauthorized},
			{"expired token", "Bearer expired", http.StatusUnauthorized},
			{"token without expiry", "Bearer noexpiry", http.StatusUnauthorized},
			{"missing scope", "Bearer noscope", http.StatusForbidden},
			{"valid token", "Bearer alice", http.StatusOK},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("metadata=%v/%s", withMetadata, tt.name), func(t *testing.T) {
				h := map[string]string{}
				if tt.authorization != "" {
					h["Authorization"] = tt.authorization
				}
				got, header := exPost(t, srv.URL, exInitialize, h)
				if got != tt.want {
					t.Fatalf("status = %d, want %d", got, tt.want)
				}
				challenge := header.Get("WWW-Authenticate")
				if tt.want == http.StatusUnauthorized {
					if !strings.HasPrefix(challenge, "Bearer") {
						t.Errorf("WWW-Authenticate = %q, want a Bearer challenge", challenge)
					}
					if withMetadata && !strings.Contains(challenge, `resource_metadata="https://auth.example.com/`) {
						t.Errorf("WWW-Authenticate = %q, want the resource metadata URL", challenge)
					}
				}
				if tt.want == http.StatusOK && challenge != "" {
					t.Errorf("accepted request carries WWW-Authenticate %q", challenge)
				}
			})
		}
	}
}

// bearerClient adds a bearer token to every request.
func bearerClient(token string) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+token)
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestHTTPIdentityReachesHooksAndApproval checks that the verified bearer
// identity is what hooks and approval policies see, and that it drives a
// per-user approval policy; the token itself is nowhere in the call.
func TestHTTPIdentityReachesHooksAndApproval(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(exAddTool(t))
	var mu sync.Mutex
	var seen []adapter.Identity
	hook := func(next adapter.Invoker) adapter.Invoker {
		return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
			mu.Lock()
			if c.Identity != nil {
				seen = append(seen, *c.Identity)
			}
			mu.Unlock()
			if req, _ := c.Native.(*mcp.CallToolRequest); req == nil || req.Extra == nil || req.Extra.TokenInfo == nil {
				t.Errorf("Call.Native = %T without token info, want the go-sdk request", c.Native)
			} else if a := req.Extra.Header.Get("Authorization"); a != "" {
				t.Errorf("the call carries the inbound Authorization header %q", a)
			}
			return next(ctx, c)
		}
	}
	deferred := &adapter.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
		Hooks: []adapter.Hook{hook},
		Approval: adapter.ApprovalOptions{
			Port: deferred,
			// Per-user policy: alice runs freely; everyone else needs approval.
			Policy: func(_ context.Context, c *adapter.ToolCall) bool {
				return c.Identity == nil || c.Identity.Subject != "alice"
			},
		},
	})
	defer exec.Close()
	ex := newExporter(t, reg, exec, nil)
	srv := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}})

	call := func(token string) *mcp.CallToolResult {
		t.Helper()
		cs := exConnectHTTP(t, srv.URL, nil, bearerClient(token))
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
		if err != nil {
			t.Fatalf("CallTool as %s: %v", token, err)
		}
		return res
	}
	if res := call("alice"); res.IsError {
		t.Errorf("alice's call failed: %v", res.Content[0])
	}
	res := call("bob")
	if !res.IsError {
		t.Fatalf("bob's call ran without approval: %+v", res)
	}
	var payload adapter.Payload
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &payload); err != nil {
		t.Fatal(err)
	}
	if payload.Error.Kind != adapter.KindApprovalPending || payload.Error.Ticket == "" {
		t.Fatalf("bob's call: %+v, want approval_pending with a ticket", payload)
	}
	tk, err := deferred.Ticket(context.Background(), payload.Error.Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Subject != "bob" {
		t.Errorf("ticket subject = %q, want bob", tk.Subject)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []adapter.Identity{
		{Subject: "alice", Scopes: []string{"tools", "read"}},
		{Subject: "bob", Scopes: []string{"tools", "read"}},
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("identities seen by the hook (-want +got):\n%s", diff)
	}
}

func TestHTTPStatelessAndSSE(t *testing.T) {
	ex := newExporter(t, exTools(t), nil, nil)
	t.Run("stateless", func(t *testing.T) {
		srv := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Stateless: true, JSONResponse: true})
		cs := exConnectHTTP(t, srv.URL, nil, nil)
		exCallAdd(t, cs)
	})
	t.Run("legacy SSE", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ln, err := mcpadapter.Listen("")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- ex.ServeListener(ctx, ln, &mcpadapter.HTTPOptions{SSEPath: "/sse"}) }()
		c := mcp.NewClient(&mcp.Implementation{Name: "sse-client", Version: "v1"}, nil)
		cs, err := c.Connect(ctx, &mcp.SSEClientTransport{Endpoint: "http://" + ln.Addr().String() + "/sse"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		exCallAdd(t, cs)
		cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeListener after cancel = %v, want nil", err)
		}
	})
}

func exCallAdd(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 20, "b": 22}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"sum": 42.0}, res.StructuredContent); diff != "" {
		t.Errorf("structured result (-want +got):\n%s", diff)
	}
}

func TestListenBindsLoopbackByDefault(t *testing.T) {
	for _, addr := range []string{"", ":0"} {
		ln, err := mcpadapter.Listen(addr)
		if err != nil {
			t.Fatalf("Listen(%q): %v", addr, err)
		}
		ip := ln.Addr().(*net.TCPAddr).IP
		ln.Close()
		if !ip.Equal(net.IPv4(127, 0, 0, 1)) {
			t.Errorf("Listen(%q) bound %v, want 127.0.0.1", addr, ip)
		}
	}
	if _, err := mcpadapter.Listen("no-port"); err == nil {
		t.Error("Listen(no-port) succeeded")
	}

	// ListenAndServe serves until ctx is done, then returns nil.
	ex := newExporter(t, exTools(t), nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ex.ListenAndServe(ctx, "127.0.0.1:0", nil) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ListenAndServe = %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ListenAndServe did not return after cancel")
	}
}

// TestHTTPSessionTimeout checks that an idle session is closed: requests
// naming it are then refused with 404, which tells clients to start over.
func TestHTTPSessionTimeout(t *testing.T) {
	ex := newExporter(t, exTools(t), nil, nil)
	srv := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{SessionTimeout: 50 * time.Millisecond})
	status, header := exPost(t, srv.URL, exInitialize, nil)
	id := header.Get("Mcp-Session-Id")
	if status != http.StatusOK || id == "" {
		t.Fatalf("initialize: status %d, session %q", status, id)
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	h := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
	deadline := time.Now().Add(30 * time.Second)
	for {
		time.Sleep(100 * time.Millisecond)
		status, _ = exPost(t, srv.URL, ping, h)
		if status == http.StatusNotFound {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session still answers (status %d) long after its idle timeout", status)
		}
	}
}
