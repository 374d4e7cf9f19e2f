package mcpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// anonSetup serves a destructive tool held for deferred approval (per
// subject caps of perSubject), with a cached read-only tool beside it,
// over streamable HTTP without auth.
func anonSetup(t *testing.T, perSubject int) (url string, d *adapter.Deferred, runs *atomic.Int32, ml *adapter.MemoryLedger) {
	t.Helper()
	runs = new(atomic.Int32)
	reg := registry.New()
	reg.MustRegister(adapter.MustRawTool("delete_file", "Deletes a file.", exObject(nil),
		func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
			runs.Add(1)
			return adapter.TextResult("deleted " + string(args)), nil
		}, nil))
	var n atomic.Int32
	reg.MustRegister(adapter.MustRawTool("whoami", "Says who calls.", exObject(nil),
		func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			id := adapter.IdentityFromContext(ctx)
			return adapter.TextResult(fmt.Sprintf("%s #%d", id.Subject, n.Add(1))), nil
		}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: new(bool)}}))
	d = &adapter.Deferred{Caps: adapter.TicketCaps{PerSubject: perSubject}}
	ml = adapter.NewMemoryLedger(0)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
		Approval: adapter.ApprovalOptions{Port: d, Policy: adapter.ApproveByAnnotations},
		Cache:    &adapter.CacheOptions{Tools: map[string]time.Duration{"whoami": time.Minute}},
		Ledger:   ml,
	})
	t.Cleanup(func() { exec.Close() })
	ex := newExporter(t, reg, exec, nil)
	return exServeHTTP(t, ex, nil).URL, d, runs, ml
}

func callTool(t *testing.T, cs *mcp.ClientSession, name, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("call %s %s: %v", name, args, err)
	}
	return res
}

// TestAnonymousSessionsApart is the attack of issue 23 item 4: without
// auth, every session used to be one caller (the empty subject). Now each
// session is its own anonymous caller: one flooding its ticket cap does
// not stop another from being asked, is not blamed on it, and a session
// retrying another's approved call does not get that approval; nor does it
// read the other's cached results.
func TestAnonymousSessionsApart(t *testing.T) {
	const limit = 5
	url, d, runs, ml := anonSetup(t, limit)
	a := exConnectHTTP(t, url, nil, nil)
	b := exConnectHTTP(t, url, nil, nil)
	c := exConnectHTTP(t, url, nil, nil)

	// A floods: its calls past the cap are denied, about A's own calls.
	var ticketA string
	for i := range limit {
		p := exPayload(t, callTool(t, a, "delete_file", fmt.Sprintf(`{"path":"/a/%d"}`, i)))
		if p.Kind != adapter.KindApprovalPending {
			t.Fatalf("A's call %d: %+v, want approval_pending", i, p)
		}
		if i == 0 {
			ticketA = p.Ticket
		}
	}
	p := exPayload(t, callTool(t, a, "delete_file", `{"path":"/a/over"}`))
	if p.Kind != adapter.KindApprovalDenied || !strings.Contains(p.Message, fmt.Sprintf("you already have %d calls waiting", limit)) {
		t.Fatalf("A over its cap: %+v, want approval_denied naming its own cap", p)
	}
	// B is asked as usual, with a ticket of its own.
	p = exPayload(t, callTool(t, b, "delete_file", `{"path":"/b"}`))
	if p.Kind != adapter.KindApprovalPending || p.Ticket == "" {
		t.Fatalf("B's call with A at its cap: %+v, want a ticket of its own", p)
	}
	tb, err := d.Ticket(context.Background(), p.Ticket)
	if err != nil {
		t.Fatal(err)
	}
	ta, err := d.Ticket(context.Background(), ticketA)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ta.Subject, mcpadapter.AnonymousPrefix) || !strings.HasPrefix(tb.Subject, mcpadapter.AnonymousPrefix) || ta.Subject == tb.Subject {
		t.Errorf("tickets' subjects A %q, B %q: want two distinct anonymous callers", ta.Subject, tb.Subject)
	}
	if ta.Subject != mcpadapter.AnonymousPrefix+a.ID() {
		t.Errorf("A's ticket subject %q, want %q", ta.Subject, mcpadapter.AnonymousPrefix+a.ID())
	}

	// A's first call is approved; C retrying it with the same arguments
	// does not run it: it is asked anew.
	if err := d.Approve(context.Background(), ticketA, "root"); err != nil {
		t.Fatal(err)
	}
	p = exPayload(t, callTool(t, c, "delete_file", `{"path":"/a/0"}`))
	if p.Kind != adapter.KindApprovalPending || p.Ticket == ticketA {
		t.Fatalf("C retrying A's approved call: %+v, want a ticket of its own", p)
	}
	if runs.Load() != 0 {
		t.Fatalf("C's retry ran the tool on A's approval")
	}
	// A's retry runs, once.
	if res := callTool(t, a, "delete_file", `{"path":"/a/0"}`); res.IsError || runs.Load() != 1 {
		t.Fatalf("A's approved retry: %+v (runs %d)", res, runs.Load())
	}

	// The cache is per session too: C does not read what A's call cached.
	ra := callTool(t, a, "whoami", `{}`).Content[0].(*mcp.TextContent).Text
	rc := callTool(t, c, "whoami", `{}`).Content[0].(*mcp.TextContent).Text
	if ra == rc || !strings.HasPrefix(rc, mcpadapter.AnonymousPrefix+c.ID()) {
		t.Errorf("whoami: A read %q, C read %q; want C served its own result", ra, rc)
	}
	if again := callTool(t, a, "whoami", `{}`).Content[0].(*mcp.TextContent).Text; again != ra {
		t.Errorf("A's repeat %q, want its cached %q", again, ra)
	}

	// The ledger names each anonymous caller.
	for r, err := range ml.Query(context.Background(), adapter.LedgerQuery{Tool: "delete_file"}) {
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(r.Subject, mcpadapter.AnonymousPrefix) {
			t.Errorf("record %s %s: subject %q, want an anonymous caller", r.Tool, r.Outcome, r.Subject)
		}
	}
}

