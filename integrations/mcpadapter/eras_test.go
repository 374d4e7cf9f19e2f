package mcpadapter_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// eraMeta is the _meta of a raw 2026-07-28 request naming version v.
func eraMeta(v string) string {
	return fmt.Sprintf(`{"io.modelcontextprotocol/protocolVersion":%q,"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`, v)
}

// eraReply is what a raw request got: status, headers and the JSON-RPC
// response (from a JSON body or the first response on an event stream).
type eraReply struct {
	status int
	header http.Header
	msg    struct {
		ID     any             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
}

func (r eraReply) code() int64 {
	if r.msg.Error == nil {
		return 0
	}
	return r.msg.Error.Code
}

// eraPost sends one raw JSON-RPC POST with the given headers.
func eraPost(t *testing.T, url, body string, header map[string]string) eraReply {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := eraReply{status: resp.StatusCode, header: resp.Header}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				if json.Unmarshal([]byte(strings.TrimSpace(d)), &r.msg) == nil && (r.msg.Result != nil || r.msg.Error != nil) {
					break
				}
			}
		}
		return r
	}
	_ = json.Unmarshal(data, &r.msg)
	return r
}

// eraConnect connects a go-sdk client at version over streamable HTTP.
func eraConnect(t *testing.T, url, version string, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "era-client", Version: "v1"}, copts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("Connect at %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestBothErasOneURL: the go-sdk client at 2026-07-28 and at 2025-11-25
// list and call through the same Exporter.Handler URL, the first
// statelessly, the second in a session, and both hear of a tool added to
// the registry (the session client by notification, the stateless one on
// its subscriptions/listen stream). Before, the 2026-07-28 client was
// refused its tools/list with -32022 (the handler was stateful only) and
// fell back to initialize.
func TestBothErasOneURL(t *testing.T) {
	reg := exTools(t)
	ex := newExporter(t, reg, nil, nil)
	srv := exServeHTTP(t, ex, nil)

	changed := map[string]chan struct{}{"2026-07-28": make(chan struct{}, 8), "2025-11-25": make(chan struct{}, 8)}
	sessions := map[string]*mcp.ClientSession{}
	for v, ch := range changed {
		sessions[v] = eraConnect(t, srv.URL, v, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { ch <- struct{}{} },
		})
	}
	for v, cs := range sessions {
		t.Run(v, func(t *testing.T) {
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Errorf("negotiated %s, want %s", got, v)
			}
			if got, stateless := cs.ID(), v >= "2026-07-28"; (got == "") != stateless {
				t.Errorf("session id %q at %s (stateless: %v)", got, v, stateless)
			}
			if _, ok := exListTools(t, cs)["add"]; !ok {
				t.Error("tools/list lacks add")
			}
			exCallAdd(t, cs)
		})
	}
	reg.MustRegister(adapter.MustRawTool("late", "Registered after connect.", exObject(nil),
		func(context.Context, json.RawMessage) (*adapter.Result, error) {
			return adapter.TextResult("late"), nil
		}, nil))
	for v, ch := range changed {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Errorf("%s client: no tools/list_changed", v)
		}
		if _, ok := exListTools(t, sessions[v])["late"]; !ok {
			t.Errorf("%s client: tools/list lacks the tool registered later", v)
		}
	}
}

