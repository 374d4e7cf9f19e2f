package console_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/console"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
)

func TestNewRefusesUnsafeConfiguration(t *testing.T) {
	d := &approval.Deferred{}
	tests := []struct {
		name string
		opts *console.Options
	}{
		{"nil options", nil},
		{"no auth, anonymous not allowed", &console.Options{Ledger: ledger.NewMemory(0)}},
		{"auth without a verifier", &console.Options{Auth: &export.AuthOptions{}, Ledger: ledger.NewMemory(0)}},
		{"decisions without a ledger", &console.Options{Approvals: d, Auth: &export.AuthOptions{Verifier: verifier}, Revalidate: revalidate}},
		{"auth without revalidate", &console.Options{Auth: &export.AuthOptions{Verifier: verifier}, Ledger: ledger.NewMemory(0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := console.New(tt.opts); !errors.Is(err, console.ErrConfig) {
				t.Errorf("New: %v, want ErrConfig", err)
			}
		})
	}
}

func TestAuthentication(t *testing.T) {
	e := newEnv(t, envOptions{})
	anon := &operator{t: t, e: e, c: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	tests := []struct {
		name, method, path, auth string
		status                   int
	}{
		{"page without a session goes to the login form", "GET", "approvals", "", http.StatusSeeOther},
		{"event stream without a session", "GET", "events", "", http.StatusUnauthorized},
		{"fragment without a session", "GET", "pending", "", http.StatusUnauthorized},
		{"export without a session", "GET", "export", "", http.StatusUnauthorized},
		{"decision without a session", "POST", "decide", "", http.StatusUnauthorized},
		{"unknown bearer token", "GET", "approvals", "Bearer nope", http.StatusUnauthorized},
		{"basic auth", "GET", "approvals", "Basic YTpi", http.StatusUnauthorized},
		{"good bearer token", "GET", "approvals", "Bearer tok-alice", http.StatusOK},
		{"login page is public", "GET", "login", "", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.auth != "" {
				h.Set("Authorization", tt.auth)
			}
			var form url.Values
			if tt.method == "POST" {
				form = url.Values{}
			}
			res := anon.do(tt.method, tt.path, form, h)
			b := body(res)
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tt.status, b)
			}
			if strings.Contains(b, "tok-") {
				t.Error("a token was echoed in the answer")
			}
		})
	}
	// A failed login says so and opens no session.
	res := anon.do("POST", "login", url.Values{"token": {"wrong"}}, nil)
	if b := body(res); res.StatusCode != http.StatusUnauthorized || !strings.Contains(b, "Sign-in failed") || len(res.Cookies()) != 0 {
		t.Errorf("bad login: %d, cookies %v", res.StatusCode, res.Cookies())
	}
	// The session cookie is HttpOnly and SameSite=Strict.
	res = anon.do("POST", "login", url.Values{"token": {"tok-alice"}}, nil)
	ck := res.Cookies()
	if len(ck) != 1 || !ck[0].HttpOnly || ck[0].SameSite != http.SameSiteStrictMode || strings.Contains(ck[0].Value, "tok-alice") {
		t.Errorf("session cookie %+v", ck)
	}
}

func TestAnonymousOnlyFromLoopback(t *testing.T) {
	e := newEnv(t, envOptions{anonymous: true})
	o := e.login("") // httptest listens on 127.0.0.1
	if page := body(o.do("GET", "approvals", nil, nil)); !strings.Contains(page, console.AnonymousOperator) {
		t.Errorf("anonymous operator not shown:\n%s", page)
	}
	// The same handler reached from another address refuses.
	req := httptest.NewRequest("GET", "/approvals", nil)
	req.RemoteAddr = "192.0.2.7:5555"
	rec := httptest.NewRecorder()
	e.console.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("remote anonymous request: %d, want 401", rec.Code)
	}
}

var inlineHandler = regexp.MustCompile(`(?i)\son[a-z]+=|style=|<script(?:\s[^>]*)?>[^<]`)