// TestSessionLimiterShared: a limiter given to the handlers of two
// exporters caps one client's sessions across both; a closed session
// frees its place (issue 24 item 11: one token held 400 sessions across 4
// virtual servers).
func TestSessionLimiterShared(t *testing.T) {
	lim := mcpadapter.NewSessionLimiter(0, 3)
	ex1 := newExporter(t, exTools(t), nil, nil)
	ex2 := newExporter(t, exTools(t), nil, nil)
	ts1 := exServeHTTP(t, ex1, &mcpadapter.HTTPOptions{Sessions: lim})
	ts2 := exServeHTTP(t, ex2, &mcpadapter.HTTPOptions{Sessions: lim})
	var ids []string
	for i, url := range []string{ts1.URL, ts2.URL, ts2.URL} {
		code, h := exPost(t, url, exInitialize, nil)
		if code != http.StatusOK {
			t.Fatalf("session %d: %d", i, code)
		}
		ids = append(ids, h.Get("Mcp-Session-Id"))
	}
	for _, url := range []string{ts1.URL, ts2.URL} {
		if code, h := exPost(t, url, exInitialize, nil); code != http.StatusTooManyRequests || h.Get("Retry-After") == "" {
			t.Errorf("a fourth session at %s: %d, want 429 with Retry-After", url, code)
		}
	}
	req, _ := http.NewRequest(http.MethodDelete, ts1.URL, nil)
	req.Header.Set("Mcp-Session-Id", ids[0])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	waitUntil(t, "the closed session's place to be free", func() bool {
		code, _ := exPost(t, ts2.URL, exInitialize, nil)
		return code == http.StatusOK
	})
	// The total cap is shared as well, and can be changed.
	lim.SetLimits(3, -1)
	if code, _ := exPost(t, ts1.URL, exInitialize, nil); code != http.StatusServiceUnavailable {
		t.Errorf("past the shared total: %d, want 503", code)
	}
}
