package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errorMeta returns the kind and ticket of an isError result.
func errorMeta(t *testing.T, res *mcp.CallToolResult) (kind, ticket string) {
	t.Helper()
	m, _ := res.Meta["agentadapter/error"].(map[string]any)
	if !res.IsError || m == nil {
		t.Fatalf("not an error result: %s", text(res))
	}
	kind, _ = m["kind"].(string)
	ticket, _ = m["ticket"].(string)
	return kind, ticket
}

// ledgerRecords reads the ledger of the gateway in dir as JSON maps.
func ledgerRecords(t *testing.T, dir string, env []string, args ...string) []map[string]any {
	t.Helper()
	r := runBin(t, dir, env, append([]string{"--config", "gateway.json", "ledger", "query", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("ledger query: exit %d %s", r.code, r.stderr)
	}
	var recs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("ledger line %q: %v", sc.Text(), err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// TestServeAnonymousCallersApart is issue 23 item 4 through the binary:
// on an export without auth, one client holding 100 calls for approval
// (the per-caller cap) used to fill the cap of every anonymous client, and
// one session's approval served another's identical call. Each session is
// its own caller now.
func TestServeAnonymousCallersApart(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "sqlite:${STATE}/state.db", "servers": {"notes": {"trust": "trusted"}}}}`, testServer))
	env := []string{"STATE=" + dir + "/state"}
	s := startServe(t, dir, env, "--config", "gateway.json")
	url := s.base + "/mcp"
	// Sessions (2025-11-25): each is one anonymous caller across its calls.
	a, b, c := connectAt(t, url, "2025-11-25", nil), connectAt(t, url, "2025-11-25", nil), connectAt(t, url, "2025-11-25", nil)

	const perCaller = 100 // adapter.DefaultMaxOpenTicketsPerSubject
	var first string
	for i := range perCaller {
		kind, ticket := errorMeta(t, callTool(t, a, "add_note", map[string]any{"text": fmt.Sprintf("a%d", i)}))
		if kind != "approval_pending" {
			t.Fatalf("A's held call %d: %s", i, kind)
		}
		if i == 0 {
			first = ticket
		}
	}
	res := callTool(t, a, "add_note", map[string]any{"text": "one more"})
	if kind, _ := errorMeta(t, res); kind != "approval_denied" || !strings.Contains(text(res), "you already have 100 calls waiting") {
		t.Fatalf("A past its cap: %s", text(res))
	}
	// B is asked as usual: A's flood is not blamed on it.
	res = callTool(t, b, "add_note", map[string]any{"text": "b"})
	if kind, ticket := errorMeta(t, res); kind != "approval_pending" || ticket == "" {
		t.Fatalf("B with A at its cap: %s, want a ticket of its own", text(res))
	}

	// An operator approves A's first call; C making the same call does not
	// get that approval: it is held anew.
	if r := runBin(t, dir, env, "--config", "gateway.json", "approvals", "approve", first, "--as", "ops"); r.code != 0 {
		t.Fatalf("approve: exit %d %s", r.code, r.stderr)
	}
	res = callTool(t, c, "add_note", map[string]any{"text": "a0"})
	if kind, ticket := errorMeta(t, res); kind != "approval_pending" || ticket == first {
		t.Fatalf("C repeating A's approved call: %s, want a ticket of its own", text(res))
	}
	if res := callTool(t, a, "add_note", map[string]any{"text": "a0"}); res.IsError || !strings.Contains(text(res), "a0") {
		t.Fatalf("A's approved call: %s", text(res))
	}
	// The ledger names the anonymous caller of each call, session by session.
	subjects := map[string]bool{}
	for _, rec := range ledgerRecords(t, dir, env, "--tool", "add_note") {
		if sub, _ := rec["subject"].(string); rec["source"] != "cli" {
			if !strings.HasPrefix(sub, "anonymous:") {
				t.Errorf("record %v/%v: subject %q, want anonymous:<session>", rec["outcome"], rec["approval"], sub)
			}
			subjects[sub] = true
		}
	}
	if len(subjects) != 3 {
		t.Errorf("the ledger names %d anonymous callers, want 3: %v", len(subjects), subjects)
	}
}

// TestServeClientApprover is issue 23 item 6: "approver": "client" on a
// virtual server puts a held call to the client's own user, whose answer
// decides and is recorded as a decision of the client; without it a client
// declaring elicitation gets the operator's ticket as before.
func TestServeClientApprover(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "sqlite:${STATE}/state.db", "servers": {"notes": {"trust": "trusted"}},
    "virtualServers": {"self": {"approver": "client"}, "ops": {"approver": "operator"}}}}`, testServer))
	env := []string{"STATE=" + dir + "/state"}
	s := startServe(t, dir, env, "--config", "gateway.json")

	var asked, waits atomic.Int32
	answering := func(approve bool) *mcp.ClientOptions {
		return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if strings.Contains(req.Params.Message, "waiting for an operator's decision") {
				waits.Add(1) // an operator's ticket: answered at once, not decided
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
			}
			asked.Add(1)
			if !strings.Contains(req.Params.Message, "add_note") {
				t.Errorf("approval question %q does not name the tool", req.Params.Message)
			}
			if approve {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": false, "reason": "not today"}}, nil
		}}
	}
	// Accepted: the call runs.
	yes := connect(t, s.base+"/mcp/self", answering(true))
	if res := callTool(t, yes, "add_note", map[string]any{"text": "by the user"}); res.IsError || !strings.Contains(text(res), "by the user") {
		t.Fatalf("accepted by the client's user: %s", text(res))
	}
	if asked.Load() != 1 {
		t.Fatalf("asked %d times, want 1", asked.Load())
	}
	// Declined: approval_denied with the user's reason.
	no := connect(t, s.base+"/mcp/self", answering(false))
	res := callTool(t, no, "add_note", map[string]any{"text": "refused"})
	if kind, _ := errorMeta(t, res); kind != "approval_denied" || !strings.Contains(text(res), "not today") {
		t.Fatalf("declined by the client's user: %s", text(res))
	}
	// Without the key (/mcp) or with "operator": the ticket, never an
	// approval question; at 2026-07-28 (stateless) the client is asked to
	// wait for the operator, up to 8 rounds when it answers at once.
	for _, ep := range []string{"/mcp", "/mcp/ops"} {
		before, waited := asked.Load(), waits.Load()
		cs := connect(t, s.base+ep, answering(true))
		res := callTool(t, cs, "add_note", map[string]any{"text": "for an operator " + ep})
		if kind, ticket := errorMeta(t, res); kind != "approval_pending" || ticket == "" || asked.Load() != before || waits.Load()-waited != 8 {
			t.Errorf("%s: %s (asked %d, waits %d), want the operator's ticket after 8 waits and no question", ep, text(res), asked.Load()-before, waits.Load()-waited)
		}
	}

	// The ledger has one decision record per answer, the client's.
	var decisions []string
	deadline := time.Now().Add(30 * time.Second)
	for {
		decisions = decisions[:0]
		for _, rec := range ledgerRecords(t, dir, env, "--tool", "add_note", "--outcome", "decision") {
			approver, _ := rec["approver"].(string)
			if !strings.HasPrefix(approver, "client:anonymous:") {
				t.Errorf("decision approver %q, want client:anonymous:<session>", approver)
			}
			decisions = append(decisions, fmt.Sprint(rec["source"], "/", rec["approval"]))
		}
		if len(decisions) >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if got := strings.Join(decisions, " "); got != "client/approved client/denied" {
		t.Errorf("decision records %q, want %q", got, "client/approved client/denied")
	}
	// The call records say who approved.
	var approvedBy []string
	for _, rec := range ledgerRecords(t, dir, env, "--tool", "add_note", "--outcome", "ok") {
		approvedBy = append(approvedBy, fmt.Sprint(rec["approver"]))
	}
	if len(approvedBy) != 1 || !strings.HasPrefix(approvedBy[0], "client:anonymous:") {
		t.Errorf("the call's record names approvers %v, want the client's user", approvedBy)
	}

	// A value the gateway does not know is refused.
	writeFile(t, dir, "bad.json", `{"mcpServers": {}, "agentadapter": {"virtualServers": {"v": {"approver": "anyone"}}}}`)
	if r := runBin(t, dir, env, "--config", "bad.json", "config", "check"); r.code == 0 || !strings.Contains(r.stderr+r.stdout, "approver") {
		t.Errorf("config check of approver \"anyone\": exit %d %s%s", r.code, r.stdout, r.stderr)
	}
}

