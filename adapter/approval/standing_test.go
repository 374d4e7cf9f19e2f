package approval_test

import (
	"context"
	"errors"
	"iter"
	"testing"

	"github.com/agentadapter/agentadapter/adapter/approval"
)

// flakyStore is a StandingStore whose writes fail while failing is set
// and whose All, when hold is set, reads its rows, then waits for hold
// to be closed before yielding them (a Sync caught mid-read).
type flakyStore struct {
	*approval.MemoryStandingStore
	failing bool
	reading chan struct{}
	hold    chan struct{}
}

var errDown = errors.New("database down")

func (f *flakyStore) Put(ctx context.Context, r approval.StandingRule) error {
	if f.failing {
		return errDown
	}
	return f.MemoryStandingStore.Put(ctx, r)
}

func (f *flakyStore) Delete(ctx context.Context, tool, subject string) (bool, error) {
	if f.failing {
		return false, errDown
	}
	return f.MemoryStandingStore.Delete(ctx, tool, subject)
}

func (f *flakyStore) All(ctx context.Context) iter.Seq2[approval.StandingRule, error] {
	var rows []approval.StandingRule
	for r, err := range f.MemoryStandingStore.All(ctx) {
		if err != nil {
			return func(yield func(approval.StandingRule, error) bool) { yield(approval.StandingRule{}, err) }
		}
		rows = append(rows, r)
	}
	if f.hold != nil {
		close(f.reading)
		<-f.hold
	}
	return func(yield func(approval.StandingRule, error) bool) {
		for _, r := range rows {
			if !yield(r, nil) {
				return
			}
		}
	}
}

var asked = approval.Func(func(context.Context, *approval.Request) (approval.Decision, error) {
	return approval.Decision{Verdict: approval.VerdictDenied, Reason: "asked"}, nil
})

func verdict(t *testing.T, s *approval.Standing) string {
	t.Helper()
	d, err := s.Decide(context.Background(), &approval.Request{Tool: "rm", Subject: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Reason == "asked" {
		return "asked"
	}
	return d.Verdict.String()
}

// TestStandingStoreFailure: a decision the Store could not take or
// revoke is reported as an error, and what is in force is what the Store
// holds (a revoke that failed leaves the approval in force everywhere,
// rather than reporting it gone while other replicas still apply it).
func TestStandingStoreFailure(t *testing.T) {
	ctx := context.Background()
	st := &flakyStore{MemoryStandingStore: approval.NewMemoryStandingStore()}
	s := &approval.Standing{Port: asked, Allowed: func(string) bool { return true }, Store: st}
	rule := approval.StandingRule{Tool: "rm", Subject: "ann", Verdict: approval.VerdictApproved}

	st.failing = true
	if err := s.Put(ctx, rule); !errors.Is(err, errDown) {
		t.Fatalf("Put with the store down = %v; want %v", err, errDown)
	}
	if got := verdict(t, s); got != "asked" {
		t.Fatalf("after a failed Put: %s; want asked (nothing taken)", got)
	}
	st.failing = false
	if err := s.Put(ctx, rule); err != nil {
		t.Fatal(err)
	}
	st.failing = true
	if ok, err := s.Delete(ctx, "rm", "ann"); !errors.Is(err, errDown) || ok {
		t.Fatalf("Delete with the store down = %v, %v; want false, %v", ok, err, errDown)
	}
	if got := verdict(t, s); got != "approved" {
		t.Fatalf("after a failed Delete: %s; want approved (still in force, as in the store)", got)
	}
	if s.Revoke("rm", "ann") {
		t.Fatal("deprecated Revoke with the store down = true; want false")
	}
	st.failing = false
	if ok, err := s.Delete(ctx, "rm", "ann"); err != nil || !ok {
		t.Fatalf("Delete = %v, %v; want true", ok, err)
	}
	if got := verdict(t, s); got != "asked" {
		t.Fatalf("after Delete: %s; want asked", got)
	}
}

// TestStandingSyncRace: a Sync that read the Store before a Delete
// landed does not bring the revoked decision back.
func TestStandingSyncRace(t *testing.T) {
	ctx := context.Background()
	st := &flakyStore{MemoryStandingStore: approval.NewMemoryStandingStore()}
	s := &approval.Standing{Port: asked, Allowed: func(string) bool { return true }, Store: st}
	if err := s.Put(ctx, approval.StandingRule{Tool: "rm", Subject: "ann", Verdict: approval.VerdictApproved}); err != nil {
		t.Fatal(err)
	}
	st.reading, st.hold = make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() { done <- s.Sync(ctx) }()
	<-st.reading // Sync holds the rows with the approval in them
	if ok, err := s.Delete(ctx, "rm", "ann"); err != nil || !ok {
		t.Fatalf("Delete = %v, %v", ok, err)
	}
	close(st.hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := verdict(t, s); got != "asked" {
		t.Fatalf("after a Sync that overlapped the Delete: %s; want asked (the revoke stands)", got)
	}
	st.hold = nil
	if err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := verdict(t, s); got != "asked" {
		t.Fatalf("after the next Sync: %s; want asked", got)
	}
}
