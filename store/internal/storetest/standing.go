package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter/adaptertest"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/store/internal/migrations"
)

// TestStanding checks Store.Standing: the adaptertest conformance of a
// StandingStore, with replicas on one database seeing each other's
// decisions through Sync; a decision survives a ledger retention sweep
// that drops the ledger record it was taken with; and a database whose
// ledger holds "standing" records from before the table (migration 8)
// starts with the latest of them per tool and subject, a revocation
// leaving none. ms, exec and version are as for TestMigrateTicketCounts.
func TestStanding(t *testing.T, k *Kit, ms []migrations.Migration, exec func(db, stmt string) error, version func(v int) string) {
	ctx := context.Background()
	allow := func(string) bool { return true }
	asked := approval.Func(func(context.Context, *approval.Request) (approval.Decision, error) {
		return approval.Decision{Verdict: approval.VerdictApproved, Reason: "asked"}, nil
	})
	decide := func(t *testing.T, s *approval.Standing, tool, subject string) approval.Decision {
		t.Helper()
		d, err := s.Decide(ctx, &approval.Request{Tool: tool, Subject: subject})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}

	t.Run("Conformance", func(t *testing.T) {
		adaptertest.TestStandingStore(t, opener(k, Options{}, func(s *Store) approval.StandingStore { return s.Standing }))
	})

	t.Run("Retention", func(t *testing.T) {
		now := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
		db := k.NewDB(t)
		clock := func() time.Time { return now }
		s := k.open(t, db, Options{Retention: time.Hour, Now: clock})
		a := &approval.Standing{Port: asked, Allowed: allow, Store: s.Standing}
		old := now.Add(-48 * time.Hour)
		if err := a.Set(approval.StandingRule{Tool: "rm", Subject: "ann", Verdict: approval.VerdictDenied, Reason: "never", Approver: "op", Created: old}); err != nil {
			t.Fatal(err)
		}
		// The console's audit record of the decision, older than the retention.
		if err := s.Ledger.Write(ctx, &ledger.Record{Time: old, Tool: "rm", Subject: "ann", Outcome: "standing", Approval: "denied", Approver: "op", Message: "never"}); err != nil {
			t.Fatal(err)
		}
		write(t, s.Ledger, 3, func(int) time.Time { return now.Add(-time.Minute) })
		if err := s.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		for r, err := range s.Ledger.Query(ctx, ledger.Query{Outcome: "standing"}) {
			if err != nil {
				t.Fatal(err)
			}
			t.Fatalf("the sweep kept the old standing record %d; the test needs it gone", r.Seq)
		}
		// A replica started after the sweep.
		b := &approval.Standing{Port: asked, Allowed: allow, Store: k.open(t, db, Options{Retention: time.Hour, Now: clock}).Standing}
		if err := b.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if d := decide(t, b, "rm", "ann"); d.Verdict != approval.VerdictDenied || d.Reason != "never" {
			t.Errorf("after the sweep, a new replica's Decide for rm/ann = %+v; want the standing denial", d)
		}
	})

	t.Run("Backfill", func(t *testing.T) {
		db := k.NewDB(t)
		for _, m := range ms[:7] {
			if err := exec(db, m.SQL); err != nil {
				t.Fatalf("%s: %v", m.Name, err)
			}
		}
		if err := exec(db, version(7)); err != nil {
			t.Fatal(err)
		}
		base := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
		for i, r := range []struct{ tool, subject, approval, message, ticket string }{
			{"rm", "ann", "approved", "first", "t1"},
			{"rm", "ann", "denied", "changed my mind", "t2"}, // the latest for rm/ann
			{"cp", "bob", "denied", "no", "t3"},
			{"cp", "bob", "revoked", "", ""}, // cp/bob: none
			{"mv", "", "approved", "anyone", "t4"},
			{"ls", "ann", "revoked", "", ""},
			{"ls", "ann", "approved", "again", "t5"}, // after a revocation
		} {
			// Only the columns the migration reads carry meaning; the
			// store is not open, so the chain is not checked here.
			stmt := fmt.Sprintf(`INSERT INTO ledger (seq, time, call_id, run_id, tool, source, integration, subject, args, outcome, message,
				approval, approver, ticket, cache_hit, duration_ns, result_bytes, args_hash, result_hash, prev, hash)
				VALUES (%d, %d, '', '', '%s', 'console', 'console', '%s', NULL, 'standing', '%s', '%s', 'op%d', '%s', FALSE, 0, 0, '', '', '', 'h%d')`,
				i+1, base.Add(time.Duration(i)*time.Minute).UnixNano(), r.tool, r.subject, strings.ReplaceAll(r.message, "'", "''"), r.approval, i, r.ticket, i)
			if err := exec(db, stmt); err != nil {
				t.Fatal(err)
			}
		}
		// A call record with an approval is not a standing decision.
		if err := exec(db, fmt.Sprintf(`INSERT INTO ledger (seq, time, call_id, run_id, tool, source, integration, subject, args, outcome, message,
			approval, approver, ticket, cache_hit, duration_ns, result_bytes, args_hash, result_hash, prev, hash)
			VALUES (8, %d, 'c', 'r', 'cat', 'local', 'x', 'ann', NULL, 'ok', '', 'approved', 'op', 't6', FALSE, 0, 0, '', '', '', 'h8')`,
			base.Add(time.Hour).UnixNano())); err != nil {
			t.Fatal(err)
		}
		var got []string
		for r, err := range k.open(t, db, Options{}).Standing.All(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%s/%s %v %q %s %s %s", r.Tool, r.Subject, r.Verdict, r.Reason, r.Approver, r.Ticket,
				r.Created.UTC().Format("15:04")))
		}
		want := []string{
			`ls/ann approved "again" op6 t5 09:06`,
			`mv/ approved "anyone" op4 t4 09:04`,
			`rm/ann denied "changed my mind" op1 t2 09:01`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("standing decisions after migration 8:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}
