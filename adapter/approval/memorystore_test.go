package approval_test

import (
	"context"
	"testing"

	"github.com/agentadapter/agentadapter/adapter/adaptertest"
	"github.com/agentadapter/agentadapter/adapter/approval"
)

func TestMemoryTicketStore(t *testing.T) {
	adaptertest.TestTicketStore(t, func(t *testing.T) approval.Store { return approval.NewMemoryStore() })
}

func TestMemoryTicketReplicas(t *testing.T) {
	adaptertest.TestTicketReplicas(t, func(t *testing.T) adaptertest.Opener[approval.Store] {
		s := approval.NewMemoryStore()
		return func() approval.Store { return s }
	})
}

func TestMemoryTicketEditor(t *testing.T) {
	adaptertest.TestTicketEditor(t, func(t *testing.T) adaptertest.Opener[approval.Store] {
		s := approval.NewMemoryStore()
		return func() approval.Store { return s }
	})
}

// A Deferred decides through the Decider interface: approving a held
// ticket lets the same call run.
func TestDeferredIsDecider(t *testing.T) {
	ctx := context.Background()
	d := &approval.Deferred{}
	var dec approval.Decider = d
	req := &approval.Request{Tool: "t", ArgsHash: "h"}
	got, err := d.Decide(ctx, req)
	if err != nil || got.Verdict != approval.VerdictPending || got.Ticket == "" {
		t.Fatalf("Decide = %+v, %v; want a pending ticket", got, err)
	}
	if err := dec.Approve(ctx, got.Ticket, "alice"); err != nil {
		t.Fatal(err)
	}
	again, err := d.Decide(ctx, &approval.Request{Tool: "t", ArgsHash: "h", Ticket: got.Ticket})
	if err != nil || again.Verdict != approval.VerdictApproved || again.Approver != "alice" {
		t.Errorf("after Approve: %+v, %v; want approved by alice", again, err)
	}
}

func TestMemoryStandingStore(t *testing.T) {
	adaptertest.TestStandingStore(t, func(t *testing.T) adaptertest.Opener[approval.StandingStore] {
		s := approval.NewMemoryStandingStore()
		return func() approval.StandingStore { return s }
	})
}
