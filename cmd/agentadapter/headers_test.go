package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// seenRequest is what an upstream received.
type seenRequest struct {
	header http.Header
	body   []byte
}

// recordingUpstream serves a go-sdk server (stateless: 2026-07-28 only,
// else sessions) and records every request's header and body.
type recordingUpstream struct {
	*httptest.Server
	mu   sync.Mutex
	seen []seenRequest
}

func newRecordingUpstream(t *testing.T, stateless bool) *recordingUpstream {
	return newRecording(t, func(s *mcp.Server) http.Handler {
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: stateless})
	})
}

// newRecording serves the recording upstream's server with the handler
// serve makes.
func newRecording(t *testing.T, serve func(*mcp.Server) http.Handler) *recordingUpstream {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "v1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"q":{"type":"string"}},"required":["region"]}`)
	s.AddTool(&mcp.Tool{Name: "lookup", Description: "Looks up.", InputSchema: schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Region, Q string }
		_ = json.Unmarshal(req.Params.Arguments, &in)
		if strings.HasPrefix(in.Region, "nowhere") {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "unknown region " + in.Region + " (Mcp-Param-Region: " + in.Region + ")"}}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found " + in.Q}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "locate", Description: "Locates.", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "here"}}}, nil
	})
	h := serve(s)
	u := &recordingUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		u.mu.Lock()
		u.seen = append(u.seen, seenRequest{header: r.Header.Clone(), body: body})
		u.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *recordingUpstream) requests() []seenRequest {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]seenRequest(nil), u.seen...)
}

// downstream headers an attacker (or a careless client) sends along.
var downstreamHeaders = map[string]string{
	"Cookie":              "sid=downstream-cookie-7",
	"Mcp-Param-Injected":  "downstream-injected-7",
	"Mcp-Param-Tenant":    "downstream-tenant-7",
	"Proxy-Authorization": "Basic downstream-proxy-7",
}

type withHeaders struct {
	token string
	h     map[string]string
}

func (w withHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+w.token)
	for k, v := range w.h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Header hygiene at the gateway's hop: whatever headers a client sends,
