package console_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/console"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
)

// One upstream's megabyte description is not repeated on every card: with
// 20 tickets of a tool described in 1 MiB, the live fragment stays small
// (it was 21 MB, refetched on every update).
func TestCardsBounded(t *testing.T) {
	e := newEnv(t, envOptions{})
	big := strings.Repeat("A tool description that goes on. ", 1<<20/33)
	tool := adapter.MustRawTool("bloated", big, deleteSchema(), func(context.Context, json.RawMessage) (*adapter.Result, error) {
		return adapter.TextResult("ran"), nil
	}, &adapter.ToolOptions{})
	if err := e.reg.Register(tool); err != nil {
		t.Fatal(err)
	}
	ctx := caller.WithIdentity(context.Background(), &caller.Identity{Subject: "agent-7"})
	for i := range 20 {
		_, err := e.exec.Call(ctx, "bloated", json.RawMessage(fmt.Sprintf(`{"path":"/f%d"}`, i)))
		var ae *adapter.Error
		if !errors.As(err, &ae) || ae.Kind != adapter.KindApprovalPending {
			t.Fatalf("call %d: %v, want approval_pending", i, err)
		}
	}
	o := e.login("tok-alice")
	page := body(o.do("GET", "pending", nil, nil))
	t.Logf("/pending with 20 tickets of a 1 MiB description: %d bytes", len(page))
	if strings.Count(page, `id="t-`) != 20 {
		t.Fatalf("want 20 cards")
	}
	if len(page) > 512<<10 {
		t.Errorf("/pending is %d bytes for 20 tickets, want under 512 KiB", len(page))
	}
	if !strings.Contains(page, "…") {
		t.Error("the cut description is not marked")
	}
}

// Controls and bidi overrides in a model's arguments, and in the held
// tool's description, are shown as visible escapes on the page and the
// live fragment: html/template escapes HTML, not U+202E.
func TestCardsEscapeControls(t *testing.T) {
	e := newEnv(t, envOptions{})
	tk := e.hold(context.Background(), `{"path":"/tmp/\u202egnp.exe\u009b2J\u0007"}`)
	o := e.login("tok-alice")
	for _, path := range []string{"approvals", "pending", "ledger"} {
		page := body(o.do("GET", path, nil, nil))
		if path != "ledger" && !strings.Contains(page, tk) {
			t.Fatalf("%s: no ticket %s", path, tk)
		}
		for _, raw := range []string{"\u202e", "\u009b", "\a"} {
			if strings.Contains(page, raw) {
				t.Errorf("%s: the page carries a raw %q", path, raw)
			}
		}
		if !strings.Contains(page, `\u202e`) || !strings.Contains(page, `\x9b`) {
			t.Errorf("%s: the escapes are not shown:\n%.3000s", path, page)
		}
	}
}

// A link cannot make the page announce what did not happen: the notice
// of a decision is shown only for a ticket this operator decided so, and
// names the ticket from the store.
func TestNoticeNotFromQuery(t *testing.T) {
	e := newEnv(t, envOptions{})
	tk := e.hold(context.Background(), `{"path":"/a"}`)
	o := e.login("tok-alice")
	for _, q := range []string{
		"done=approved&ticket=" + "Delete+everything+now+-+approved+by+security",
		"done=approved&ticket=" + tk, // pending, not approved
		"done=revoked&tool=Your+session+expired%2C+visit+evil.example",
	} {
		if page := body(o.do("GET", "approvals?"+q, nil, nil)); strings.Contains(page, `class="notice"`) {
			t.Errorf("?%s shows a notice", q)
		}
	}
	res := o.post("decide", map[string][]string{"ticket": {tk}, "action": {"approve"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d", res.StatusCode)
	}
	loc := res.Header.Get("Location")
	if page := body(o.do("GET", loc, nil, nil)); !strings.Contains(page, "Approved "+tk+".") {
		t.Errorf("the real decision's notice is missing at %s", loc)
	}
	bob := e.login("tok-bob")
	if page := body(bob.do("GET", loc, nil, nil)); strings.Contains(page, `class="notice"`) {
		t.Errorf("another operator is told they approved %s", tk)
	}
}

// The card says why the call was held, in the words Options.Why gives
// (escaped like any other text), and the sign-in page asks for an
// operator token, not a client's.
func TestCardSaysWhy(t *testing.T) {
	e := newEnv(t, envOptions{})
	c, err := console.New(&console.Options{
		Approvals: e.d, Tools: e.reg, Ledger: e.ledger, LedgerReader: e.ledger,
		Auth: &export.AuthOptions{Verifier: verifier}, Revalidate: revalidate,
		Why: func(t *approval.Ticket) string { return "rule 2 (tool \"delete_*\") requires approval\u202e" },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e.hold(context.Background(), `{"path":"/b"}`)
	req := httptest.NewRequest("GET", "/pending", nil)
	req.Header.Set("Authorization", "Bearer tok-alice")
	w := httptest.NewRecorder()
	c.ServeHTTP(w, req)
	if page := w.Body.String(); !strings.Contains(page, "rule 2 (tool &#34;delete_*&#34;) requires approval\\u202e") {
		t.Errorf("the card does not say why:\n%.3000s", page)
	}
	if page := body(e.login("tok-alice").do("GET", "login", nil, nil)); !strings.Contains(page, "console.operators") || strings.Contains(page, "same bearer token") {
		t.Errorf("the sign-in page does not ask for an operator token:\n%s", page)
	}
}

// At 1280 px the ledger's tool names and ticket and run ids stay on one
// line (they wrapped one character per line): the table scrolls sideways
// instead.
func TestBrowserLedgerIDsOneLine(t *testing.T) {
	alloc := newBrowser(t)
	e := newEnv(t, envOptions{})
	for i := range 3 {
		tk := e.hold(context.Background(), fmt.Sprintf(`{"path":"/reports/%d/with/a/long/path/name/that/goes/on/and/on","recursive":true,"keep_days":3}`, i))
		o := e.login("tok-alice")
		o.post("decide", map[string][]string{"ticket": {tk}, "action": {"approve"}})
	}
	ctx := e.tab(t, alloc, "tok-alice")
	do(t, ctx, chromedp.Navigate(e.base+"ledger"), chromedp.WaitVisible(chromedp.CSS("#ledger")))
	screenshot(t, ctx, "ledger-1280")
	type box struct{ W, H, Line float64 }
	boxes := eval[[]box](t, ctx, `[...document.querySelectorAll("#ledger td.id code")].map(c => {
  const r = c.getBoundingClientRect();
  return {W: r.width, H: r.height, Line: parseFloat(getComputedStyle(c).lineHeight) || 18};
})`)
	if len(boxes) == 0 {
		t.Fatal("no ids in the ledger table")
	}
	for _, b := range boxes {
		if b.H > 1.6*b.Line {
			t.Errorf("an id wraps: %.0fx%.0f px (line %.0f px)", b.W, b.H, b.Line)
		}
	}
}
