package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/store/internal/sqlkv"
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
	t sqlkv.Tickets
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
	if _, err := tx.ExecContext(ctx, "INSERT INTO tickets ("+sqlkv.TicketColumns+", updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		t.ID, t.Tool, t.ArgsHash, args, t.ArgsSize, string(t.Scope), t.ScopeID, t.CallID, t.RunID, t.Session, t.Subject,
		int(t.State), t.Reason, t.Approver, sqlkv.Nanos(t.Created), sqlkv.Nanos(t.Expires), edited, s.s.now().UnixNano()); err != nil {
		return err
	}
	return tx.Commit()
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
	return s.t.Unchanged(ctx, id, from)
}

// List implements [approval.Store].
func (s *Tickets) List(ctx context.Context, state approval.TicketState) iter.Seq2[*approval.Ticket, error] {
	return s.t.List(ctx, state)
}

// Wait blocks until the ticket is no longer pending (or ctx ends) and
// returns it. A decision made through any Store of this process on the
// same file wakes it at once; one made by another process is seen within
// Options.PollInterval.
func (s *Tickets) Wait(ctx context.Context, id string) (*approval.Ticket, error) {
	return ticketwait.Wait(ctx, s.s.wake.Waker, s.s.opts.PollInterval, func(ctx context.Context) (*approval.Ticket, error) { return s.Get(ctx, id) })
}