// an HTTP upstream receives only what the gateway's own client makes (its
// configured Authorization, its own session, Mcp-Method/Mcp-Name naming
// the upstream's tool whatever prefix or rename the gateway applies,
// Mcp-Param-* from the arguments); mirrored argument values are masked in
// the ledger and the logs.
func TestServeHeaderHygiene(t *testing.T) {
	up := newRecordingUpstream(t, true)                          // 2026-07-28
	old := newRecordingUpstream(t, false)                        // 2025-11-25, with sessions
	legacy := newRecording(t, func(s *mcp.Server) http.Handler { // 2024-11-05 HTTP+SSE
		return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
	})
	dir := t.TempDir()
	const alice = "alice-token-5f2c9a1e7b3d8f4a6c0e"
	const upToken = "upstream-own-token-0123456789abcdef"
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {
    "up": {"type": "http", "url": %q, "headers": {"Authorization": "Bearer %s"}},
    "old": {"type": "http", "url": %q},
    "legacy": {"type": "sse", "url": %q}},
  "agentadapter": {"store": "sqlite:${STATE}/state.db",
    "auth": {"tokens": [{"subject": "alice", "token": %q}]},
    "servers": {"up": {"prefix": true, "rename": {"locate": "where_is"}}, "old": {"prefix": true}, "legacy": {"prefix": true}},
    "policy": {"approval": {"default": "never"}}}}`, up.URL+"/mcp", upToken, old.URL+"/mcp", legacy.URL+"/sse", alice))
	env := []string{"STATE=" + dir + "/state"}
	s := startServe(t, dir, env, "--config", "gateway.json")

	var downSessions []string
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		c := mcp.NewClient(&mcp.Implementation{Name: "down", Version: "v1"}, nil)
		hc := &http.Client{Transport: withHeaders{alice, downstreamHeaders}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: hc, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		cancel()
		if err != nil {
			t.Fatalf("%s: connect: %v", version, err)
		}
		if id := cs.ID(); id != "" {
			downSessions = append(downSessions, id)
		}
		names := toolNames(t, cs)
		for _, call := range []struct {
			name string
			args map[string]any
			ok   bool
		}{
			{"up_lookup", map[string]any{"region": "eu-west-7", "q": "kept-query"}, true},
			{"up_lookup", map[string]any{"region": "nowhere-7", "q": "kept-query"}, false},
			{"where_is", map[string]any{}, true},
			{"old_lookup", map[string]any{"region": "eu-west-7", "q": "kept-query"}, true},
			{"legacy_lookup", map[string]any{"region": "eu-west-7", "q": "kept-query"}, true},
		} {
			res := callTool(t, cs, call.name, call.args)
			if res.IsError == call.ok {
				t.Errorf("%s: %s: %q (tools %v)", version, call.name, text(res), names)
			}
		}
		cs.Close()
	}
	if len(downSessions) == 0 {
		t.Fatal("no downstream session had an id: Mcp-Session-Id is untested")
	}

	forbidden := []string{alice, "downstream-"}
	forbidden = append(forbidden, downSessions...)
	check := func(name string, u *recordingUpstream, wantAuth string, era2026 bool) {
		t.Helper()
		calls := map[string]bool{}
		for _, r := range u.requests() {
			for k, vs := range r.header {
				for _, v := range vs {
					for _, f := range forbidden {
						if strings.Contains(v, f) {
							t.Errorf("%s received the downstream's %s: %q", name, k, v)
						}
					}
				}
				if strings.HasPrefix(k, "Mcp-Param-") && k != "Mcp-Param-Region" {
					t.Errorf("%s received %s, which its schema does not declare", name, k)
				}
			}
			if got := r.header.Get("Authorization"); got != wantAuth {
				t.Errorf("%s received Authorization %q, want %q", name, got, wantAuth)
			}
			if c := r.header.Get("Cookie"); c != "" {
				t.Errorf("%s received Cookie %q", name, c)
			}
			var msg struct {
				Method string `json:"method"`
				Params struct {
					Name      string         `json:"name"`
					Arguments map[string]any `json:"arguments"`
				} `json:"params"`
			}
			if json.Unmarshal(r.body, &msg) != nil || msg.Method != "tools/call" {
				continue
			}
			calls[msg.Params.Name] = true
			if !era2026 {
				continue
			}
			if m, n := r.header.Get("Mcp-Method"), r.header.Get("Mcp-Name"); m != "tools/call" || n != msg.Params.Name {
				t.Errorf("%s: Mcp-Method %q, Mcp-Name %q for a tools/call of %q", name, m, n, msg.Params.Name)
			}
			if region, _ := msg.Params.Arguments["region"].(string); r.header.Get("Mcp-Param-Region") != region {
				t.Errorf("%s: Mcp-Param-Region %q, body region %q", name, r.header.Get("Mcp-Param-Region"), region)
			}
		}
		want := map[string]bool{"lookup": true}
		if era2026 {
			want["locate"] = true // its own name, not where_is
		}
		for n := range want {
			if !calls[n] {
				t.Errorf("%s saw no tools/call of its %q (calls: %v)", name, n, calls)
			}
		}
		for n := range calls {
			if !want[n] {
				t.Errorf("%s was called as %q, a name of the gateway's", name, n)
			}
		}
	}
	check("the 2026-07-28 upstream", up, "Bearer "+upToken, true)
	check("the 2025-11-25 upstream", old, "", false)
	check("the HTTP+SSE upstream", legacy, "", false)

	// The ledger keeps the call, the query, not the mirrored region.
	var recs []string
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		recs = recs[:0]
		for _, r := range queriedRecords(t, runBin(t, dir, env, "--config", "gateway.json", "ledger", "query", "--json")) {
			if strings.HasSuffix(r.Tool, "_lookup") {
				b, _ := json.Marshal(r)
				recs = append(recs, string(b))
			}
		}
		if len(recs) >= 8 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(recs) < 8 {
		t.Fatalf("ledger: %d lookup records, want 8: %v", len(recs), recs)
	}
	for _, r := range recs {
		if strings.Contains(r, "eu-west-7") || strings.Contains(r, "nowhere-7") || !strings.Contains(r, "kept-query") {
			t.Errorf("ledger record keeps a mirrored value (or lost the rest): %s", r)
		}
	}
	// (go-sdk logs session ids, which name sessions for the operator.)
	out := s.out.String()
	for _, f := range []string{alice, "downstream-", "eu-west-7", "nowhere-7"} {
		if strings.Contains(out, f) {
			t.Errorf("the gateway's log holds %q:\n%s", f, out)
		}
	}
	s.stop(t)
}
