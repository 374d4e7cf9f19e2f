package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// agentModel is a scripted tool-calling model standing for an agent told
// to retry a call held for approval once it is decided: it asks for one
// call, and when the tool answers approval_pending it waits for the
// decision (reading the ticket's state, as an agent polling would learn
// it) and asks for the same call again.
type agentModel struct {
	call      schema.ToolCall
	decided   func(ctx context.Context, ticket string) error
	mu        sync.Mutex
	inputs    [][]*schema.Message
	tickets   []string
	nextCalls int
}

var ticketRE = regexp.MustCompile(`tkt_[A-Za-z0-9_-]+`)

func (m *agentModel) Generate(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	m.inputs = append(m.inputs, append([]*schema.Message(nil), in...))
	m.mu.Unlock()
	last := in[len(in)-1]
	if last.Role != schema.Tool {
		return schema.AssistantMessage("", []schema.ToolCall{m.call}), nil
	}
	if strings.Contains(last.Content, "approval_pending") {
		tk := ticketRE.FindString(last.Content)
		if tk == "" {
			return nil, fmt.Errorf("a pending answer without a ticket: %s", last.Content)
		}
		m.mu.Lock()
		m.tickets = append(m.tickets, tk)
		m.nextCalls++
		c := m.call
		c.ID = fmt.Sprintf("%s-retry%d", c.ID, m.nextCalls)
		m.mu.Unlock()
		if err := m.decided(ctx, tk); err != nil {
			return nil, err
		}
		return schema.AssistantMessage("", []schema.ToolCall{c}), nil
	}
	return schema.AssistantMessage("final: "+last.Content, nil), nil
}

func (m *agentModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *agentModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

func (m *agentModel) lastInput() []*schema.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inputs[len(m.inputs)-1]
}

// startAgent runs an eino react agent whose tools come from the gateway
// over MCP (streamable HTTP, bearer token of agent-7); the gateway's
// executor governs the calls. It returns the agent's final message.
func (e *env) startAgent(t *testing.T, args string) (*agentModel, <-chan *schema.Message, <-chan error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	reg := registry.New()
	m := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { m.Close() })
	if err := m.Connect(ctx, mcpadapter.Server{Name: "gateway", URL: e.mcpURL, BearerToken: "tok-agent"}); err != nil {
		t.Fatal(err)
	}
	local := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { local.Close() })
	tools, err := einoadapter.Tools(reg, local, nil)
	if err != nil {
		t.Fatal(err)
	}
	am := &agentModel{
		call: schema.ToolCall{ID: "call-1", Type: "function", Function: schema.FunctionCall{Name: "delete_file", Arguments: args}},
		decided: func(ctx context.Context, tk string) error {
			for {
				got, err := e.d.Ticket(ctx, tk)
				if err != nil {
					return err
				}
				if got.State != approval.TicketPending {
					return nil
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(10 * time.Millisecond):
				}
			}
		},
	}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: am,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: tools},
		MaxStep:          12,
	})
	if err != nil {
		t.Fatal(err)
	}
	out, errc := make(chan *schema.Message, 1), make(chan error, 1)
	go func() {
		msg, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage("clean up the old reports")})
		if err != nil {
			errc <- err
			return
		}
		out <- msg
	}()
	return am, out, errc
}

var _ tool.BaseTool // eino's tool package is what einoadapter.Tools returns

// waitPending waits for the first pending ticket and returns it with the
// time it was created.
func (e *env) waitPending(t *testing.T) string {
	t.Helper()
	var id string
	waitFor(t, "a pending ticket", func() bool {
		for tk, err := range e.d.Pending(context.Background()) {
			if err == nil {
				id = tk.ID
				return true
			}
		}
		return false
	})
	return id
}

