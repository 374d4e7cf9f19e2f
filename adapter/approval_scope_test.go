package adapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/caller"
	caller0 "github.com/agentadapter/agentadapter/adapter/caller"
)

func as(subject string) context.Context {
	return adapter.WithIdentity(context.Background(), &caller.Identity{Subject: subject})
}

// TestApprovalBoundToSubject is the attack of issue 12 item 1: bob's
// identical call must not consume the approval granted to alice, and bob
// may not present alice's ticket.
func TestApprovalBoundToSubject(t *testing.T) {
	var runs atomic.Int64
	d := &approval.Deferred{}
	e, ml := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d}}, destructiveTool("rm", &runs))
	args := json.RawMessage(`{"x":7,"s":"/srv/data"}`)
	_, err := e.Call(as("alice"), "rm", args)
	tk := asAdapterError(t, err).Ticket
	if err := d.Approve(context.Background(), tk, "root"); err != nil {
		t.Fatal(err)
	}
	// Bob makes the same call: he gets a ticket of his own.
	_, err = e.Call(as("bob"), "rm", args)
	if ae := asAdapterError(t, err); ae.Kind != adapter.KindApprovalPending || ae.Ticket == tk || runs.Load() != 0 {
		t.Fatalf("bob's identical call: %v (runs %d), want a pending ticket of his own", err, runs.Load())
	}
	// Bob presents alice's ticket: denied, saying why, without naming alice.
	_, err = e.Do(as("bob"), &adapter.Request{Tool: "rm", Args: args, Ticket: tk})
	ae := asAdapterError(t, err)
	if ae.Kind != adapter.KindApprovalDenied || !strings.Contains(ae.Message, "another caller") || strings.Contains(ae.Message, "alice") || runs.Load() != 0 {
		t.Fatalf("bob presenting alice's ticket: %v (runs %d), want approval_denied naming why", err, runs.Load())
	}
	// Alice's approval is intact and hers.
	if _, err := e.Call(as("alice"), "rm", args); err != nil || runs.Load() != 1 {
		t.Fatalf("alice's approved call: %v (runs %d)", err, runs.Load())
	}
	recs := records(t, e, ml)
	last := recs[len(recs)-1]
	if last.Subject != "alice" || last.Requester != "alice" || last.Approver != "root" || last.Ticket != tk {
		t.Errorf("ledger record %+v, want subject and requester alice, approver root, ticket %s", last, tk)
	}
}

func TestApprovalScopes(t *testing.T) {
	type caller struct {
		subject, run, session string
	}
	ctxOf := func(c caller) context.Context {
		ctx := as(c.subject)
		if c.run != "" {
			ctx, _ = adapter.WithRun(ctx, &adapter.RunOptions{ID: c.run})
		}
		if c.session != "" {
			ctx = caller0.WithSession(ctx, c.session)
		}
		return ctx
	}
	asker := caller{"alice", "run1", "sess1"}
	tests := []struct {
		scope   approval.Scope
		other   caller // a caller that may use the approval
		foreign caller // a caller that may not
		why     string
	}{
		{"", caller{"alice", "run2", "sess2"}, caller{"bob", "run1", "sess1"}, "another caller"},
		{approval.ScopeSubject, caller{"alice", "run2", "sess2"}, caller{"bob", "run1", "sess1"}, "another caller"},
		{approval.ScopeRun, caller{"bob", "run1", "sess2"}, caller{"alice", "run2", "sess1"}, "another run"},
		{approval.ScopeSession, caller{"bob", "run2", "sess1"}, caller{"alice", "run1", "sess2"}, "another session"},
		{approval.ScopeGlobal, caller{"bob", "run2", "sess2"}, caller{}, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("scope=%q", tt.scope), func(t *testing.T) {
			var runs atomic.Int64
			d := &approval.Deferred{}
			e, ml := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d, Scope: tt.scope}}, destructiveTool("rm", &runs))
			args := json.RawMessage(`{"x":1}`)
			_, err := e.Call(ctxOf(asker), "rm", args)
			tk := asAdapterError(t, err).Ticket
			if err := d.Approve(context.Background(), tk, "root"); err != nil {
				t.Fatal(err)
			}
			if tt.foreign != (caller{}) {
				_, err := e.Do(ctxOf(tt.foreign), &adapter.Request{Tool: "rm", Args: args, Ticket: tk})
				if ae := asAdapterError(t, err); ae.Kind != adapter.KindApprovalDenied || !strings.Contains(ae.Message, tt.why) {
					t.Errorf("foreign caller presenting the ticket: %v, want approval_denied naming %q", err, tt.why)
				}
				if _, err := e.Call(ctxOf(tt.foreign), "rm", args); adapter.KindOf(err) != adapter.KindApprovalPending {
					t.Errorf("foreign caller's identical call: %v, want a ticket of its own", err)
				}
			}
			if _, err := e.Call(ctxOf(tt.other), "rm", args); err != nil || runs.Load() != 1 {
				t.Fatalf("caller in the same scope: %v (runs %d)", err, runs.Load())
			}
			recs := records(t, e, ml)
			last := recs[len(recs)-1]
			if last.Subject != tt.other.subject || last.Requester != "alice" || last.Approver != "root" {
				t.Errorf("record: subject %q requester %q approver %q; want %q, alice, root", last.Subject, last.Requester, last.Approver, tt.other.subject)
			}
		})
	}
}

