package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

func TestDeferredApproveEdited(t *testing.T) {
	var got []string
	var mu sync.Mutex
	spec := rawTool("rm", func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		mu.Lock()
		got = append(got, canonString(args))
		mu.Unlock()
		return adapter.TextResult("done"), nil
	}, &adapter.ToolOptions{})
	d := &approval.Deferred{}
	e, ml := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d}}, spec)
	ctx := context.Background()

	tests := []struct {
		name, edit string
		kind       adapter.Kind
		ran        string
	}{
		{name: "valid edit runs", edit: `{"x":7}`, ran: `{"s":"d","x":7}`},
		{name: "edit failing the schema never runs", edit: `{"x":"seven"}`, kind: adapter.KindArgsInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = nil
			tk := pending(t, e, "rm", `{"x":1}`)
			if err := d.ApproveEdited(ctx, tk, "erin", json.RawMessage(tt.edit)); err != nil {
				t.Fatal(err)
			}
			// The agent resumes with its original arguments and the ticket.
			_, err := e.Do(ctx, &adapter.Request{Tool: "rm", Args: json.RawMessage(`{"x":1}`), Ticket: tk})
			if k := kindOf(t, err); k != tt.kind {
				t.Fatalf("kind %q, want %q (%v)", k, tt.kind, err)
			}
			if tt.ran == "" && len(got) != 0 || tt.ran != "" && (len(got) != 1 || got[0] != tt.ran) {
				t.Errorf("handler got %q, want %q", got, tt.ran)
			}
		})
	}
	// The ledger records the edited arguments as the ones that ran.
	recs := records(t, e, ml)
	var ok *ledger.Record
	for i := range recs {
		if recs[i].Outcome == ledger.OutcomeOK {
			ok = &recs[i]
		}
	}
	if ok == nil || canonString(ok.Args) != `{"s":"d","x":7}` || ok.Approver != "erin" {
		t.Errorf("ledger record of the run: %+v", ok)
	}
}

func TestDeferredApproveEditedRefusals(t *testing.T) {
	var runs atomic.Int64
	d := &approval.Deferred{}
	e, _ := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d}}, destructiveTool("rm", &runs))
	ctx := context.Background()
	tk := pending(t, e, "rm", `{"x":1}`)
	if err := d.ApproveEdited(ctx, tk, "a", json.RawMessage(`{"x":`)); !errors.Is(err, approval.ErrArgsInvalid) {
		t.Errorf("malformed edit: %v, want args_invalid", err)
	}
	if err := d.ApproveEdited(ctx, "tkt_nope", "a", json.RawMessage(`{}`)); !errors.Is(err, adapter.ErrTicketNotFound) {
		t.Errorf("unknown ticket: %v", err)
	}
	// Two approvers at once: exactly one wins.
	var wins atomic.Int64
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if i%2 == 0 {
				err = d.ApproveEdited(ctx, tk, "a", json.RawMessage(`{"x":2}`))
			} else {
				err = d.Deny(ctx, tk, "no", "b")
			}
			if err == nil {
				wins.Add(1)
			} else if !errors.Is(err, adapter.ErrTicketState) {
				t.Errorf("loser: %v, want ErrTicketState", err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Errorf("%d decisions won, want 1", wins.Load())
	}
	// A store without TicketEditor says so.
	d2 := &approval.Deferred{Store: plainStore{approval.NewMemoryStore()}}
	if d2.CanApproveEdited() || !d.CanApproveEdited() {
		t.Error("CanApproveEdited does not tell the stores apart")
	}
	if err := d2.ApproveEdited(ctx, "t", "a", json.RawMessage(`{}`)); err == nil {
		t.Error("ApproveEdited on a store without TicketEditor succeeded")
	}
}

// plainStore hides MemoryTicketStore's ApproveEdited.
type plainStore struct{ approval.Store }
