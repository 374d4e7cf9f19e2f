package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serve mounts the operator console at /console/ behind operator tokens of
// its own (a client's token opens nothing there); a decision taken there
// releases the held call.
func TestServeConsole(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", `{"mcpServers": {"notes": {"command": "`+testServer+`"}},
  "agentadapter": {"store": "memory:", "auth": {"tokens": [{"subject": "agent", "token": "agent-token"}]},
  "console": {"operators": [{"subject": "alice", "token": "alice-token"}]},
  "policy": {"approval": {"default": "annotations"}}}}`)
	s := startServe(t, dir, nil, "--config", "gateway.json")
	get := func(path, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", s.base+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, _ := get("/console/approvals", ""); code != http.StatusSeeOther {
		t.Errorf("console without a token: %d, want 303 to the login page", code)
	}
	if code, _ := get("/console/approvals", "wrong"); code != http.StatusUnauthorized {
		t.Errorf("console with a wrong token: %d, want 401", code)
	}
	if code, _ := get("/console/approvals", "agent-token"); code != http.StatusUnauthorized {
		t.Errorf("console with a client's token: %d, want 401 (a client must not approve its own calls)", code)
	}

	// The agent's call is held; the console shows it; alice approves it.
	mc := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil)
	c, err := mc.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: &http.Client{Transport: bearer{"agent-token"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res := callTool(t, c, "add_note", map[string]any{"text": "from the console test"})
	tk := regexp.MustCompile(`tkt_[A-Za-z0-9_-]+`).FindString(text(res))
	if !res.IsError || tk == "" {
		t.Fatalf("add_note was not held: %q", text(res))
	}
	code, page := get("/console/approvals", "alice-token")
	if code != http.StatusOK || !strings.Contains(page, tk) || !strings.Contains(page, "add_note") {
		t.Fatalf("approvals page (%d) lacks ticket %s:\n%s", code, tk, page)
	}
	var resp *http.Response
	form := url.Values{"ticket": {tk}, "action": {"approve"}}
	req, _ := http.NewRequest("POST", s.base+"/console/decide", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer alice-token")
	resp, err = http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d", resp.StatusCode)
	}
	if res := callTool(t, c, "add_note", map[string]any{"text": "from the console test"}); res.IsError {
		t.Fatalf("approved retry: %q", text(res))
	}
	if code, page := get("/console/ledger?ticket="+tk, "alice-token"); code != http.StatusOK || !strings.Contains(page, "alice") || !strings.Contains(page, "decision") {
		t.Errorf("ledger chain (%d):\n%s", code, page)
	}
}

// An operator may not share a client's token, and a console needs
// operators (or, explicitly, anonymous loopback access).
func TestConsoleConfig(t *testing.T) {
	dir := t.TempDir()
	for name, tt := range map[string]struct{ config, want string }{
		"shared token": {`{"agentadapter": {"auth": {"tokens": [{"subject": "a", "token": "same"}]}, "console": {"operators": [{"subject": "o", "token": "same"}]}}}`, "a client could approve its own calls"},
		"no operators": {`{"agentadapter": {"console": {}}}`, "the console needs operators"},
	} {
		writeFile(t, dir, "bad.json", tt.config)
		if r := runBin(t, dir, nil, "config", "check", "bad.json"); r.code != exitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%s: exit %d %q", name, r.code, r.stderr)
		}
	}
}
