package main

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
)

// eraPostReply is a raw request's answer: status, headers, and the
// JSON-RPC response (JSON body or the first response event).
type eraPostReply struct {
	status int
	header http.Header
	msg    struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
}

func eraRaw(t *testing.T, url, body string, header map[string]string) eraPostReply {
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := eraPostReply{status: resp.StatusCode, header: resp.Header}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok && json.Unmarshal([]byte(strings.TrimSpace(d)), &r.msg) == nil && (r.msg.Result != nil || r.msg.Error != nil) {
				break
			}
		}
		return r
	}
	_ = json.Unmarshal(data, &r.msg)
	return r
}

func eraMeta26() string {
	return `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`
}

// TestServeBothEras: serve's /mcp and a virtual server answer the go-sdk
// client at 2026-07-28 (statelessly) and at 2025-11-25 (in a session) on
// the same URLs: tools/list, a call, and a tool an upstream adds at run
// time reaching both (the session client by notification, the 2026-07-28
// one on its subscriptions/listen stream). server/discover lists both
// eras' versions and cacheScope private (lists differ per virtual server
// and caller). A 2026-07-28 request whose header and _meta disagree is a
// header mismatch; one carrying a session's id is served outside it.
// Before, every 2026-07-28 request but server/discover was refused with
// -32022 and the client fell back to a session.
func TestServeBothEras(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "servers": {"notes": {"trust": "trusted"}}, "policy": {"approval": {"default": "never"}},
    "virtualServers": {"nt": {"tools": ["list_notes", "whoami", "grow", "extra_*"]}}}}`, testServer))
	s := startServe(t, dir, nil, "--config", "gateway.json")

	type client struct {
		cs      *mcp.ClientSession
		changed chan struct{}
	}
	clients := map[string]client{}
	for _, path := range []string{"/mcp", "/mcp/nt"} {
		for _, v := range []string{"2026-07-28", "2025-11-25"} {
			ch := make(chan struct{}, 16)
			c := mcp.NewClient(&mcp.Implementation{Name: "era-client", Version: "v1"}, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { ch <- struct{}{} },
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.base + path, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: v})
			cancel()
			if err != nil {
				t.Fatalf("%s at %s: %v", path, v, err)
			}
			t.Cleanup(func() { cs.Close() })
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Errorf("%s: negotiated %s, want %s", path, got, v)
			}
			if (cs.ID() == "") != (v == "2026-07-28") {
				t.Errorf("%s at %s: session id %q", path, v, cs.ID())
			}
			names := toolNames(t, cs)
			if !slices.Contains(names, "list_notes") || (path == "/mcp/nt") == slices.Contains(names, "add_note") {
				t.Errorf("%s at %s lists %v", path, v, names)
			}
			if res := callTool(t, cs, "list_notes", map[string]any{}); res.IsError {
				t.Errorf("%s at %s: list_notes: %q", path, v, text(res))
			}
			clients[path+" "+v] = client{cs, ch}
		}
	}

	// An upstream's new tool reaches every client of both endpoints.
	if res := callTool(t, clients["/mcp 2025-11-25"].cs, "grow", map[string]any{}); res.IsError {
		t.Fatalf("grow: %q", text(res))
	}
	deadline := time.Now().Add(30 * time.Second)
	for name, c := range clients {
		select {
		case <-c.changed:
		case <-time.After(time.Until(deadline)):
			t.Errorf("%s: no tools/list_changed after the upstream grew a tool", name)
		}
		if names := toolNames(t, c.cs); !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "extra_") }) {
			t.Errorf("%s: the grown tool is not listed: %v", name, names)
		}
	}

	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":` + eraMeta26() + `}}`
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"}
	for _, path := range []string{"/mcp", "/mcp/nt"} {
		r := eraRaw(t, s.base+path, discover, h)
		var res mcp.DiscoverResult
		if r.status != 200 || json.Unmarshal(r.msg.Result, &res) != nil {
			t.Fatalf("%s discover: HTTP %d %+v", path, r.status, r.msg.Error)
		}
		if !slices.Contains(res.SupportedVersions, "2026-07-28") || !slices.Contains(res.SupportedVersions, "2025-11-25") {
			t.Errorf("%s discover supportedVersions = %v, want both eras", path, res.SupportedVersions)
		}
		if res.CacheScope != "private" || res.TTLMs <= 0 {
			t.Errorf("%s discover cache hints = %d ms, %q; want a positive TTL, private", path, res.TTLMs, res.CacheScope)
		}
	}

	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":` + strings.Replace(eraMeta26(), `"2026-07-28"`, `"2025-11-25"`, 1) + `}}`
	if r := eraRaw(t, s.base+"/mcp/nt", list, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}); r.status != 400 || r.msg.Error == nil || r.msg.Error.Code != -32020 {
		t.Errorf("mismatched header and _meta: HTTP %d %+v, want 400 -32020", r.status, r.msg.Error)
	}
	sid := clients["/mcp/nt 2025-11-25"].cs.ID()
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_notes","arguments":{},"_meta":` + eraMeta26() + `}}`
	r := eraRaw(t, s.base+"/mcp/nt", call, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "list_notes", "Mcp-Session-Id": sid})
	if r.status != 200 || r.msg.Error != nil || r.header.Get("Mcp-Session-Id") != "" {
		t.Errorf("2026-07-28 call with a session id: HTTP %d %+v, session %q; want served statelessly", r.status, r.msg.Error, r.header.Get("Mcp-Session-Id"))
	}
	if res := callTool(t, clients["/mcp/nt 2025-11-25"].cs, "list_notes", map[string]any{}); res.IsError {
		t.Errorf("the session after a stateless request named it: %q", text(res))
	}
}
