package sqlkv

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/agentadapter/agentadapter/adapter/approval"
)

// Put implements [approval.StandingStore]. It refuses a verdict other
// than approved or denied.
func (s Standing) Put(ctx context.Context, r approval.StandingRule) error {
	if r.Verdict != approval.VerdictApproved && r.Verdict != approval.VerdictDenied {
		return fmt.Errorf("%s: a standing decision must approve or deny, not %v", s.t.d.Name, r.Verdict)
	}
	if _, err := s.t.db.Exec(ctx, s.t.q.standingPut,
		r.Tool, r.Subject, r.Verdict.String(), r.Reason, r.Approver, r.Created.UnixNano(), r.Ticket); err != nil {
		return fmt.Errorf("%s: storing a standing decision: %w", s.t.d.Name, err)
	}
	return nil
}

// Delete implements [approval.StandingStore].
func (s Standing) Delete(ctx context.Context, tool, subject string) (bool, error) {
	n, err := s.t.db.Exec(ctx, s.t.q.standingDelete, tool, subject)
	if err != nil {
		return false, fmt.Errorf("%s: deleting a standing decision: %w", s.t.d.Name, err)
	}
	return n > 0, nil
}

// All implements [approval.StandingStore].
func (s Standing) All(ctx context.Context) iter.Seq2[approval.StandingRule, error] {
	return all(ctx, s.t, "reading standing decisions", s.t.q.standingAll, scanStanding)
}

func scanStanding(rows Row) (approval.StandingRule, error) {
	var r approval.StandingRule
	var verdict string
	var created int64
	if err := rows.Scan(&r.Tool, &r.Subject, &verdict, &r.Reason, &r.Approver, &created, &r.Ticket); err != nil {
		return approval.StandingRule{}, err
	}
	r.Verdict = approval.VerdictDenied
	if verdict == "approved" {
		r.Verdict = approval.VerdictApproved
	}
	r.Created = time.Unix(0, created)
	return r, nil
}

// all yields the rows of query with args, read by scan, then the first
// error if any, after the store's name and what ("reading pins"; empty:
// nothing); it stops at the first error.
func all[T any](ctx context.Context, t *Tables, what, query string, scan func(Row) (T, error), args ...any) iter.Seq2[T, error] {
	prefix := t.d.Name + ": "
	if what != "" {
		prefix += what + ": "
	}
	return func(yield func(T, error) bool) {
		var zero T
		rows, err := t.db.Query(ctx, query, args...)
		if err != nil {
			yield(zero, fmt.Errorf("%s%w", prefix, err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			v, err := scan(rows)
			if err != nil {
				yield(zero, fmt.Errorf("%s%w", prefix, err))
				return
			}
			if !yield(v, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(zero, fmt.Errorf("%s%w", prefix, err))
		}
	}
}