func TestSecurityHeadersAndNoInlineScript(t *testing.T) {
	e := newEnv(t, envOptions{servers: true})
	e.hold(context.Background(), `{"path":"/srv/a","api_token":"s3cr3t-value"}`)
	e.changeUpstream()
	o := e.login("tok-alice")
	for _, p := range []string{"login", "approvals", "pending", "ledger", "servers", "quarantine", "edit?ticket=" + firstPending(t, e)} {
		res := o.do("GET", p, nil, nil)
		b := body(res)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", p, res.StatusCode, b)
		}
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", p, csp)
		}
		if m := inlineHandler.FindString(b); m != "" {
			t.Errorf("%s: inline script or style: %q", p, m)
		}
		if strings.Contains(b, "s3cr3t-value") {
			t.Errorf("%s shows a secret argument", p)
		}
	}
}

func firstPending(t *testing.T, e *env) string {
	t.Helper()
	for tk, err := range e.d.Pending(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		return tk.ID
	}
	t.Fatal("no pending ticket")
	return ""
}

func TestCSRF(t *testing.T) {
	e := newEnv(t, envOptions{})
	tk := e.hold(context.Background(), `{"path":"/srv/a"}`)
	o := e.login("tok-alice")
	for _, tt := range []struct {
		name string
		csrf string
		hdr  http.Header
	}{
		{"no token", "", nil},
		{"another session's token", e.login("tok-bob").csrf, nil},
		{"cross-site request with the right token", o.csrf, http.Header{"Sec-Fetch-Site": {"cross-site"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			form := url.Values{"ticket": {tk}, "action": {"approve"}}
			if tt.csrf != "" {
				form.Set("csrf", tt.csrf)
			}
			res := o.do("POST", "decide", form, tt.hdr)
			if body(res); res.StatusCode != http.StatusForbidden {
				t.Errorf("status %d, want 403", res.StatusCode)
			}
			if st := e.ticket(tk).State; st != approval.TicketPending {
				t.Errorf("ticket %s after a forged request", st)
			}
		})
	}
	res := o.post("decide", url.Values{"ticket": {tk}, "action": {"approve"}})
	if body(res); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d", res.StatusCode)
	}
	if got := e.ticket(tk); got.State != approval.TicketApproved || got.Approver != "alice" {
		t.Errorf("ticket %+v, want approved by alice", got)
	}
}

func TestDecisionsAreLedgerRecords(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	approved := e.hold(ctx, `{"path":"/srv/a"}`)
	denied := e.hold(ctx, `{"path":"/srv/b"}`)
	edited := e.hold(ctx, `{"path":"/srv/c","api_token":"s3cr3t-value"}`)
	o := e.login("tok-alice")
	for _, f := range []url.Values{
		{"ticket": {approved}, "action": {"approve"}},
		{"ticket": {denied}, "action": {"deny"}, "reason": {"not that folder"}},
	} {
		if res := o.post("decide", f); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%v: %d %s", f, res.StatusCode, body(res))
		}
	}
	// The edit keeps the masked secret (left empty) and changes the path.
	res := o.post("edit", url.Values{"ticket": {edited}, "arg.path": {"/srv/c/tmp"}, "arg.keep_days": {"3"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", res.StatusCode, body(res))
	}
	e.exec.Close() // flush the executor's ledger
	got := map[string]ledger.Record{}
	for _, r := range e.ledger.Records() {
		if r.Outcome == console.OutcomeDecision {
			got[r.Ticket] = r
		}
	}
	want := map[string]string{approved: "approved", denied: "denied", edited: "approved"}
	for tk, approval := range want {
		r, ok := got[tk]
		if !ok || r.Approval != approval || r.Approver != "alice" || r.Subject != "agent-7" || r.Tool != "delete_file" {
			t.Errorf("ledger record of %s: %+v, want %s by alice", tk, r, approval)
		}
	}
	if r := got[denied]; r.Message != "not that folder" {
		t.Errorf("denial reason in the ledger: %q", r.Message)
	}
	if r := got[edited]; strings.Contains(string(r.Args), "s3cr3t") || !strings.Contains(string(r.Args), "/srv/c/tmp") {
		t.Errorf("edited args in the ledger: %s", r.Args)
	}
	tk := e.ticket(edited)
	var args map[string]any
	json.Unmarshal(tk.Edited, &args)
	if args["api_token"] != "s3cr3t-value" || args["path"] != "/srv/c/tmp" || args["keep_days"] != 3.0 {
		t.Errorf("edited arguments %s", tk.Edited)
	}
}

func TestEditValidation(t *testing.T) {
	e := newEnv(t, envOptions{})
	tk := e.hold(context.Background(), `{"path":"/srv/a","mode":"trash"}`)
	o := e.login("tok-alice")
	tests := []struct {
		name string
		form url.Values
		msg  string
	}{
		{"not a number", url.Values{"arg.path": {"/x"}, "arg.keep_days": {"three"}}, "Enter a whole number."},
		{"below the minimum", url.Values{"arg.path": {"/x"}, "arg.keep_days": {"-1"}}, "Must be at least 0."},
		{"required field emptied", url.Values{"arg.path": {""}}, "Must not be empty."},
		{"not in the enum", url.Values{"arg.path": {"/x"}, "arg.mode": {"burn"}}, "Choose one of the listed values."},
		{"not a boolean", url.Values{"arg.path": {"/x"}, "arg.recursive": {"maybe"}}, "Choose true or false."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.form.Set("ticket", tk)
			res := o.post("edit", tt.form)
			b := body(res)
			if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(b, tt.msg) || !strings.Contains(b, `aria-invalid="true"`) {
				t.Errorf("status %d, want 422 with %q inline:\n%s", res.StatusCode, tt.msg, b)
			}
			if st := e.ticket(tk).State; st != approval.TicketPending {
				t.Errorf("ticket %s after an invalid edit", st)
			}
		})
	}
}

