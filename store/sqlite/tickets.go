package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/store/internal/ticketwait"
)

// Tickets is an [approval.Store] in the database, shared by every
// Store open on it: a ticket created through one may be decided through
// another and is consumed exactly once (each transition is one
// conditional UPDATE); caps are checked (against counts triggers keep)
// and the ticket inserted in one write transaction, so they hold across
// processes.
type Tickets struct {
	s *Store
}

const ticketColumns = "id, tool, args_hash, args, args_size, scope, scope_id, call_id, run_id, session, subject, state, reason, approver, created, expires, edited"

func scanTicket(sc interface{ Scan(...any) error }) (*approval.Ticket, error) {
	var t approval.Ticket
	var created, expires int64
	var args, edited []byte
	if err := sc.Scan(&t.ID, &t.Tool, &t.ArgsHash, &args, &t.ArgsSize, &t.Scope, &t.ScopeID, &t.CallID, &t.RunID, &t.Session,
		&t.Subject, &t.State, &t.Reason, &t.Approver, &created, &expires, &edited); err != nil {
		return nil, err
	}
	if args != nil {
		t.Args = args
	}
	if edited != nil {
		t.Edited = edited
	}
	t.Created = fromNanos(created)
	t.Expires = fromNanos(expires)
	return &t, nil
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// Create implements [approval.Store].
func (s *Tickets) Create(ctx context.Context, t *approval.Ticket, caps approval.Caps) error {
	if err := s.create(ctx, t, caps); err != nil {
		var ce *approval.CapError
		if errors.As(err, &ce) {
			return err
		}
		return fmt.Errorf("sqlitestore: creating ticket %.64q: %w", t.ID, err)
	}
	s.s.wake.Notify()
	return nil
}

func (s *Tickets) create(ctx context.Context, t *approval.Ticket, caps approval.Caps) error {
	tx, err := s.s.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the counts and the insert are one step
	if err != nil {
		return err
	}
	defer tx.Rollback()
	at := t.Created.UnixNano()
	// Expired tickets go as new ones come, as in approval.MemoryStore
	// (the triggers of ticket_open count them out).
	if _, err := tx.ExecContext(ctx, "DELETE FROM tickets WHERE expires > 0 AND expires < ?", at); err != nil {
		return err
	}
	if caps.PerSubject > 0 {
		var n int
		err := tx.QueryRowContext(ctx, "SELECT n FROM ticket_open WHERE subject = ?", t.Subject).Scan(&n)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if n >= caps.PerSubject {
			return &approval.CapError{PerSubject: true, Cap: caps.PerSubject}
		}
	}
	if caps.Total > 0 {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT n FROM ticket_open_total").Scan(&n); err != nil {
			return err
		}
		if n >= caps.Total {
			return &approval.CapError{Cap: caps.Total}
		}
	}
	var args, edited any
	if t.Args != nil {
		args = []byte(t.Args)
	}
	if t.Edited != nil {
		edited = []byte(t.Edited)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO tickets ("+ticketColumns+", updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		t.ID, t.Tool, t.ArgsHash, args, t.ArgsSize, string(t.Scope), t.ScopeID, t.CallID, t.RunID, t.Session, t.Subject,
		int(t.State), t.Reason, t.Approver, nanos(t.Created), nanos(t.Expires), edited, s.s.now().UnixNano()); err != nil {
		return err
	}
	return tx.Commit()
}

// Get implements [approval.Store].
func (s *Tickets) Get(ctx context.Context, id string) (*approval.Ticket, error) {
	t, err := scanTicket(s.s.db.QueryRowContext(ctx, "SELECT "+ticketColumns+" FROM tickets WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, approval.ErrTicketNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: %w", err)
	}
	return t, nil
}

// Find implements [approval.Store].
func (s *Tickets) Find(ctx context.Context, k approval.TicketKey, now time.Time) (*approval.Ticket, error) {
	t, err := scanTicket(s.s.db.QueryRowContext(ctx, "SELECT "+ticketColumns+` FROM tickets
		WHERE tool = ? AND args_hash = ? AND scope = ? AND scope_id = ? AND state <> 4 AND (expires = 0 OR expires >= ?)
		ORDER BY n DESC LIMIT 1`, k.Tool, k.ArgsHash, string(k.Scope), k.ScopeID, now.UnixNano()))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, approval.ErrTicketNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: %w", err)
	}
	return t, nil
}

// Transition implements [approval.Store] with one conditional UPDATE,
// atomic across every process using the database.
func (s *Tickets) Transition(ctx context.Context, id string, from, to approval.TicketState, reason, approver string, now time.Time) error {
	res, err := s.s.db.ExecContext(ctx, `UPDATE tickets SET state = ?,
		reason = CASE WHEN ? <> '' THEN ? ELSE reason END,
		approver = CASE WHEN ? <> '' THEN ? ELSE approver END, updated = ?
		WHERE id = ? AND state = ? AND (expires = 0 OR expires >= ?)`,
		int(to), reason, reason, approver, approver, s.s.now().UnixNano(), id, int(from), now.UnixNano())
	if err != nil {
		return fmt.Errorf("sqlitestore: %w", err)
	}
	return s.updated(ctx, res, id, from)
}

// updated ends a conditional UPDATE of the ticket id from state from:
// it wakes the waiters if a row changed, else it says why none did.
func (s *Tickets) updated(ctx context.Context, res sql.Result, id string, from approval.TicketState) error {
	if n, _ := res.RowsAffected(); n == 1 {
		s.s.wake.Notify()
		return nil
	}
	t, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	if t.State != from {
		return fmt.Errorf("%w: ticket %s is %s, not %s", approval.ErrTicketState, id, t.State, from)
	}
	return approval.ErrTicketExpired
}

// List implements [approval.Store].
func (s *Tickets) List(ctx context.Context, state approval.TicketState) iter.Seq2[*approval.Ticket, error] {
	return func(yield func(*approval.Ticket, error) bool) {
		q := "SELECT " + ticketColumns + " FROM tickets ORDER BY n"
		args := []any{}
		if state != 0 {
			q = "SELECT " + ticketColumns + " FROM tickets WHERE state = ? ORDER BY n"
			args = append(args, int(state))
		}
		rows, err := s.s.db.QueryContext(ctx, q, args...)
		if err != nil {
			yield(nil, fmt.Errorf("sqlitestore: %w", err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			t, err := scanTicket(rows)
			if err != nil {
				yield(nil, fmt.Errorf("sqlitestore: %w", err))
				return
			}
			if !yield(t, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(nil, fmt.Errorf("sqlitestore: %w", err))
		}
	}
}

// Wait blocks until the ticket is no longer pending (or ctx ends) and
// returns it. A decision made through any Store of this process on the
// same file wakes it at once; one made by another process is seen within
// Options.PollInterval.
func (s *Tickets) Wait(ctx context.Context, id string) (*approval.Ticket, error) {
	return ticketwait.Wait(ctx, s.s.wake.Waker, s.s.opts.PollInterval, func(ctx context.Context) (*approval.Ticket, error) { return s.Get(ctx, id) })
}
