package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/adapter/canonical"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// destructiveTool counts its runs; it has no annotations, so MCP's rules
// make it destructive and open-world.
func destructiveTool(name string, runs *atomic.Int64) *adapter.Spec {
	return rawTool(name, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		runs.Add(1)
		return adapter.TextResult(string(args)), nil
	}, &adapter.ToolOptions{})
}

func TestBlockingApproval(t *testing.T) {
	tests := []struct {
		name       string
		decision   approval.Decision
		portErr    error
		kind       adapter.Kind
		msg        string
		ran        bool
		handlerArg string
		approval   string
	}{
		{name: "approve", decision: approval.Decision{Verdict: approval.VerdictApproved, Approver: "alice"}, ran: true, handlerArg: `{"s":"d","x":1}`, approval: "approved"},
		{name: "deny with reason", decision: approval.Decision{Verdict: approval.VerdictDenied, Reason: "not on a Friday", Approver: "bob"}, kind: adapter.KindApprovalDenied, msg: "not on a Friday", approval: "denied"},
		{name: "approve with edited args", decision: approval.Decision{Verdict: approval.VerdictApproved, Args: json.RawMessage(`{"x":2}`)}, ran: true, handlerArg: `{"s":"d","x":2}`, approval: "approved"},
		{name: "invalid edit", decision: approval.Decision{Verdict: approval.VerdictApproved, Args: json.RawMessage(`{"x":"two"}`)}, kind: adapter.KindArgsInvalid, msg: "$.x", approval: "approved"},
		{name: "port fails", portErr: errors.New("approver unreachable"), kind: adapter.KindInternal},
		{name: "unknown outcome", decision: approval.Decision{Verdict: 42}, kind: adapter.KindInternal, approval: "Verdict(42)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs atomic.Int64
			var seen *approval.Request
			var got string
			spec := rawTool("rm", func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
				runs.Add(1)
				got = canonString(args)
				return adapter.TextResult("done"), nil
			}, &adapter.ToolOptions{})
			port := approval.Func(func(_ context.Context, r *approval.Request) (approval.Decision, error) {
				seen = r
				return tt.decision, tt.portErr
			})
			e, ml := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: port}}, spec)
			_, err := e.Call(context.Background(), "rm", json.RawMessage(` { "x" : 1 } `))
			if k := kindOf(t, err); k != tt.kind {
				t.Fatalf("kind %q, want %q (%v)", k, tt.kind, err)
			}
			if tt.msg != "" && !strings.Contains(asAdapterError(t, err).Message, tt.msg) {
				t.Errorf("message %q lacks %q", asAdapterError(t, err).Message, tt.msg)
			}
			if (runs.Load() == 1) != tt.ran {
				t.Errorf("handler ran %d times, want ran=%v", runs.Load(), tt.ran)
			}
			if tt.ran && got != tt.handlerArg {
				t.Errorf("handler got %s, want %s", got, tt.handlerArg)
			}
			wantHash, _ := canonical.Hash(json.RawMessage(`{"x":1,"s":"d"}`))
			if seen == nil || seen.Tool != "rm" || seen.ArgsHash != wantHash {
				t.Errorf("port saw %+v, want tool rm and hash of the validated args", seen)
			}
			recs := records(t, e, ml)
			if len(recs) != 1 || recs[0].Approval != tt.approval || recs[0].Approver != tt.decision.Approver {
				t.Errorf("ledger %+v, want approval %q by %q", recs, tt.approval, tt.decision.Approver)
			}
		})
	}
}

func TestApprovalPortHonoursDeadline(t *testing.T) {
	var runs atomic.Int64
	port := approval.Func(func(ctx context.Context, _ *approval.Request) (approval.Decision, error) {
		<-ctx.Done() // nobody answers
		return approval.Decision{}, ctx.Err()
	})
	e, _ := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: port}}, destructiveTool("rm", &runs))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := e.Call(ctx, "rm", json.RawMessage(`{"x":1}`))
	if k := kindOf(t, err); k != adapter.KindTimeout || runs.Load() != 0 {
		t.Errorf("kind %q, runs %d; want timeout and no run", k, runs.Load())
	}
}