// TestServeSessionCapsAcrossEndpoints is issue 24 item 11: the per-client
// session cap counted per endpoint, so one token held 400 sessions across
// 4 virtual servers. It counts across every endpoint now, at the cap
// configured in "sessions".
func TestServeSessionCapsAcrossEndpoints(t *testing.T) {
	dir := t.TempDir()
	const alice, bob = "alice-token-0123456789abcdef0123456789", "bob-token-0123456789abcdef0123456789ab"
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "sessions": {"perIdentity": 3}, "servers": {"notes": {"trust": "trusted"}},
    "auth": {"tokens": [{"subject": "alice", "token": %q}, {"subject": "bob", "token": %q}]},
    "virtualServers": {"a": {}, "b": {}}}}`, testServer, alice, bob))
	s := startServe(t, dir, nil, "--config", "gateway.json")
	open := func(ep, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", s.base+ep, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
	}
	for i, ep := range []string{"/mcp/a", "/mcp/b", "/mcp"} {
		if code, _ := open(ep, alice); code != http.StatusOK {
			t.Fatalf("alice's session %d at %s: %d", i, ep, code)
		}
	}
	for _, ep := range []string{"/mcp/a", "/mcp/b", "/mcp"} {
		if code, _ := open(ep, alice); code != http.StatusTooManyRequests {
			t.Errorf("alice's fourth session at %s: %d, want 429", ep, code)
		}
	}
	if code, _ := open("/mcp/b", bob); code != http.StatusOK {
		t.Errorf("bob's first session with alice at her cap: %d, want 200", code)
	}
}

// TestServeAnonymousRateLimits: without auth every caller shares the one
// "anonymous" per-identity bucket the config documents, whatever its era:
// a 2026-07-28 client, each of whose requests is a fresh anonymous caller,
// is refused past it, and so is a session opened afterwards (a bucket per
// session or per request let a client take a fresh one at will).
func TestServeAnonymousRateLimits(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "servers": {"notes": {"trust": "trusted"}},
    "policy": {"approval": {"default": "never"}, "limits": {"perIdentity": {"calls": 2, "window": "1h"}}}}}`, testServer))
	s := startServe(t, dir, nil, "--config", "gateway.json")
	modern := connectAt(t, s.base+"/mcp", "2026-07-28", nil)
	for i := range 2 {
		if res := callTool(t, modern, "list_notes", map[string]any{}); res.IsError {
			t.Fatalf("call %d: %s", i, text(res))
		}
	}
	res := callTool(t, modern, "list_notes", map[string]any{})
	if kind, _ := errorMeta(t, res); kind != "run_limit_exceeded" || !strings.Contains(text(res), "anonymous may make at most 2 calls") {
		t.Fatalf("a 2026-07-28 client's third call: %s, want run_limit_exceeded of the anonymous bucket", text(res))
	}
	a := connectAt(t, s.base+"/mcp", "2025-11-25", nil)
	if res := callTool(t, a, "list_notes", map[string]any{}); !res.IsError || !strings.Contains(text(res), "anonymous may make at most 2 calls") {
		t.Errorf("a new session's call with the anonymous bucket used up: %s, want it refused", text(res))
	}
}
