package approval_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter/approval"
)

// TestZeroStores: the zero MemoryStore and MemoryStandingStore are empty
// stores, ready to use (they panicked on a nil map).
func TestZeroStores(t *testing.T) {
	ctx := context.Background()
	var tickets approval.MemoryStore
	now := time.Now()
	tk := &approval.Ticket{ID: "t1", Tool: "rm", Subject: "ann", State: approval.TicketPending, Created: now, Expires: now.Add(time.Minute)}
	if err := tickets.Create(ctx, tk, approval.Caps{PerSubject: 1}); err != nil {
		t.Fatal(err)
	}
	if got, err := tickets.Get(ctx, "t1"); err != nil || got.Tool != "rm" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	var standing approval.MemoryStandingStore
	if err := standing.Put(ctx, approval.StandingRule{Tool: "rm", Verdict: approval.VerdictApproved}); err != nil {
		t.Fatal(err)
	}
	if ok, err := standing.Delete(ctx, "rm", ""); err != nil || !ok {
		t.Fatalf("Delete = %v, %v", ok, err)
	}
}
