package adaptertest

import (
	"context"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter/approval"
)

// TestStandingStore checks an [approval.StandingStore] through two
// [approval.Standing] replicas on one database: a decision one Puts the
// other sees after Sync, with every field intact; Put replaces the
// decision for the same tool and subject; All is ordered by tool, then
// subject; a Delete on one is gone from the other after Sync, and Delete
// reports whether there was a decision.
func TestStandingStore(t *testing.T, newDB func(t *testing.T) Opener[approval.StandingStore]) {
	ctx := context.Background()
	open := newDB(t)
	allow := func(string) bool { return true }
	deny := approval.Func(func(context.Context, *approval.Request) (approval.Decision, error) {
		return approval.Decision{Verdict: approval.VerdictDenied, Reason: "asked"}, nil
	})
	a := &approval.Standing{Port: deny, Allowed: allow, Store: open()}
	b := &approval.Standing{Port: deny, Allowed: allow, Store: open()}
	created := time.Date(2026, 12, 2, 7, 0, 0, 123456789, time.UTC)
	want := approval.StandingRule{Tool: "rm", Subject: "ann", Verdict: approval.VerdictDenied, Reason: "never",
		Approver: "op", Created: created, Ticket: "tkt-1"}
	if err := a.Put(ctx, want); err != nil {
		t.Fatal(err)
	}
	for _, r := range []approval.StandingRule{
		{Tool: "rm", Subject: "", Verdict: approval.VerdictApproved, Created: created},
		{Tool: "cp", Subject: "bob", Verdict: approval.VerdictApproved, Created: created},
		{Tool: "rm", Subject: "zed", Verdict: approval.VerdictApproved, Created: created},
	} {
		if err := a.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got := b.Rules()
	var keys []string
	for _, r := range got {
		keys = append(keys, r.Tool+"/"+r.Subject)
	}
	if len(keys) != 4 || keys[0] != "cp/bob" || keys[1] != "rm/" || keys[2] != "rm/ann" || keys[3] != "rm/zed" {
		t.Fatalf("replica's rules after Sync: %v; want cp/bob rm/ rm/ann rm/zed", keys)
	}
	if g := got[2]; g.Verdict != want.Verdict || g.Reason != want.Reason || g.Approver != want.Approver ||
		!g.Created.Equal(want.Created) || g.Ticket != want.Ticket {
		t.Errorf("replica's rule = %+v; want %+v", g, want)
	}
	var order []string
	for r, err := range open().All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, r.Tool+"/"+r.Subject)
	}
	if len(order) != 4 || order[0] != "cp/bob" || order[3] != "rm/zed" {
		t.Errorf("All = %v; want ordered by tool, then subject", order)
	}
	d, err := b.Decide(ctx, &approval.Request{Tool: "rm", Subject: "ann"})
	if err != nil || d.Verdict != approval.VerdictDenied || d.Reason != "never" {
		t.Errorf("replica's Decide for rm/ann = %+v, %v; want the standing denial", d, err)
	}

	// b replaces the decision; a sees the new one.
	if err := b.Put(ctx, approval.StandingRule{Tool: "rm", Subject: "ann", Verdict: approval.VerdictApproved, Approver: "op2"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if d, err := a.Decide(ctx, &approval.Request{Tool: "rm", Subject: "ann"}); err != nil || d.Verdict != approval.VerdictApproved || d.Approver != "op2" {
		t.Errorf("after b replaced it, a's Decide = %+v, %v; want op2's approval", d, err)
	}

	// a revokes; b loses it at Sync.
	if ok, err := a.Delete(ctx, "rm", "ann"); err != nil || !ok {
		t.Errorf("Delete of a stored decision = %v, %v; want true", ok, err)
	}
	if err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if d, err := b.Decide(ctx, &approval.Request{Tool: "rm", Subject: "ann"}); err != nil || d.Reason != "asked" {
		t.Errorf("after a revoked it, b's Decide = %+v, %v; want Port's denial", d, err)
	}
	if len(b.Rules()) != 3 {
		t.Errorf("b has %d rules after the revoke, want 3", len(b.Rules()))
	}
	s := open()
	if ok, err := s.Delete(ctx, "rm", "ann"); err != nil || ok {
		t.Errorf("Delete of a revoked decision = %v, %v; want false", ok, err)
	}
	if ok, err := s.Delete(ctx, "cp", "bob"); err != nil || !ok {
		t.Errorf("Delete of a stored decision = %v, %v; want true", ok, err)
	}
}