func TestApprovalPolicies(t *testing.T) {
	f, tr := false, true
	tools := []*adapter.Spec{
		rawTool("read", echo, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &f}}),
		rawTool("unset", echo, &adapter.ToolOptions{}),
		rawTool("closed-safe", echo, &adapter.ToolOptions{Annotations: adapter.Annotations{Destructive: &f, OpenWorld: &f}}),
		rawTool("open", echo, &adapter.ToolOptions{Annotations: adapter.Annotations{Destructive: &f, OpenWorld: &tr}}),
		rawTool("destructive", echo, &adapter.ToolOptions{Annotations: adapter.Annotations{Destructive: &tr, OpenWorld: &f}}),
	}
	names := []string{"read", "unset", "closed-safe", "open", "destructive"}
	tests := []struct {
		name   string
		opts   adapter.ApprovalOptions
		asked  []string
		noPort bool
	}{
		{name: "by annotations (default)", asked: []string{"unset", "open", "destructive"}},
		{name: "never", opts: adapter.ApprovalOptions{Policy: adapter.ApproveNever}},
		{name: "always", opts: adapter.ApprovalOptions{Policy: adapter.ApproveAlways}, asked: names},
		{name: "per tool override", opts: adapter.ApprovalOptions{Policy: adapter.ApproveNever, Tools: map[string]adapter.ApprovalPolicy{"read": adapter.ApproveAlways}}, asked: []string{"read"}},
		{name: "custom function of the call", opts: adapter.ApprovalOptions{Policy: func(_ context.Context, c *adapter.ToolCall) bool {
			return strings.Contains(string(c.Args), `"s":"danger"`)
		}}},
		{name: "no port holds nothing", opts: adapter.ApprovalOptions{Policy: adapter.ApproveAlways}, noPort: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			opts := tt.opts
			if !tt.noPort {
				opts.Port = approval.Func(func(_ context.Context, r *approval.Request) (approval.Decision, error) {
					asked = append(asked, r.Tool)
					return approval.Decision{Verdict: approval.VerdictApproved}, nil
				})
			}
			e, _ := newExec(t, &adapter.ExecutorOptions{Approval: opts}, tools...)
			for _, n := range names {
				if _, err := e.Call(context.Background(), n, json.RawMessage(`{"x":1}`)); err != nil {
					t.Fatalf("%s: %v", n, err)
				}
			}
			if diff := cmp.Diff(tt.asked, asked); diff != "" {
				t.Errorf("tools that needed approval (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequestApprovalOverridesPort(t *testing.T) {
	var runs atomic.Int64
	deny := approval.Func(func(context.Context, *approval.Request) (approval.Decision, error) {
		return approval.Decision{Verdict: approval.VerdictDenied}, nil
	})
	allow := approval.Func(func(context.Context, *approval.Request) (approval.Decision, error) {
		return approval.Decision{Verdict: approval.VerdictApproved}, nil
	})
	e, _ := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: deny}}, destructiveTool("rm", &runs))
	if _, err := e.Do(context.Background(), &adapter.Request{Tool: "rm", Args: json.RawMessage(`{"x":1}`), Approval: allow}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Call(context.Background(), "rm", json.RawMessage(`{"x":1}`)); kindOf(t, err) != adapter.KindApprovalDenied {
		t.Errorf("executor port not used: %v", err)
	}
}

// clock is a settable clock for Deferred.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func deferredExec(t *testing.T) (*adapter.Executor, *approval.Deferred, *clock, *atomic.Int64, *ledger.Memory) {
	t.Helper()
	clk := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	d := &approval.Deferred{TTL: time.Hour, Now: clk.Now}
	var runs atomic.Int64
	e, ml := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d}}, destructiveTool("rm", &runs), destructiveTool("mv", &runs))
	return e, d, clk, &runs, ml
}

// pending calls and expects approval_pending; it returns the ticket.
func pending(t *testing.T, e *adapter.Executor, tool, args string) string {
	t.Helper()
	_, err := e.Call(context.Background(), tool, json.RawMessage(args))
	ae := asAdapterError(t, err)
	if ae.Kind != adapter.KindApprovalPending || ae.Ticket == "" {
		t.Fatalf("got %v, want approval_pending with a ticket", err)
	}
	p, ok := adapter.ModelPayload(err)
	if !ok || !strings.Contains(p, ae.Ticket) {
		t.Errorf("payload %q lacks ticket %s", p, ae.Ticket)
	}
	return ae.Ticket
}