func TestTwoOperatorsOneTicket(t *testing.T) {
	e := newEnv(t, envOptions{})
	for round := range 20 {
		tk := e.hold(context.Background(), `{"path":"/srv/race`+string(rune('a'+round))+`"}`)
		ops := []*operator{e.login("tok-alice"), e.login("tok-bob")}
		forms := []url.Values{
			{"ticket": {tk}, "action": {"approve"}},
			{"ticket": {tk}, "action": {"deny"}, "reason": {"no"}},
		}
		var wg sync.WaitGroup
		status := make([]int, 2)
		bodies := make([]string, 2)
		for i := range ops {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := ops[i].post("decide", forms[i])
				status[i], bodies[i] = res.StatusCode, body(res)
			}()
		}
		wg.Wait()
		winners := 0
		for i := range status {
			switch status[i] {
			case http.StatusSeeOther:
				winners++
			case http.StatusConflict:
				if !strings.Contains(bodies[i], "was already") || !(strings.Contains(bodies[i], "by alice") || strings.Contains(bodies[i], "by bob")) {
					t.Errorf("the loser is not told who decided:\n%s", bodies[i])
				}
			default:
				t.Errorf("operator %d: status %d", i, status[i])
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d winners, want 1 (%v)", round, winners, status)
		}
	}
}

func TestLedgerPageAndExport(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	tk := e.hold(ctx, `{"path":"/srv/a"}`)
	o := e.login("tok-alice")
	o.post("decide", url.Values{"ticket": {tk}, "action": {"approve"}})
	if _, err := e.exec.Call(caller.WithIdentity(ctx, &caller.Identity{Subject: "agent-7"}), "delete_file", json.RawMessage(`{"path":"/srv/a"}`)); err != nil {
		t.Fatal(err)
	}
	e.exec.Close()
	page := body(o.do("GET", "ledger?ticket="+tk, nil, nil))
	for _, want := range []string{"approval_pending", "decision", ">ok<", "alice", tk} {
		if !strings.Contains(page, want) {
			t.Errorf("chain page lacks %q", want)
		}
	}
	if i, j := strings.Index(page, "approval_pending"), strings.Index(page, ">ok<"); i < 0 || j < i {
		t.Error("the chain is not oldest first")
	}
	res := o.do("GET", "export?ticket="+tk, nil, nil)
	b := body(res)
	if res.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Errorf("export content type %q", res.Header.Get("Content-Type"))
	}
	lines := strings.Split(strings.TrimSpace(b), "\n")
	if len(lines) != 3 {
		t.Fatalf("export has %d lines, want 3:\n%s", len(lines), b)
	}
	for _, l := range lines {
		var r ledger.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Ticket != tk {
			t.Errorf("export line %q: %v", l, err)
		}
	}
	if res := o.do("GET", "ledger?since=yesterday", nil, nil); res.StatusCode != http.StatusBadRequest {
		t.Errorf("bad time filter: %d", res.StatusCode)
	}
}