func finish(t *testing.T, out <-chan *schema.Message, errc <-chan error) *schema.Message {
	t.Helper()
	select {
	case msg := <-out:
		return msg
	case err := <-errc:
		t.Fatalf("the agent failed: %v", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("the agent did not finish")
	}
	return nil
}

// liveWithin waits for the ticket's card to appear on an open page without
// a reload, and fails if that took longer than limit after the ticket was
// created.
func liveWithin(t *testing.T, ctx context.Context, e *env, id string, limit time.Duration) {
	t.Helper()
	created := e.ticket(id).Created
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.WaitVisible(sel("#t-%s", id))); err != nil {
		t.Fatalf("ticket %s never appeared on the open page: %v", id, err)
	}
	d := time.Since(created)
	t.Logf("ticket %s visible on the open page %v after it was created", id, d.Round(time.Millisecond))
	if d > limit {
		t.Errorf("ticket %s appeared %v after it was created, want within %v", id, d, limit)
	}
	if !eval[bool](t, ctx, `window.__notReloaded === true`) {
		t.Error("the page was reloaded; the ticket should arrive over server-sent events")
	}
}

// openLive opens the approvals page and waits for its event stream.
func openLive(t *testing.T, ctx context.Context, e *env) {
	t.Helper()
	openLiveAt(t, ctx, e.base)
}

// openLiveAt opens the approvals page of the console at base and waits
// for its event stream.
func openLiveAt(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(base+"approvals"), chromedp.WaitVisible(chromedp.ID("tickets")))
	waitFor(t, "the event stream", func() bool { return eval[string](t, ctx, `document.getElementById("live").textContent`) == "live." })
	eval[bool](t, ctx, `window.__notReloaded = true`)
}

