package pgstore

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/store/internal/sqlkv"
	"github.com/agentadapter/agentadapter/store/internal/ticketwait"
)

// Tickets is an [approval.Store] in the database, shared by every
// replica: a ticket created through one may be decided through another
// and is consumed exactly once (each transition is one conditional
// UPDATE); caps are checked (against counts a trigger keeps) and the ticket
// inserted holding the lock of the total's row, so they hold across
// replicas. Each transition is announced with
// NOTIFY, which wakes [Tickets.Wait] on every replica.
type Tickets struct {
	s *Store
	t sqlkv.Tickets
}

// Create implements [approval.Store].
func (s *Tickets) Create(ctx context.Context, t *approval.Ticket, caps approval.Caps) error {
	if err := retryDeadlock(func() error { return s.create(ctx, t, caps) }); err != nil {
		var ce *approval.CapError
		if errors.As(err, &ce) {
			return err
		}
		return fmt.Errorf("pgstore: creating ticket %.64q: %w", t.ID, err)
	}
	return nil
}

func (s *Tickets) create(ctx context.Context, t *approval.Ticket, caps approval.Caps) error {
	tx, err := s.s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	at := t.Created.UnixNano()
	// Expired tickets go as new ones come, as in approval.MemoryStore
	// (the trigger counts them out). Their rows are locked before the
	// total's, as every change to a ticket locks them, and in id order:
	// Creates on several connections delete the same expired tickets, and
	// a DELETE locks rows in the order of its plan, which may differ.
	var expired []string
	rows, err := tx.Query(ctx, "SELECT id FROM tickets WHERE expires > 0 AND expires < $1 ORDER BY id FOR UPDATE", at)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		expired = append(expired, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(expired) > 0 {
		if _, err := tx.Exec(ctx, "DELETE FROM tickets WHERE id = ANY($1)", expired); err != nil {
			return err
		}
	}
	if caps.PerSubject > 0 || caps.Total > 0 {
		// The lock of the total's row makes capped Creates take turns on
		// every replica: whoever changes the counts holds it.
		var total int64
		if err := tx.QueryRow(ctx, "SELECT n FROM ticket_open_total WHERE id = 1 FOR UPDATE").Scan(&total); err != nil {
			return err
		}
		if caps.PerSubject > 0 {
			var n int64
			err := tx.QueryRow(ctx, "SELECT n FROM ticket_open WHERE subject = $1", t.Subject).Scan(&n)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			if n >= int64(caps.PerSubject) {
				return &approval.CapError{PerSubject: true, Cap: caps.PerSubject}
			}
		}
		if caps.Total > 0 && total >= int64(caps.Total) {
			return &approval.CapError{Cap: caps.Total}
		}
	}
	var args, edited []byte
	if t.Args != nil {
		args = t.Args
	}
	if t.Edited != nil {
		edited = t.Edited
	}
	if _, err := tx.Exec(ctx, "INSERT INTO tickets ("+sqlkv.TicketColumns+", updated) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
		t.ID, t.Tool, t.ArgsHash, args, int64(t.ArgsSize), string(t.Scope), t.ScopeID, t.CallID, t.RunID, t.Session, t.Subject,
		int32(t.State), t.Reason, t.Approver, sqlkv.Nanos(t.Created), sqlkv.Nanos(t.Expires), edited, s.s.now().UnixNano()); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Get implements [approval.Store].
func (s *Tickets) Get(ctx context.Context, id string) (*approval.Ticket, error) {
	return s.t.Get(ctx, id)
}

// Find implements [approval.Store].
func (s *Tickets) Find(ctx context.Context, k approval.TicketKey, now time.Time) (*approval.Ticket, error) {
	return s.t.Find(ctx, k, now)
}

// Transition implements [approval.Store] with one conditional UPDATE,
// atomic across every replica, that also notifies them.
func (s *Tickets) Transition(ctx context.Context, id string, from, to approval.TicketState, reason, approver string, now time.Time) error {
	return s.update(ctx, id, from, now, `state = $4,
		reason = CASE WHEN $5 <> '' THEN $5 ELSE reason END,
		approver = CASE WHEN $6 <> '' THEN $6 ELSE approver END`, int32(to), reason, approver)
}

// update sets the columns of set (whose parameters are args, from $4) on
// the ticket id if it is in state from and unexpired at now, and
// notifies every replica; else it says why not.
func (s *Tickets) update(ctx context.Context, id string, from approval.TicketState, now time.Time, set string, args ...any) error {
	n := 0
	err := retryDeadlock(func() error {
		rows, err := s.s.pool.Query(ctx, `WITH u AS (
		UPDATE tickets SET `+set+`, updated = $1
		WHERE id = $2 AND state = $3 AND (expires = 0 OR expires >= $`+strconv.Itoa(len(args)+4)+`) RETURNING id)
		SELECT pg_notify('`+notifyChannel+`', id) FROM u`,
			append(append([]any{s.s.now().UnixNano(), id, int32(from)}, args...), now.UnixNano())...)
		if err != nil {
			return err
		}
		n = 0
		for rows.Next() {
			n++
		}
		rows.Close()
		return rows.Err()
	})
	if err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	if n == 1 {
		return nil
	}
	return s.t.Unchanged(ctx, id, from)
}

// List implements [approval.Store].
func (s *Tickets) List(ctx context.Context, state approval.TicketState) iter.Seq2[*approval.Ticket, error] {
	return s.t.List(ctx, state)
}

// Wait blocks until the ticket is no longer pending (or ctx ends) and
// returns it. A decision made through any replica wakes it at once
// (LISTEN/NOTIFY); it also re-reads the ticket every Options.PollInterval.
func (s *Tickets) Wait(ctx context.Context, id string) (*approval.Ticket, error) {
	return ticketwait.Wait(ctx, s.s.wake, s.s.opts.PollInterval, func(ctx context.Context) (*approval.Ticket, error) { return s.Get(ctx, id) })
}

// retryDeadlock runs f again (twice at most) when PostgreSQL chose its
// transaction as a deadlock's victim: the locks of a ticket change are
// taken in one order, so this is a safety net, not the rule.
func retryDeadlock(f func() error) error {
	var err error
	for range 3 {
		var pe *pgconn.PgError
		if err = f(); !errors.As(err, &pe) || pe.Code != "40P01" {
			return err
		}
	}
	return err
}
