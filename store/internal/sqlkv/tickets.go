package sqlkv

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/agentadapter/agentadapter/adapter/approval"
)

// TicketColumns are the tickets table's columns read into an
// [approval.Ticket], in the order its INSERT and SELECT use.
const TicketColumns = "id, tool, args_hash, args, args_size, scope, scope_id, call_id, run_id, session, subject, state, reason, approver, created, expires, edited"

// Get implements [approval.Store].
func (s Tickets) Get(ctx context.Context, id string) (*approval.Ticket, error) {
	return s.one(s.t.db.QueryRow(ctx, s.t.q.ticketsGet, id))
}

// Find implements [approval.Store].
func (s Tickets) Find(ctx context.Context, k approval.TicketKey, now time.Time) (*approval.Ticket, error) {
	return s.one(s.t.db.QueryRow(ctx, s.t.q.ticketsFind, k.Tool, k.ArgsHash, string(k.Scope), k.ScopeID, now.UnixNano()))
}

func (s Tickets) one(row Row) (*approval.Ticket, error) {
	t, err := scanTicket(row)
	if errors.Is(err, s.t.d.NoRows) {
		return nil, approval.ErrTicketNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.t.d.Name, err)
	}
	return t, nil
}

// List implements [approval.Store].
func (s Tickets) List(ctx context.Context, state approval.TicketState) iter.Seq2[*approval.Ticket, error] {
	if state != 0 {
		return all(ctx, s.t, "", s.t.q.ticketsInState, scanTicket, int32(state))
	}
	return all(ctx, s.t, "", s.t.q.ticketsAll, scanTicket)
}

// Unchanged says why a conditional UPDATE of the ticket id, from state
// from, changed no row: it is missing, in another state, or expired.
func (s Tickets) Unchanged(ctx context.Context, id string, from approval.TicketState) error {
	t, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	if t.State != from {
		return fmt.Errorf("%w: ticket %s is %s, not %s", approval.ErrTicketState, id, t.State, from)
	}
	return approval.ErrTicketExpired
}

func scanTicket(sc Row) (*approval.Ticket, error) {
	var t approval.Ticket
	var created, expires, size int64
	var args, edited []byte
	var scope string
	var state int32
	if err := sc.Scan(&t.ID, &t.Tool, &t.ArgsHash, &args, &size, &scope, &t.ScopeID, &t.CallID, &t.RunID, &t.Session,
		&t.Subject, &state, &t.Reason, &t.Approver, &created, &expires, &edited); err != nil {
		return nil, err
	}
	if args != nil {
		t.Args = args
	}
	if edited != nil {
		t.Edited = edited
	}
	t.ArgsSize = int(size)
	t.Scope = approval.Scope(scope)
	t.State = approval.TicketState(state)
	t.Created = fromNanos(created)
	t.Expires = fromNanos(expires)
	return &t, nil
}

// Nanos is t in Unix nanoseconds, the zero time 0.
func Nanos(t time.Time) int64 {
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