func TestApprovalScopeInvalidPanics(t *testing.T) {
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "sbuject") {
			t.Errorf("panic %v, want one naming the unknown scope", p)
		}
	}()
	adapter.NewExecutor(nil, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Scope: "sbuject"}})
}

// TestTicketFloodCapped: a caller making distinct gated calls cannot hold
// more than its cap of open tickets; the model is told why, and others are
// unaffected.
func TestTicketFloodCapped(t *testing.T) {
	var runs atomic.Int64
	d := &approval.Deferred{Caps: approval.Caps{PerSubject: 3, Total: 5}}
	e, _ := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d}}, destructiveTool("rm", &runs))
	call := func(who string, i int) error {
		_, err := e.Call(as(who), "rm", json.RawMessage(fmt.Sprintf(`{"x":%d}`, i)))
		return err
	}
	for i := range 3 {
		if err := call("mallory", i); adapter.KindOf(err) != adapter.KindApprovalPending {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	err := call("mallory", 3)
	ae := asAdapterError(t, err)
	if ae.Kind != adapter.KindApprovalDenied || !strings.Contains(ae.Message, "3 calls waiting for approval") || ae.Ticket != "" {
		t.Fatalf("fourth call: %v, want approval_denied naming the cap", err)
	}
	if p, ok := adapter.ModelPayload(err); !ok || !strings.Contains(p, "wait until they are decided") {
		t.Errorf("payload %q", p)
	}
	// The same call again is still the same pending ticket, not a new one.
	if err := call("mallory", 0); adapter.KindOf(err) != adapter.KindApprovalPending {
		t.Errorf("repeat of a pending call: %v", err)
	}
	for i := range 2 {
		if err := call("bob", i); adapter.KindOf(err) != adapter.KindApprovalPending {
			t.Fatalf("bob's call %d: %v", i, err)
		}
	}
	if err := call("carol", 0); !strings.Contains(asAdapterError(t, err).Message, "5 open tickets in all") {
		t.Errorf("over the total cap: %v", err)
	}
	n := 0
	for _, err := range d.Pending(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 5 {
		t.Errorf("%d pending tickets, want 5", n)
	}
}

// TestTicketDefaults pins the defaults the issue asks for: a TTL far below
// a day and caps on by default.
func TestTicketDefaults(t *testing.T) {
	if approval.DefaultTicketTTL > time.Hour {
		t.Errorf("DefaultTicketTTL = %v, want at most an hour", approval.DefaultTicketTTL)
	}
	var runs atomic.Int64
	d := &approval.Deferred{}
	e, _ := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d}}, destructiveTool("rm", &runs))
	var last error
	for i := range approval.DefaultMaxOpenTicketsPerSubject + 1 {
		_, last = e.Call(as("mallory"), "rm", json.RawMessage(fmt.Sprintf(`{"x":%d}`, i)))
	}
	if adapter.KindOf(last) != adapter.KindApprovalDenied {
		t.Errorf("call %d over the default cap: %v, want approval_denied", approval.DefaultMaxOpenTicketsPerSubject+1, last)
	}
}