func TestDeferredApproveFromAnotherGoroutine(t *testing.T) {
	e, d, _, runs, ml := deferredExec(t)
	ctx := context.Background()
	tk := pending(t, e, "rm", `{"x":1,"s":"a"}`)
	if runs.Load() != 0 {
		t.Fatal("a pending call ran")
	}
	// Retrying before a decision gets the same ticket.
	if again := pending(t, e, "rm", `{"s":"a","x":1}`); again != tk {
		t.Errorf("retry before a decision got ticket %s, want %s", again, tk)
	}
	var listed []string
	for tkt, err := range d.Pending(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, tkt.ID)
		if tkt.Tool != "rm" || canonString(tkt.Args) != `{"s":"a","x":1}` || tkt.State != approval.TicketPending {
			t.Errorf("ticket %+v", tkt)
		}
	}
	if diff := cmp.Diff([]string{tk}, listed); diff != "" {
		t.Errorf("pending tickets (-want +got):\n%s", diff)
	}
	done := make(chan error)
	go func() { done <- d.Approve(ctx, tk, "carol") }()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Key order and white space do not matter.
	res, err := e.Call(ctx, "rm", json.RawMessage(` {"s" : "a",  "x":1}`))
	if err != nil || runs.Load() != 1 {
		t.Fatalf("approved retry: %v, %v (runs %d)", res, err, runs.Load())
	}
	// One use: the next identical call needs a new approval.
	if again := pending(t, e, "rm", `{"x":1,"s":"a"}`); again == tk {
		t.Error("a consumed ticket was used again")
	}
	if runs.Load() != 1 {
		t.Errorf("runs %d, want 1", runs.Load())
	}
	got, err := d.Ticket(ctx, tk)
	if err != nil || got.State != approval.TicketConsumed || got.Approver != "carol" {
		t.Errorf("ticket after use: %+v, %v", got, err)
	}
	if err := d.Approve(ctx, tk, "carol"); !errors.Is(err, adapter.ErrTicketState) {
		t.Errorf("approving a consumed ticket: %v, want ErrTicketState", err)
	}
	recs := records(t, e, ml)
	var approvals []string
	for _, r := range recs {
		approvals = append(approvals, r.Outcome+"/"+r.Approval+"/"+r.Approver)
	}
	want := []string{"approval_pending/pending/", "approval_pending/pending/", "ok/approved/carol", "approval_pending/pending/"}
	if diff := cmp.Diff(want, approvals); diff != "" {
		t.Errorf("ledger (-want +got):\n%s", diff)
	}
}

func TestDeferredDeny(t *testing.T) {
	e, d, _, runs, _ := deferredExec(t)
	tk := pending(t, e, "rm", `{"x":1}`)
	if err := d.Deny(context.Background(), tk, "too risky", "dave"); err != nil {
		t.Fatal(err)
	}
	_, err := e.Call(context.Background(), "rm", json.RawMessage(`{"x":1}`))
	ae := asAdapterError(t, err)
	if ae.Kind != adapter.KindApprovalDenied || !strings.Contains(ae.Message, "too risky") || runs.Load() != 0 {
		t.Errorf("got %+v (runs %d), want approval_denied with the reason", ae, runs.Load())
	}
	if err := d.Approve(context.Background(), tk, "x"); !errors.Is(err, adapter.ErrTicketState) {
		t.Errorf("approving a used denial: %v", err)
	}
}

func TestDeferredExpiry(t *testing.T) {
	e, d, clk, runs, _ := deferredExec(t)
	ctx := context.Background()
	tk := pending(t, e, "rm", `{"x":1}`)
	clk.Advance(2 * time.Hour) // past the TTL
	if err := d.Approve(ctx, tk, "late"); !errors.Is(err, adapter.ErrTicketExpired) {
		t.Errorf("approving an expired ticket: %v, want ErrTicketExpired", err)
	}
	tk2 := pending(t, e, "rm", `{"x":1}`)
	if tk2 == tk {
		t.Error("an expired ticket was handed out again")
	}
	// Approved in time, used after expiry: no run.
	if err := d.Approve(ctx, tk2, "ok"); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Hour)
	if tk3 := pending(t, e, "rm", `{"x":1}`); tk3 == tk2 || runs.Load() != 0 {
		t.Errorf("expired approval used: ticket %s, runs %d", tk3, runs.Load())
	}
}