func TestBrowserEditArgumentsThenApprove(t *testing.T) {
	alloc := newBrowser(t)
	e := newEnv(t, envOptions{standing: true})
	ctx := e.tab(t, alloc, "tok-alice")
	openLive(t, ctx, e)

	am, out, errc := e.startAgent(t, `{"path":"/reports/2019","recursive":true,"api_token":"s3cr3t-value"}`)
	id := e.waitPending(t)
	liveWithin(t, ctx, e, id, time.Second)

	card := text(t, ctx, "#t-"+id)
	for _, want := range []string{"delete_file", "agent-7", "Deletes a file from the shared drive.", "destructive", `"/reports/2019"`, ledger.Redacted} {
		if !strings.Contains(card, want) {
			t.Errorf("the card lacks %q:\n%s", want, card)
		}
	}
	if strings.Contains(card, "s3cr3t-value") {
		t.Error("the card shows a secret")
	}
	checkLabels(t, ctx, "approvals")
	screenshot(t, ctx, "approvals")

	// Edit one argument; first a bad value, shown inline, then a good one.
	do(t, ctx, chromedp.Click(sel("#edit-%s", id)), chromedp.WaitVisible(chromedp.ID("approve-edited")))
	checkLabels(t, ctx, "edit")
	do(t, ctx,
		chromedp.SetValue(sel(`[name="arg.keep_days"]`), "-3"),
		chromedp.Click(chromedp.ID("approve-edited")),
		chromedp.WaitVisible(sel(`.field.invalid`)),
	)
	if msg := text(t, ctx, ".field.invalid .error"); msg != "Must be at least 0." {
		t.Errorf("inline error %q", msg)
	}
	if e.ticket(id).State != approval.TicketPending {
		t.Fatal("an invalid edit approved the ticket")
	}
	screenshot(t, ctx, "edit")
	do(t, ctx,
		chromedp.SetValue(sel(`[name="arg.keep_days"]`), ""),
		chromedp.SetValue(sel(`[name="arg.path"]`), "/reports/2019/tmp"),
		chromedp.Click(chromedp.ID("approve-edited")),
		chromedp.WaitVisible(chromedp.ID("notice")),
	)
	if n := text(t, ctx, "#notice"); !strings.Contains(n, "edited arguments") {
		t.Errorf("notice %q", n)
	}

	// The agent resumes and finishes with the edited arguments.
	final := finish(t, out, errc)
	ran := e.ran()
	if len(ran) != 1 {
		t.Fatalf("the tool ran %d times (%q), want once", len(ran), ran)
	}
	var got map[string]any
	json.Unmarshal([]byte(ran[0]), &got)
	if got["path"] != "/reports/2019/tmp" || got["recursive"] != true || got["api_token"] != "s3cr3t-value" {
		t.Errorf("the tool ran with %s, want the edited path and the other arguments unchanged", ran[0])
	}
	if !strings.Contains(final.Content, "/reports/2019/tmp") {
		t.Errorf("final answer %q lacks the edited path", final.Content)
	}
	if len(am.tickets) != 1 || am.tickets[0] != id {
		t.Errorf("the agent saw tickets %v, want [%s]", am.tickets, id)
	}

	// The ledger page shows the chain: held, decided by alice, ran edited.
	e.exec.Close()
	do(t, ctx, chromedp.Navigate(e.base+"ledger?ticket="+id), chromedp.WaitVisible(chromedp.ID("chain")))
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll("#ledger tbody tr")].map(r => r.innerText.replace(/\s+/g, " "))`)
	if len(rows) != 3 {
		t.Fatalf("chain rows %q, want 3", rows)
	}
	for i, want := range [][]string{{"approval_pending", "pending"}, {"decision", "approved", "alice", "/reports/2019/tmp"}, {"ok", "approved", "alice", "/reports/2019/tmp"}} {
		for _, w := range want {
			if !strings.Contains(rows[i], w) {
				t.Errorf("chain row %d %q lacks %q", i, rows[i], w)
			}
		}
	}
	if strings.Contains(strings.Join(rows, "\n"), "s3cr3t-value") {
		t.Error("the ledger page shows a secret")
	}
	checkLabels(t, ctx, "ledger")
	screenshot(t, ctx, "ledger")
}

func TestBrowserDenyWithReason(t *testing.T) {
	alloc := newBrowser(t)
	e := newEnv(t, envOptions{})
	ctx := e.tab(t, alloc, "tok-bob")
	openLive(t, ctx, e)
	am, out, errc := e.startAgent(t, `{"path":"/etc"}`)
	id := e.waitPending(t)
	liveWithin(t, ctx, e, id, time.Second)

	// Keyboard only: Tab to the reason, type it, Tab to Deny, press Enter.
	tabTo(t, ctx, "reason-"+id)
	do(t, ctx, chromedp.KeyEvent("system folders are off limits; pick a file under /reports"))
	tabTo(t, ctx, "deny-"+id)
	do(t, ctx, chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.ID("notice")))

	final := finish(t, out, errc)
	if n := len(e.ran()); n != 0 {
		t.Fatalf("a denied call ran %d times", n)
	}
	in := am.lastInput()
	last := in[len(in)-1]
	if last.Role != schema.Tool || !strings.Contains(last.Content, "system folders are off limits") || !strings.Contains(last.Content, "approval_denied") {
		t.Errorf("the model's next turn reads %q, want the denial with its reason", last.Content)
	}
	if !strings.Contains(final.Content, "off limits") {
		t.Errorf("final answer %q", final.Content)
	}
	e.exec.Close()
	var decision *ledger.Record
	for _, r := range e.ledger.Records() {
		if r.Ticket == id && r.Outcome == "decision" {
			decision = &r
		}
	}
	if decision == nil || decision.Approver != "bob" || decision.Approval != "denied" {
		t.Errorf("decision record %+v, want denied by bob", decision)
	}
}

func TestBrowserQuarantineAccept(t *testing.T) {
	alloc := newBrowser(t)
	e := newEnv(t, envOptions{servers: true})
	ctx := e.tab(t, alloc, "tok-alice")
	e.changeUpstream()
	if _, err := e.exec.Call(context.Background(), "lookup", json.RawMessage(`{"word":"rug"}`)); adapter.KindOf(err) != adapter.KindGuardrailBlocked {
		t.Fatalf("quarantined call: %v, want guardrail_blocked", err)
	}

	do(t, ctx, chromedp.Navigate(e.base+"servers"), chromedp.WaitVisible(chromedp.ID("servers")))
	row := text(t, ctx, "#servers tbody tr")
	for _, want := range []string{"dict", "connected", "custom", "trusted"} {
		if !strings.Contains(row, want) {
			t.Errorf("servers row %q lacks %q", row, want)
		}
	}
	checkLabels(t, ctx, "servers")
	screenshot(t, ctx, "servers")

	do(t, ctx, chromedp.Navigate(e.base+"quarantine"), chromedp.WaitVisible(chromedp.ID("accept-dict-lookup")))
	added := eval[[]string](t, ctx, `[...document.querySelectorAll("#q-dict-lookup .dadd")].map(e => e.textContent)`)
	removed := eval[[]string](t, ctx, `[...document.querySelectorAll("#q-dict-lookup .ddel")].map(e => e.textContent)`)
	if !strings.Contains(strings.Join(added, "\n"), "SSH key") || !strings.Contains(strings.Join(added, "\n"), `"note"`) {
		t.Errorf("the diff's added lines %q lack the new description and parameter", added)
	}
	if !strings.Contains(strings.Join(removed, "\n"), "Looks a word up in the dictionary.") {
		t.Errorf("the diff's removed lines %q lack the old description", removed)
	}
	checkLabels(t, ctx, "quarantine")
	screenshot(t, ctx, "quarantine")

	do(t, ctx, chromedp.Click(chromedp.ID("accept-dict-lookup")), chromedp.WaitVisible(chromedp.ID("notice")))
	if q := e.manager.Quarantined(); len(q) != 0 {
		t.Fatalf("still quarantined: %+v", q)
	}
	res, err := e.exec.Call(context.Background(), "lookup", json.RawMessage(`{"word":"rug"}`))
	if err != nil || res.Text() != "a changed definition" {
		t.Fatalf("call after accepting: %v, %v", res, err)
	}
	if who := text(t, ctx, "#pin-decisions tbody tr"); !strings.Contains(who, "alice") || !strings.Contains(who, "pin_accepted") {
		t.Errorf("pin decision row %q", who)
	}
}

func TestBrowserTwoOperatorsOneTicket(t *testing.T) {
	alloc := newBrowser(t)
	e := newEnv(t, envOptions{})
	alice, bob := e.tab(t, alloc, "tok-alice"), e.tab(t, alloc, "tok-bob")
	openLive(t, alice, e)
	openLive(t, bob, e)
	id := e.hold(context.Background(), `{"path":"/reports/2020"}`)
	liveWithin(t, alice, e, id, time.Second)
	liveWithin(t, bob, e, id, time.Second)
	// Bob is typing a reason (focus in the card keeps it on his page even
	// once the ticket is decided elsewhere); both submit at once.
	do(t, bob, chromedp.SendKeys(sel("#reason-%s", id), "not yet"))
	errs := make(chan error, 2)
	// A script click: the live list may shift bob's card (marking it as
	// decided elsewhere) between a mouse click's layout and its press.
	submit := func(ctx context.Context, button string) error {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`document.getElementById(%q).click(), true`, button))); err != nil {
			return err
		}
		return chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS("#notice, #error")))
	}
	go func() { errs <- submit(alice, "approve-"+id) }()
	go func() { errs <- submit(bob, "deny-"+id) }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	outcome := func(ctx context.Context) (notice, errMsg string) {
		return eval[string](t, ctx, `(document.getElementById("notice")||{}).textContent||""`),
			eval[string](t, ctx, `(document.getElementById("error")||{}).textContent||""`)
	}
	an, ae := outcome(alice)
	bn, be := outcome(bob)
	won := 0
	for _, o := range []struct{ notice, err, other string }{{an, ae, "bob"}, {bn, be, "alice"}} {
		switch {
		case o.notice != "" && o.err == "":
			won++
		case o.err != "":
			if !strings.Contains(o.err, "already") || !strings.Contains(o.err, "by "+o.other) {
				t.Errorf("the loser reads %q, want who decided first", o.err)
			}
		}
	}
	if won != 1 {
		t.Fatalf("%d operators won (alice %q/%q, bob %q/%q), want exactly 1", won, an, ae, bn, be)
	}
}

func TestBrowserKeyboardAndLabels(t *testing.T) {
	alloc := newBrowser(t)
	e := newEnv(t, envOptions{anonymous: true, standing: true})
	ctx := e.tab(t, alloc, "")
	id := e.hold(context.Background(), `{"path":"/reports/2021","mode":"trash"}`)
	openLive(t, ctx, e)
	do(t, ctx, chromedp.WaitVisible(sel("#t-%s", id)))
	// The skip link comes first and moves the focus to the content.
	do(t, ctx, chromedp.KeyEvent("\t"))
	if got := eval[string](t, ctx, `document.activeElement.id`); got != "skip" {
		t.Errorf("first Tab stop is %q, want the skip link", got)
	}
	// Keyboard only: open the editor, change a field, approve.
	tabTo(t, ctx, "edit-"+id)
	do(t, ctx, chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.ID("approve-edited")))
	checkLabels(t, ctx, "edit (anonymous)")
	tabTo(t, ctx, "f-0")                               // path
	do(t, ctx, chromedp.KeyEvent("/reports/2021/old")) // Tab selects the field's text: typing replaces it
	tabTo(t, ctx, "approve-edited")
	do(t, ctx, chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.ID("notice")))
	tk := e.ticket(id)
	if tk.State != approval.TicketApproved || !strings.Contains(string(tk.Edited), `"/reports/2021/old"`) || tk.Approver != "anonymous@localhost" {
		t.Errorf("ticket after keyboard edit: %s by %s, edited %s", tk.State, tk.Approver, tk.Edited)
	}
	do(t, ctx, chromedp.Navigate(e.base+"login"), chromedp.WaitVisible(chromedp.ID("signin")))
	checkLabels(t, ctx, "login")
	screenshot(t, ctx, "login")
}

// The standing decisions list and a definition kept blocked, in the
// browser: labelled controls, Revoke reachable and usable by keyboard, the
// kept-blocked note beside the definition.
func TestBrowserStandingListAndKeepBlocked(t *testing.T) {
	alloc := newBrowser(t)
	e := newEnv(t, envOptions{standing: true, servers: true})
	ctx := e.tab(t, alloc, "tok-alice")
	id := e.hold(context.Background(), `{"path":"/reports/2022"}`)
	openLive(t, ctx, e)
	do(t, ctx, chromedp.Click(sel("#always-approve-%s", id)), chromedp.WaitVisible(chromedp.ID("standing")))
	if row := text(t, ctx, "#standing-0"); !strings.Contains(row, "delete_file") || !strings.Contains(row, "agent-7") || !strings.Contains(row, "always approve") || !strings.Contains(row, "alice") {
		t.Errorf("standing row %q", row)
	}
	checkLabels(t, ctx, "approvals with standing decisions")
	screenshot(t, ctx, "standing")
	tabTo(t, ctx, "revoke-0")
	do(t, ctx, chromedp.KeyEvent("\r"))
	// The approval's notice is still on the page until the revoke's page
	// replaces it: wait for the new one, not for a notice.
	// Evaluating while the page is replaced may fail: not yet, then.
	waitFor(t, "the revoke's notice", func() bool {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.getElementById("notice")?.textContent ?? "").includes("Revoked the standing decision for delete_file")`))
		return err == nil && ok
	})
	if eval[bool](t, ctx, `document.getElementById("standing") !== null`) {
		t.Error("the revoked decision is still listed")
	}
	ctxA := caller.WithIdentity(context.Background(), &caller.Identity{Subject: "agent-7"})
	if _, err := e.exec.Call(ctxA, "delete_file", json.RawMessage(`{"path":"/reports/2023"}`)); adapter.KindOf(err) != adapter.KindApprovalPending {
		t.Errorf("call after the revocation: %v, want approval_pending", err)
	}

	e.changeUpstream()
	do(t, ctx, chromedp.Navigate(e.base+"quarantine"), chromedp.WaitVisible(chromedp.ID("keep-dict-lookup")))
	tabTo(t, ctx, "keep-dict-lookup")
	do(t, ctx, chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.ID("kept-dict-lookup")))
	if kept := text(t, ctx, "#kept-dict-lookup"); !strings.Contains(kept, "Kept blocked by alice") {
		t.Errorf("kept note %q", kept)
	}
	checkLabels(t, ctx, "quarantine, kept blocked")
	screenshot(t, ctx, "quarantine-kept")
}