func TestStandingDecisions(t *testing.T) {
	ctx := context.Background()
	as := func(subject string) context.Context {
		return caller.WithIdentity(ctx, &caller.Identity{Subject: subject})
	}
	t.Run("allowed", func(t *testing.T) {
		e := newEnv(t, envOptions{standing: true})
		o := e.login("tok-alice")
		tk := e.hold(ctx, `{"path":"/tmp/a"}`)
		page := body(o.do("GET", "approvals", nil, nil))
		if !strings.Contains(page, `id="always-approve-`+tk+`"`) || !strings.Contains(page, "Always approve for agent-7") {
			t.Fatalf("no approve-always button:\n%s", page)
		}
		if res := o.post("decide", url.Values{"ticket": {tk}, "action": {"approve-always"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("approve-always: %d %s", res.StatusCode, body(res))
		}
		if got := e.ticket(tk); got.State != approval.TicketApproved || got.Approver != "alice" {
			t.Errorf("ticket %+v", got)
		}
		// The same requester's next call, other arguments: no ticket.
		if _, err := e.exec.Call(as("agent-7"), "delete_file", json.RawMessage(`{"path":"/tmp/b"}`)); err != nil {
			t.Errorf("call covered by the standing approval: %v", err)
		}
		// Another requester is still asked.
		if _, err := e.exec.Call(as("agent-8"), "delete_file", json.RawMessage(`{"path":"/tmp/b"}`)); adapter.KindOf(err) != adapter.KindApprovalPending {
			t.Errorf("another requester's call: %v, want approval_pending", err)
		}
		e.exec.Close()
		var rec *ledger.Record
		for _, r := range e.ledger.Records() {
			if r.Ticket == tk && r.Outcome == console.OutcomeDecision {
				rec = &r
			}
		}
		if rec == nil || rec.Approver != "alice" || !strings.Contains(rec.Message, "always approve delete_file for agent-7") {
			t.Errorf("decision record %+v", rec)
		}
	})
	t.Run("listed, recorded, revoked", func(t *testing.T) {
		e := newEnv(t, envOptions{standing: true})
		o := e.login("tok-alice")
		tk := e.hold(ctx, `{"path":"/tmp/a"}`)
		if res := o.post("decide", url.Values{"ticket": {tk}, "action": {"approve-always"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("approve-always: %d %s", res.StatusCode, body(res))
		}
		page := body(o.do("GET", "approvals", nil, nil))
		if !strings.Contains(page, `id="standing-0"`) || !strings.Contains(page, "always approve") || !strings.Contains(page, `id="revoke-0"`) {
			t.Fatalf("the standing decision is not listed:\n%s", page)
		}
		// bob revokes alice's decision: the next call is held again.
		b := e.login("tok-bob")
		if res := b.post("standing", url.Values{"tool": {"delete_file"}, "subject": {"agent-7"}, "action": {"revoke"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("revoke: %d %s", res.StatusCode, body(res))
		}
		if _, err := e.exec.Call(as("agent-7"), "delete_file", json.RawMessage(`{"path":"/tmp/c"}`)); adapter.KindOf(err) != adapter.KindApprovalPending {
			t.Errorf("call after the revocation: %v, want approval_pending", err)
		}
		if res := b.post("standing", url.Values{"tool": {"delete_file"}, "subject": {"agent-7"}, "action": {"revoke"}}); res.StatusCode != http.StatusConflict {
			t.Errorf("revoking twice: %d, want 409", res.StatusCode)
		}
		// A forged form (no CSRF token) revokes nothing.
		if res := b.do("POST", "standing", url.Values{"tool": {"delete_file"}, "subject": {"agent-7"}, "action": {"revoke"}}, nil); res.StatusCode != http.StatusForbidden {
			t.Errorf("revoke without the CSRF token: %d, want 403", res.StatusCode)
		}
		e.exec.Close()
		var got []string
		for _, r := range e.ledger.Records() {
			if r.Outcome == console.OutcomeStanding {
				got = append(got, r.Approval+" "+r.Tool+" "+r.Subject+" by "+r.Approver)
			}
		}
		want := []string{"approved delete_file agent-7 by alice", "revoked delete_file agent-7 by bob"}
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("standing records %q, want %q", got, want)
		}
	})
	t.Run("revoke with the store down", func(t *testing.T) {
		// A revoke the store could not write is an error on the page and
		// no "revoked" record: the decision stays in force, here as on
		// every replica that reads the store.
		st := &downStandingStore{MemoryStandingStore: approval.NewMemoryStandingStore()}
		e := newEnv(t, envOptions{standing: true, standingStore: st})
		o := e.login("tok-alice")
		tk := e.hold(ctx, `{"path":"/tmp/a"}`)
		if res := o.post("decide", url.Values{"ticket": {tk}, "action": {"approve-always"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("approve-always: %d %s", res.StatusCode, body(res))
		}
		st.down.Store(true)
		res := o.post("standing", url.Values{"tool": {"delete_file"}, "subject": {"agent-7"}, "action": {"revoke"}})
		if page := body(res); res.StatusCode != http.StatusInternalServerError || !strings.Contains(page, "stays in force") {
			t.Fatalf("revoke with the store down: %d, want 500 saying it stays in force:\n%s", res.StatusCode, page)
		}
		if _, err := e.exec.Call(as("agent-7"), "delete_file", json.RawMessage(`{"path":"/tmp/b"}`)); err != nil {
			t.Errorf("call after the failed revoke: %v, want it covered still", err)
		}
		st.down.Store(false)
		if res := o.post("standing", url.Values{"tool": {"delete_file"}, "subject": {"agent-7"}, "action": {"revoke"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("revoke: %d %s", res.StatusCode, body(res))
		}
		e.exec.Close()
		var got []string
		for _, r := range e.ledger.Records() {
			if r.Outcome == console.OutcomeStanding {
				got = append(got, r.Approval)
			}
		}
		if strings.Join(got, " ") != "approved revoked" {
			t.Errorf("standing records %q, want one approval and one revocation", got)
		}
	})
	t.Run("session scope", func(t *testing.T) {
		// Under ScopeSession the ticket's subject is qualified by its
		// session; the standing decision is still for the caller.
		e := newEnv(t, envOptions{standing: true, scope: approval.ScopeSession})
		o := e.login("tok-alice")
		tk := e.hold(caller.WithSession(ctx, "s1"), `{"path":"/tmp/a"}`)
		if res := o.post("decide", url.Values{"ticket": {tk}, "action": {"approve-always"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("approve-always: %d %s", res.StatusCode, body(res))
		}
		for _, s := range []string{"s1", "s2"} {
			if _, err := e.exec.Call(caller.WithSession(as("agent-7"), s), "delete_file", json.RawMessage(`{"path":"/tmp/b"}`)); err != nil {
				t.Errorf("session %s: call covered by the standing approval: %v", s, err)
			}
		}
		if _, err := e.exec.Call(caller.WithSession(as("agent-8"), "s1"), "delete_file", json.RawMessage(`{"path":"/tmp/b"}`)); adapter.KindOf(err) != adapter.KindApprovalPending {
			t.Errorf("another requester's call: %v, want approval_pending", err)
		}
	})
	t.Run("deny always", func(t *testing.T) {
		e := newEnv(t, envOptions{standing: true})
		o := e.login("tok-bob")
		tk := e.hold(ctx, `{"path":"/etc"}`)
		if res := o.post("decide", url.Values{"ticket": {tk}, "action": {"deny-always"}, "reason": {"never from this agent"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("deny-always: %d", res.StatusCode)
		}
		_, err := e.exec.Call(as("agent-7"), "delete_file", json.RawMessage(`{"path":"/var"}`))
		if ae := asError(err); ae == nil || ae.Kind != adapter.KindApprovalDenied || !strings.Contains(ae.Message, "never from this agent") {
			t.Errorf("call after deny-always: %v", err)
		}
	})
	t.Run("not allowed", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		o := e.login("tok-alice")
		tk := e.hold(ctx, `{"path":"/tmp/a"}`)
		if page := body(o.do("GET", "approvals", nil, nil)); strings.Contains(page, "always-approve") {
			t.Error("approve-always offered without a policy allowing it")
		}
		if res := o.post("decide", url.Values{"ticket": {tk}, "action": {"approve-always"}}); res.StatusCode != http.StatusForbidden {
			t.Errorf("approve-always without a policy: %d, want 403", res.StatusCode)
		}
		if st := e.ticket(tk).State; st != approval.TicketPending {
			t.Errorf("ticket %s", st)
		}
	})
}

func asError(err error) *adapter.Error {
	var ae *adapter.Error
	if errors.As(err, &ae) {
		return ae
	}
	return nil
}

// Arguments too large for the ticket to keep cannot be shown or edited:
// the operator decides on the hash, and the editor refuses.
func TestTooLargeToEdit(t *testing.T) {
	e := newEnv(t, envOptions{})
	big := strings.Repeat("x", approval.MaxTicketArgBytes+10)
	tk := e.hold(context.Background(), `{"path":"`+big+`"}`)
	o := e.login("tok-alice")
	page := body(o.do("GET", "approvals", nil, nil))
	if !strings.Contains(page, "too large to keep") || strings.Contains(page, `id="edit-`+tk+`"`) || strings.Contains(page, big[:100]) {
		t.Errorf("approvals page for a ticket without its arguments:\n%.2000s", page)
	}
	res := o.do("GET", "edit?ticket="+tk, nil, nil)
	if b := body(res); res.StatusCode != http.StatusConflict || !strings.Contains(b, "cannot be edited") {
		t.Errorf("edit page: %d\n%.500s", res.StatusCode, b)
	}
	res = o.post("edit", url.Values{"ticket": {tk}, "arg.path": {"/tmp"}})
	if body(res); res.StatusCode != http.StatusConflict || e.ticket(tk).State != approval.TicketPending {
		t.Errorf("edit post: %d, ticket %s", res.StatusCode, e.ticket(tk).State)
	}
}

// A ticket store that cannot keep edited arguments: no edit button, and the
// editor refuses with the reason.
func TestEditNeedsATicketEditor(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.d.Store = plainStore{approval.NewMemoryStore()}
	tk := e.hold(context.Background(), `{"path":"/srv/a"}`)
	o := e.login("tok-alice")
	if page := body(o.do("GET", "approvals", nil, nil)); !strings.Contains(page, tk) || strings.Contains(page, `id="edit-`+tk+`"`) {
		t.Errorf("edit offered over a store that cannot keep edits")
	}
	res := o.post("edit", url.Values{"ticket": {tk}, "arg.path": {"/tmp"}})
	if b := body(res); res.StatusCode != http.StatusConflict || !strings.Contains(b, "cannot keep edited arguments") {
		t.Errorf("edit: %d", res.StatusCode)
	}
	if st := e.ticket(tk).State; st != approval.TicketPending {
		t.Errorf("ticket %s", st)
	}
}

// plainStore hides MemoryTicketStore's ApproveEdited.
type plainStore struct{ approval.Store }

// Hostile input: a model's arguments and an operator's reason are text,
// never markup; a reason past the bound is refused, not truncated.
func TestHostileInput(t *testing.T) {
	e := newEnv(t, envOptions{})
	tk := e.hold(context.Background(), `{"path":"<script>alert(1)</script><img src=x onerror=alert(2)>"}`)
	o := e.login("tok-alice")
	for _, p := range []string{"approvals", "pending", "edit?ticket=" + tk} {
		b := body(o.do("GET", p, nil, nil))
		if strings.Contains(b, "<script>alert") || strings.Contains(b, "<img src=x") {
			t.Errorf("%s renders the arguments as markup", p)
		}
		if !strings.Contains(b, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s does not show the arguments escaped", p)
		}
	}
	res := o.post("decide", url.Values{"ticket": {tk}, "action": {"deny"}, "reason": {strings.Repeat("r", 1001)}})
	if body(res); res.StatusCode != http.StatusBadRequest || e.ticket(tk).State != approval.TicketPending {
		t.Errorf("oversized reason: %d, ticket %s", res.StatusCode, e.ticket(tk).State)
	}
	res = o.post("decide", url.Values{"ticket": {"tkt_nosuch"}, "action": {"approve"}})
	if b := body(res); res.StatusCode != http.StatusNotFound || !strings.Contains(b, "does not exist") {
		t.Errorf("unknown ticket: %d", res.StatusCode)
	}
	res = o.post("decide", url.Values{"ticket": {tk}, "action": {"explode"}})
	if body(res); res.StatusCode != http.StatusBadRequest {
		t.Errorf("unknown action: %d", res.StatusCode)
	}
	// A form body past the bound is refused before it is parsed.
	res = o.do("POST", "decide", url.Values{"csrf": {o.csrf}, "ticket": {tk}, "reason": {strings.Repeat("x", 2<<20)}}, nil)
	if body(res); res.StatusCode != http.StatusBadRequest {
		t.Errorf("2 MiB form: %d, want 400", res.StatusCode)
	}
}

// "Keep blocked" is recorded (who, when, which definition) and shown on
// the quarantine page; the page reads it back from the ledger, so a new
// console (a restart) shows it too, and only for that definition.
func TestQuarantineKeepBlocked(t *testing.T) {
	e := newEnv(t, envOptions{servers: true})
	e.changeUpstream()
	got := e.manager.Quarantined()[0].Got
	b := e.login("tok-bob")
	if res := b.post("quarantine", url.Values{"server": {"dict"}, "tool": {"lookup"}, "got": {got}, "action": {"keep"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("keep: %d %s", res.StatusCode, body(res))
	}
	if q := e.manager.Quarantined(); len(q) != 1 {
		t.Fatalf("kept blocked, but quarantined is %+v", q)
	}
	if _, err := e.exec.Call(context.Background(), "lookup", json.RawMessage(`{"word":"rug"}`)); adapter.KindOf(err) != adapter.KindGuardrailBlocked {
		t.Errorf("call of a tool kept blocked: %v", err)
	}
	kept := regexp.MustCompile(`id="kept-dict-lookup"[^>]*>Kept blocked by <strong>bob</strong> at \d{4}-\d\d-\d\d`)
	if page := body(b.do("GET", "quarantine", nil, nil)); !kept.MatchString(page) {
		t.Errorf("the page does not say bob kept it blocked:\n%s", page)
	}
	var rec *ledger.Record
	for _, r := range e.ledger.Records() {
		if r.Outcome == console.OutcomePinKept {
			rec = &r
		}
	}
	if rec == nil || rec.Approver != "bob" || !strings.Contains(string(rec.Args), got) || !strings.Contains(string(rec.Args), `"server":"dict"`) {
		t.Fatalf("pin_kept record %+v, want bob and the definition hash %s", rec, got)
	}

	// A new console over the same ledger and servers: the decision shows.
	c2, err := console.New(&console.Options{
		Approvals: e.d, Tools: e.reg, Ledger: e.ledger, LedgerReader: e.ledger, Servers: e.manager,
		Auth: &export.AuthOptions{Verifier: verifier}, Revalidate: revalidate, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	req := httptest.NewRequest("GET", "/quarantine", nil)
	req.Header.Set("Authorization", "Bearer tok-alice")
	w := httptest.NewRecorder()
	c2.ServeHTTP(w, req)
	if !kept.MatchString(w.Body.String()) {
		t.Errorf("a new console does not show the decision:\n%s", w.Body.String())
	}

	// The server changes the definition again: nobody kept this one.
	v, _ := upstreams.Load(e.manager)
	addLookup(v.(*mcp.Server), "Looks a word up. Version three.")
	waitFor(t, "the third definition", func() bool {
		q := e.manager.Quarantined()
		return len(q) == 1 && q[0].Got != got
	})
	if page := body(b.do("GET", "quarantine", nil, nil)); strings.Contains(page, `id="kept-dict-lookup"`) {
		t.Errorf("a definition nobody reviewed is shown as kept blocked:\n%s", page)
	}
}

// Consoles sharing a session store (replicas, or one console restarted)
// share sign-ins and sign-outs; the store never holds a usable cookie.
func TestSessionsShared(t *testing.T) {
	cache := adapter.NewMemoryCache(100, 0)
	ledger := ledger.NewMemory(0)
	newConsole := func(sessions console.SessionStore) *httptest.Server {
		c, err := console.New(&console.Options{
			Approvals: &approval.Deferred{}, Ledger: ledger, LedgerReader: ledger,
			Auth: &export.AuthOptions{Verifier: verifier}, Revalidate: revalidate, Sessions: sessions, Logger: slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		s := httptest.NewServer(c)
		t.Cleanup(func() { c.Close(); s.Close() })
		return s
	}
	a, b := newConsole(console.CacheSessions(cache)), newConsole(console.CacheSessions(cache))
	alone := newConsole(nil)
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req := func(srv *httptest.Server, method, path, cookie string, form url.Values) *http.Response {
		t.Helper()
		var rd *strings.Reader
		if form != nil {
			rd = strings.NewReader(form.Encode())
		} else {
			rd = strings.NewReader("")
		}
		r, _ := http.NewRequest(method, srv.URL+path, rd)
		if form != nil {
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if cookie != "" {
			r.Header.Set("Cookie", cookie)
		}
		res, err := (&http.Client{CheckRedirect: noRedirect}).Do(r)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := req(a, "POST", "/login", "", url.Values{"token": {"tok-alice"}})
	if res.StatusCode != http.StatusSeeOther || len(res.Cookies()) != 1 {
		t.Fatalf("login: %d %v", res.StatusCode, res.Cookies())
	}
	ck := res.Cookies()[0]
	cookie := ck.Name + "=" + ck.Value
	page := body(req(b, "GET", "/approvals", cookie, nil))
	if !strings.Contains(page, `id="operator"`) || !strings.Contains(page, "alice") {
		t.Fatalf("the other console does not know the session:\n%s", page)
	}
	if res := req(alone, "GET", "/approvals", cookie, nil); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a console with its own sessions accepted another's cookie: %d", res.StatusCode)
	}
	// What the store holds is not a cookie.
	if _, ok := cache.Get(context.Background(), "console/session/"+ck.Value); ok {
		t.Error("the store keys sessions by the cookie itself")
	}
	// Signing out on b ends the session on a.
	m := csrfRE.FindStringSubmatch(page)
	if res := req(b, "POST", "/logout", cookie, url.Values{"csrf": {"forged"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("logout with a forged CSRF token: %d, want 403", res.StatusCode)
	}
	if res := req(a, "GET", "/approvals", cookie, nil); res.StatusCode != http.StatusOK {
		t.Errorf("a forged logout ended the session: %d", res.StatusCode)
	}
	if res := req(b, "POST", "/logout", cookie, url.Values{"csrf": {m[1]}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", res.StatusCode)
	}
	if res := req(a, "GET", "/approvals", cookie, nil); res.StatusCode != http.StatusSeeOther {
		t.Errorf("the session outlived its sign-out on another console: %d", res.StatusCode)
	}
	// A forged cookie opens nothing.
	if res := req(a, "GET", "/approvals", ck.Name+"=forged", nil); res.StatusCode != http.StatusSeeOther {
		t.Errorf("forged cookie: %d", res.StatusCode)
	}
}

// downStandingStore fails every write while down is set.
type downStandingStore struct {
	*approval.MemoryStandingStore
	down atomic.Bool
}

func (d *downStandingStore) Put(ctx context.Context, r approval.StandingRule) error {
	if d.down.Load() {
		return errors.New("database down")
	}
	return d.MemoryStandingStore.Put(ctx, r)
}

func (d *downStandingStore) Delete(ctx context.Context, tool, subject string) (bool, error) {
	if d.down.Load() {
		return false, errors.New("database down")
	}
	return d.MemoryStandingStore.Delete(ctx, tool, subject)
}