func TestDeferredTicketBinding(t *testing.T) {
	e, d, _, runs, _ := deferredExec(t)
	ctx := context.Background()
	tk := pending(t, e, "rm", `{"x":1}`)
	if err := d.Approve(ctx, tk, "erin"); err != nil {
		t.Fatal(err)
	}
	// Different arguments do not match the approved ticket.
	if other := pending(t, e, "rm", `{"x":2}`); other == tk || runs.Load() != 0 {
		t.Errorf("other args matched the ticket (%s, runs %d)", other, runs.Load())
	}
	// Nor does another tool with the same arguments.
	if other := pending(t, e, "mv", `{"x":1}`); other == tk || runs.Load() != 0 {
		t.Errorf("another tool matched the ticket (%s, runs %d)", other, runs.Load())
	}
	// Presenting the ticket with other arguments is refused outright.
	_, err := e.Do(ctx, &adapter.Request{Tool: "rm", Args: json.RawMessage(`{"x":3}`), Ticket: tk})
	if k := kindOf(t, err); k != adapter.KindApprovalDenied || runs.Load() != 0 {
		t.Errorf("mismatched presented ticket: kind %q, runs %d", k, runs.Load())
	}
	_, err = e.Do(ctx, &adapter.Request{Tool: "mv", Args: json.RawMessage(`{"x":1}`), Ticket: tk})
	if k := kindOf(t, err); k != adapter.KindApprovalDenied || runs.Load() != 0 {
		t.Errorf("ticket presented to another tool: kind %q, runs %d", k, runs.Load())
	}
	// The ticket is still good for its own call, presented explicitly.
	if _, err := e.Do(ctx, &adapter.Request{Tool: "rm", Args: json.RawMessage(`{ "x": 1 }`), Ticket: tk}); err != nil || runs.Load() != 1 {
		t.Fatalf("matching presented ticket: %v, runs %d", err, runs.Load())
	}
	// And only once.
	_, err = e.Do(ctx, &adapter.Request{Tool: "rm", Args: json.RawMessage(`{"x":1}`), Ticket: tk})
	if k := kindOf(t, err); k != adapter.KindApprovalPending || runs.Load() != 1 {
		t.Errorf("reused ticket: kind %q, runs %d", k, runs.Load())
	}
}

// TestDeferredOneUseUnderRace approves one ticket and retries the call from
// many goroutines: exactly one runs.
func TestDeferredOneUseUnderRace(t *testing.T) {
	e, d, _, runs, _ := deferredExec(t)
	tk := pending(t, e, "rm", `{"x":1}`)
	if err := d.Approve(context.Background(), tk, "f"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var ok, pend atomic.Int64
	for range 32 {
		wg.Go(func() {
			_, err := e.Call(context.Background(), "rm", json.RawMessage(`{"x":1}`))
			switch adapter.KindOf(err) {
			case "":
				ok.Add(1)
			case adapter.KindApprovalPending:
				pend.Add(1)
			default:
				t.Errorf("unexpected %v", err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 1 || runs.Load() != 1 || pend.Load() != 31 {
		t.Errorf("ok %d runs %d pending %d; want 1, 1, 31", ok.Load(), runs.Load(), pend.Load())
	}
}

func TestDeferredOnPending(t *testing.T) {
	var got []*approval.Ticket
	var runs atomic.Int64
	d := &approval.Deferred{OnPending: func(t *approval.Ticket) { got = append(got, t) }}
	e, _ := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d}}, destructiveTool("rm", &runs))
	ctx, _ := adapter.WithRun(context.Background(), &adapter.RunOptions{ID: "r1"})
	ctx = adapter.WithIdentity(ctx, &caller.Identity{Subject: "sam"})
	_, err := e.Do(ctx, &adapter.Request{Tool: "rm", Args: json.RawMessage(`{"x":1}`), CallID: "c9"})
	tk := asAdapterError(t, err).Ticket
	if len(got) != 1 || got[0].ID != tk || got[0].CallID != "c9" || got[0].RunID != "r1" || got[0].Subject != "sam" || got[0].Expires.Sub(got[0].Created) != approval.DefaultTicketTTL {
		t.Errorf("OnPending saw %+v", got)
	}
}

func TestCanonicalHash(t *testing.T) {
	same := []string{`{"a":1,"b":[1,2,{"c":"d","e":null}]}`, ` { "b" : [ 1 , 2 , { "e" : null , "c" : "d" } ] , "a" : 1 } `}
	h0, err := adapter.CanonicalHash(json.RawMessage(same[0]))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range same[1:] {
		if h, _ := adapter.CanonicalHash(json.RawMessage(s)); h != h0 {
			t.Errorf("hash of %s differs", s)
		}
	}
	for _, s := range []string{`{"a":1.0,"b":[1,2,{"c":"d","e":null}]}`, `{"a":1,"b":[2,1,{"c":"d","e":null}]}`, `{"a":1}`} {
		if h, _ := adapter.CanonicalHash(json.RawMessage(s)); h == h0 {
			t.Errorf("hash of %s is the same", s)
		}
	}
	for _, s := range []string{`{`, `{"a":1} {}`, `nul`} {
		if _, err := adapter.CanonicalHash(json.RawMessage(s)); err == nil {
			t.Errorf("CanonicalHash(%s) did not fail", s)
		}
	}
}