// TestTicketKeepsBoundedArgs: a ticket keeps large arguments only by size
// and hash, so a flood of 1 MB calls does not pin 1 MB per ticket.
func TestTicketKeepsBoundedArgs(t *testing.T) {
	var runs atomic.Int64
	d := &approval.Deferred{}
	e, _ := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d}}, destructiveTool("rm", &runs))
	big := `{"x":1,"s":"` + strings.Repeat("a", 100<<10) + `"}`
	_, err := e.Call(context.Background(), "rm", json.RawMessage(big))
	tk, err := d.Ticket(context.Background(), asAdapterError(t, err).Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Args != nil || tk.ArgsSize < 100<<10 || tk.ArgsHash == "" {
		t.Errorf("ticket keeps %d bytes of args, size %d, hash %q; want none, the size and the hash", len(tk.Args), tk.ArgsSize, tk.ArgsHash)
	}
}

// TestTicketCapsPerSession: under ScopeSession the caps count per session,
// as tickets are bound: one session of alice filling its cap leaves
// another of her sessions asked as usual, and the refusal is about this
// session's calls only. (Before, the cap counted alice's tickets whatever
// the scope.)
func TestTicketCapsPerSession(t *testing.T) {
	var runs atomic.Int64
	d := &approval.Deferred{Caps: approval.Caps{PerSubject: 2}}
	e, ml := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d, Scope: approval.ScopeSession}}, destructiveTool("rm", &runs))
	call := func(session string, i int) error {
		_, err := e.Call(caller.WithSession(as("alice"), session), "rm", json.RawMessage(fmt.Sprintf(`{"x":%d}`, i)))
		return err
	}
	for i := range 2 {
		if err := call("s1", i); adapter.KindOf(err) != adapter.KindApprovalPending {
			t.Fatalf("s1 call %d: %v", i, err)
		}
	}
	err := call("s1", 2)
	if ae := asAdapterError(t, err); ae.Kind != adapter.KindApprovalDenied || !strings.Contains(ae.Message, "this session already has 2 calls waiting") {
		t.Fatalf("s1 over its cap: %v, want approval_denied about this session", err)
	}
	err = call("s2", 0)
	ae := asAdapterError(t, err)
	if ae.Kind != adapter.KindApprovalPending {
		t.Fatalf("s2's first call with s1 at its cap: %v, want a ticket of its own", err)
	}
	tk, err := d.Ticket(context.Background(), ae.Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Subject != approval.SessionSubject("alice", "s2") || tk.Session != "s2" {
		t.Errorf("ticket subject %q session %q, want %q, s2", tk.Subject, tk.Session, approval.SessionSubject("alice", "s2"))
	}
	// The ledger still names alice as the requester.
	if err := d.Approve(context.Background(), ae.Ticket, "root"); err != nil {
		t.Fatal(err)
	}
	if err := call("s2", 0); err != nil || runs.Load() != 1 {
		t.Fatalf("approved call: %v (runs %d)", err, runs.Load())
	}
	recs := records(t, e, ml)
	if last := recs[len(recs)-1]; last.Subject != "alice" || last.Requester != "alice" {
		t.Errorf("record subject %q requester %q, want alice, alice", last.Subject, last.Requester)
	}
	// Under the default scope the cap stays per subject.
	d2 := &approval.Deferred{Caps: approval.Caps{PerSubject: 1}}
	e2, _ := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d2}}, destructiveTool("rm", &runs))
	if _, err := e2.Call(caller.WithSession(as("alice"), "s1"), "rm", json.RawMessage(`{"x":1}`)); adapter.KindOf(err) != adapter.KindApprovalPending {
		t.Fatal(err)
	}
	_, err = e2.Call(caller.WithSession(as("alice"), "s2"), "rm", json.RawMessage(`{"x":2}`))
	if ae := asAdapterError(t, err); ae.Kind != adapter.KindApprovalDenied || !strings.Contains(ae.Message, "you already have 1 calls waiting") {
		t.Errorf("ScopeSubject, second session over alice's cap: %v", err)
	}
}
