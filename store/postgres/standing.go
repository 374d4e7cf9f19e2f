package pgstore

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/agentadapter/agentadapter/adapter/approval"
)

// Standing is the table of standing decisions (an
// [approval.StandingStore], for [approval.Standing.Store]), shared by
// every Store open on the database and apart from the ledger: the
// retention sweep never touches it. Migration 008 seeds it from the
// ledger's "standing" records, so decisions taken before it still hold.
type Standing struct {
	s *Store
}

// Standing returns the store's standing decisions.
func (s *Store) Standing() *Standing { return &Standing{s: s} }

// Put implements [approval.StandingStore]. It refuses a verdict other
// than approved or denied.
func (t *Standing) Put(ctx context.Context, r approval.StandingRule) error {
	if r.Verdict != approval.VerdictApproved && r.Verdict != approval.VerdictDenied {
		return fmt.Errorf("pgstore: a standing decision must approve or deny, not %v", r.Verdict)
	}
	if _, err := t.s.pool.Exec(ctx, `INSERT INTO standing (tool, subject, verdict, reason, approver, created, ticket)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (tool, subject) DO UPDATE SET verdict = excluded.verdict, reason = excluded.reason,
			approver = excluded.approver, created = excluded.created, ticket = excluded.ticket`,
		r.Tool, r.Subject, r.Verdict.String(), r.Reason, r.Approver, r.Created.UnixNano(), r.Ticket); err != nil {
		return fmt.Errorf("pgstore: storing a standing decision: %w", err)
	}
	return nil
}

// Delete implements [approval.StandingStore].
func (t *Standing) Delete(ctx context.Context, tool, subject string) (bool, error) {
	tag, err := t.s.pool.Exec(ctx, "DELETE FROM standing WHERE tool = $1 AND subject = $2", tool, subject)
	if err != nil {
		return false, fmt.Errorf("pgstore: deleting a standing decision: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}

// All implements [approval.StandingStore].
func (t *Standing) All(ctx context.Context) iter.Seq2[approval.StandingRule, error] {
	return func(yield func(approval.StandingRule, error) bool) {
		rows, err := t.s.pool.Query(ctx, "SELECT tool, subject, verdict, reason, approver, created, ticket FROM standing ORDER BY tool, subject")
		if err != nil {
			yield(approval.StandingRule{}, fmt.Errorf("pgstore: reading standing decisions: %w", err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			var r approval.StandingRule
			var verdict string
			var created int64
			if err := rows.Scan(&r.Tool, &r.Subject, &verdict, &r.Reason, &r.Approver, &created, &r.Ticket); err != nil {
				yield(approval.StandingRule{}, fmt.Errorf("pgstore: reading standing decisions: %w", err))
				return
			}
			r.Verdict = approval.VerdictDenied
			if verdict == "approved" {
				r.Verdict = approval.VerdictApproved
			}
			r.Created = time.Unix(0, created)
			if !yield(r, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(approval.StandingRule{}, fmt.Errorf("pgstore: reading standing decisions: %w", err))
		}
	}
}