// TestDiscoverBothEras: server/discover lists the versions the endpoint
// really serves (both eras, not 2026-07-28 alone as go-sdk's stateless
// transport says), the tools capability with listChanged, and cache hints:
// ListTTL, public for an export whose every caller sees one list, private
// when a filter function selects (as the gateway's virtual servers do) or
// the caller is authenticated.
func TestDiscoverBothEras(t *testing.T) {
	discover := `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{"_meta":` + eraMeta("2026-07-28") + `}}`
	h2026 := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover", "Authorization": "Bearer alice"}
	tests := []struct {
		name      string
		opts      *mcpadapter.ExportOptions
		http      *mcpadapter.HTTPOptions
		wantScope string
	}{
		{"plain", nil, nil, "public"},
		{"stateless only", nil, &mcpadapter.HTTPOptions{Stateless: true}, "public"},
		{"filter func", &mcpadapter.ExportOptions{Filter: registry.Filter{Func: func(*adapter.Spec) bool { return true }}}, nil, "private"},
		{"authenticated", nil, &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}}, "private"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := newExporter(t, exTools(t), nil, tt.opts)
			srv := exServeHTTP(t, ex, tt.http)
			r := eraPost(t, srv.URL, discover, h2026)
			if r.status != http.StatusOK || r.msg.Error != nil {
				t.Fatalf("discover: HTTP %d, error %+v", r.status, r.msg.Error)
			}
			var res mcp.DiscoverResult
			if err := json.Unmarshal(r.msg.Result, &res); err != nil {
				t.Fatal(err)
			}
			if want := mcp.SupportedProtocolVersions(); !slices.Equal(res.SupportedVersions, want) {
				t.Errorf("supportedVersions = %v, want %v", res.SupportedVersions, want)
			}
			if res.Capabilities == nil || res.Capabilities.Tools == nil || !res.Capabilities.Tools.ListChanged {
				t.Errorf("capabilities = %+v, want tools with listChanged", res.Capabilities)
			}
			if want := int(mcpadapter.ListTTL / time.Millisecond); res.TTLMs != want || res.CacheScope != tt.wantScope {
				t.Errorf("ttlMs, cacheScope = %d, %q; want %d, %q", res.TTLMs, res.CacheScope, want, tt.wantScope)
			}
			list := eraPost(t, srv.URL, `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":`+eraMeta("2026-07-28")+`}}`,
				map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list", "Authorization": "Bearer alice"})
			var lr mcp.ListToolsResult
			if err := json.Unmarshal(list.msg.Result, &lr); err != nil || len(lr.Tools) == 0 {
				t.Fatalf("tools/list at 2026-07-28: HTTP %d, error %+v", list.status, list.msg.Error)
			}
			if lr.CacheScope != tt.wantScope || lr.TTLMs == 0 {
				t.Errorf("tools/list cache hints = %d, %q; want ListTTL, %q", lr.TTLMs, lr.CacheScope, tt.wantScope)
			}
		})
	}
}

// TestErasHostile: requests that mix the eras get go-sdk's typed answers
// from the handler that can judge them (the stateless one): a header and a
// _meta naming different versions, or a _meta without its header, are a
// header mismatch (-32020, HTTP 400), not "version not supported"
// (-32022) from the session handler; an unknown future version is
// refused with the versions served; a body over the limit is 413 whether
// or not a header classified it.
func TestErasHostile(t *testing.T) {
	ex := newExporter(t, exTools(t), nil, nil)
	srv := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{MaxRequestBodyBytes: 4096})
	list := func(v string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":` + eraMeta(v) + `}}`
	}
	big := `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 8192) + `"}}`
	tests := []struct {
		name       string
		body       string
		header     map[string]string
		wantStatus int
		wantCode   int64
	}{
		{"header 2026, _meta 2025", list("2025-11-25"), map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, 400, -32020},
		{"header 2025, _meta 2026", list("2026-07-28"), map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/list"}, 400, -32020},
		{"no header, _meta 2026", list("2026-07-28"), map[string]string{"Mcp-Method": "tools/list"}, 400, -32020},
		{"escaped _meta key", strings.Replace(list("2026-07-28"), `"_meta"`, `"\u005fmeta"`, 1), map[string]string{"Mcp-Method": "tools/list"}, 400, -32020},
		{"batch with _meta", "[" + list("2026-07-28") + "]", nil, 400, -32020},
		{"unknown future version", list("2999-01-01"), map[string]string{"Mcp-Protocol-Version": "2999-01-01", "Mcp-Method": "tools/list"}, 400, -32022},
		{"oversized, no header", big, nil, 413, 0},
		{"oversized, header 2026", big, map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, 413, 0},
		{"not JSON, no header", `{"jsonrpc":`, nil, 400, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := eraPost(t, srv.URL, tt.body, tt.header)
			if r.status != tt.wantStatus || r.code() != tt.wantCode {
				t.Errorf("HTTP %d, code %d (%+v); want HTTP %d, code %d", r.status, r.code(), r.msg.Error, tt.wantStatus, tt.wantCode)
			}
			if sid := r.header.Get("Mcp-Session-Id"); sid != "" {
				t.Errorf("answered with a session %q", sid)
			}
		})
	}
}

