package sqlitestore

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
)

// An approver's edited arguments survive the store (and a second process
// on the same file) and are what the resumed call runs with; of concurrent
// decisions through two stores exactly one wins.
func TestApproveEdited(t *testing.T) {
	open := newDB(t, nil)
	a, b := open(), open()
	ctx := context.Background()
	var ran []string
	spec := adapter.MustRawTool("rm", "removes", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"path": {Type: "string"}}},
		func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
			ran = append(ran, string(args))
			return adapter.TextResult("ok"), nil
		}, &adapter.ToolOptions{})
	da := &adapter.Deferred{Store: a.Tickets()}
	e := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: da}})
	defer e.Close()
	_, err := e.Do(ctx, &adapter.Request{Spec: spec, Tool: "rm", Args: json.RawMessage(`{"path":"/etc"}`)})
	var ae *adapter.Error
	if !errors.As(err, &ae) || ae.Kind != adapter.KindApprovalPending {
		t.Fatalf("first call: %v", err)
	}
	db := &adapter.Deferred{Store: b.Tickets()}
	if !db.CanApproveEdited() {
		t.Fatal("the SQLite ticket store is not a TicketEditor")
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		errs[0] = db.ApproveEdited(ctx, ae.Ticket, "alice", json.RawMessage(`{"path":"/tmp/x"}`))
	}()
	go func() { defer wg.Done(); errs[1] = da.Deny(ctx, ae.Ticket, "no", "bob") }()
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("decisions: %v, %v; want exactly one to win", errs[0], errs[1])
	}
	loser := errs[0]
	if loser == nil {
		loser = errs[1]
	}
	if !errors.Is(loser, adapter.ErrTicketState) {
		t.Errorf("the losing decision: %v, want ErrTicketState", loser)
	}
	_, err = e.Do(ctx, &adapter.Request{Spec: spec, Tool: "rm", Args: json.RawMessage(`{"path":"/etc"}`), Ticket: ae.Ticket})
	if errs[0] == nil {
		if err != nil || len(ran) != 1 || ran[0] != `{"path":"/tmp/x"}` {
			t.Errorf("resumed call: %v, ran %q; want the edited arguments", err, ran)
		}
	} else if adapter.KindOf(err) != adapter.KindApprovalDenied || len(ran) != 0 {
		t.Errorf("resumed call after the denial won: %v, ran %q", err, ran)
	}

	// Without a race: the edit is kept and runs.
	ran = nil
	_, err = e.Do(ctx, &adapter.Request{Spec: spec, Tool: "rm", Args: json.RawMessage(`{"path":"/var"}`)})
	if !errors.As(err, &ae) || ae.Kind != adapter.KindApprovalPending {
		t.Fatalf("second call: %v", err)
	}
	if err := db.ApproveEdited(ctx, ae.Ticket, "alice", json.RawMessage(`{"path":"/tmp/y"}`)); err != nil {
		t.Fatal(err)
	}
	if got, err := da.Ticket(ctx, ae.Ticket); err != nil || string(got.Edited) != `{"path":"/tmp/y"}` || got.Approver != "alice" {
		t.Fatalf("ticket read back: %+v, %v", got, err)
	}
	if _, err := e.Do(ctx, &adapter.Request{Spec: spec, Tool: "rm", Args: json.RawMessage(`{"path":"/var"}`), Ticket: ae.Ticket}); err != nil || len(ran) != 1 || ran[0] != `{"path":"/tmp/y"}` {
		t.Errorf("resumed call: %v, ran %q", err, ran)
	}
}