// TestErasSessionIDIgnoredAt2026: a 2026-07-28 request carrying a live
// session's Mcp-Session-Id is served statelessly: not in that session, so
// not as its caller (the session's anonymous identity, its tickets and its
// cache stay its own), and no session id comes back. On 2026-07-28 an
// anonymous caller is the request itself.
func TestErasSessionIDIgnoredAt2026(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(adapter.MustRawTool("whoami", "Says who calls.", exObject(nil),
		func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			return adapter.TextResult(adapter.IdentityFromContext(ctx).Subject), nil
		}, nil))
	ex := newExporter(t, reg, nil, nil)
	srv := exServeHTTP(t, ex, nil)

	old := eraConnect(t, srv.URL, "2025-11-25", nil)
	sid := old.ID()
	if sid == "" {
		t.Fatal("the 2025-11-25 client got no session")
	}
	text := func(res *mcp.CallToolResult) string {
		if len(res.Content) != 1 {
			t.Fatalf("content %v", res.Content)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	if got, want := text(callTool(t, old, "whoami", `{}`)), mcpadapter.AnonymousPrefix+sid; got != want {
		t.Fatalf("session caller = %q, want %q", got, want)
	}
	call := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":` + eraMeta("2026-07-28") + `}}`
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "whoami", "Mcp-Session-Id": sid}
	seen := map[string]bool{}
	for range 2 {
		r := eraPost(t, srv.URL, call, h)
		if r.status != http.StatusOK || r.msg.Error != nil {
			t.Fatalf("2026-07-28 call with a session id: HTTP %d, %+v", r.status, r.msg.Error)
		}
		if got := r.header.Get("Mcp-Session-Id"); got != "" {
			t.Errorf("stateless answer carries Mcp-Session-Id %q", got)
		}
		var res mcp.CallToolResult
		if err := json.Unmarshal(r.msg.Result, &res); err != nil {
			t.Fatal(err)
		}
		who := text(&res)
		if who == mcpadapter.AnonymousPrefix+sid || !strings.HasPrefix(who, mcpadapter.AnonymousPrefix) {
			t.Errorf("2026-07-28 caller = %q: took the session's identity", who)
		}
		seen[who] = true
	}
	if len(seen) != 2 {
		t.Errorf("two 2026-07-28 requests were one anonymous caller: %v", seen)
	}
	// The session is untouched.
	if got := text(callTool(t, old, "whoami", `{}`)); got != mcpadapter.AnonymousPrefix+sid {
		t.Errorf("session caller afterwards = %q", got)
	}
}

// TestErasSessionCapsStatefulOnly: the session caps count sessions, not
// 2026-07-28 requests: with the one session allowed taken and a
// 2026-07-28 client holding a subscriptions/listen stream open, another
// 2026-07-28 client is still served, and a second session is still
// refused.
func TestErasSessionCapsStatefulOnly(t *testing.T) {
	ex := newExporter(t, exTools(t), nil, nil)
	srv := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{MaxSessions: 1})
	eraConnect(t, srv.URL, "2025-11-25", nil)
	eraConnect(t, srv.URL, "2026-07-28", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {}})
	exCallAdd(t, eraConnect(t, srv.URL, "2026-07-28", nil))
	if got, _ := exPost(t, srv.URL, exInitialize, nil); got != http.StatusServiceUnavailable {
		t.Errorf("second session: HTTP %d, want 503", got)
	}
}

// TestErasListenCap: 2026-07-28 clients opening subscriptions/listen
// streams (each holds a request open) are capped like sessions, apart from
// them: past the per-identity share 429, and a closed stream frees its
// place; a client that does not listen is still served.
// With HTTPOptions.Stateless they are capped alike.
func TestErasListenCap(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%t", stateless), func(t *testing.T) { testErasListenCap(t, stateless) })
	}
}

func testErasListenCap(t *testing.T, stateless bool) {
	ex := newExporter(t, exTools(t), nil, nil)
	srv := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{MaxSessionsPerIdentity: 2, Stateless: stateless})
	listening := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {}}
	first := eraConnect(t, srv.URL, "2026-07-28", listening)
	eraConnect(t, srv.URL, "2026-07-28", listening)
	listen := `{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":` + eraMeta("2026-07-28") + `}}`
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"}
	if r := eraPost(t, srv.URL, listen, h); r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Errorf("third listen stream: HTTP %d (Retry-After %q), want 429 with Retry-After", r.status, r.header.Get("Retry-After"))
	}
	exCallAdd(t, eraConnect(t, srv.URL, "2026-07-28", nil))
	first.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c := mcp.NewClient(&mcp.Implementation{Name: "late", Version: "v1"}, listening)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, nil)
		if err == nil {
			cs.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a listen stream after one closed: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// BenchmarkErasCall: one tools/call over the same Exporter.Handler URL at
// each era (the 2025-11-25 one passes through the era classifier's body
// peek; the 2026-07-28 one is classified by its header).
func BenchmarkErasCall(b *testing.B) {
	ex := newExporter(b, exTools(b), nil, nil)
	srv := exServeHTTP(b, ex, nil)
	for _, v := range []string{"2026-07-28", "2025-11-25"} {
		b.Run(v, func(b *testing.B) {
			c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(context.Background(), params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
