package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrArgsInvalid is returned by [Deferred.ApproveEdited] for replacement
// arguments that are not valid JSON. Its text is that of the adapter's
// args_invalid error it replaces.
var ErrArgsInvalid = errors.New("args_invalid: edited arguments are not valid JSON")

// A Editor is a [Store] that can approve a ticket with
// arguments the approver edited. Stores that implement it let
// [Deferred.ApproveEdited] work; MemoryStore does.
type Editor interface {
	// ApproveEdited moves a pending ticket to approved, recording approver
	// and the replacement arguments (Ticket.Edited), atomically: it fails
	// with ErrTicketState if the ticket is not pending and with
	// ErrTicketExpired if it expired.
	ApproveEdited(ctx context.Context, id string, args json.RawMessage, approver string, now time.Time) error
}

// ApproveEdited implements [Editor].
func (m *MemoryStore) ApproveEdited(_ context.Context, id string, args json.RawMessage, approver string, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	mt, ok := m.tickets[id]
	if !ok {
		return ErrTicketNotFound
	}
	if mt.State != TicketPending {
		return fmt.Errorf("%w: ticket %s is %s, not %s", ErrTicketState, id, mt.State, TicketPending)
	}
	if mt.expired(now) {
		return ErrTicketExpired
	}
	mt.State, mt.Approver = TicketApproved, approver
	mt.Edited = append(json.RawMessage(nil), args...)
	return nil
}

// ApproveEdited approves a pending ticket with replacement arguments: the
// call resumed with the ticket (or retried with its original arguments)
// runs with args instead. The executor validates args against the tool's
// input schema again before the handler sees them, and records them in the
// ledger as the arguments that ran. The store must implement
// [Editor].
func (d *Deferred) ApproveEdited(ctx context.Context, ticket, approver string, args json.RawMessage) error {
	d.init()
	ed, ok := d.Store.(Editor)
	if !ok {
		return fmt.Errorf("adapter: ticket store %T cannot approve with edited arguments (it does not implement Editor)", d.Store)
	}
	if !json.Valid(args) {
		return ErrArgsInvalid
	}
	return ed.ApproveEdited(ctx, ticket, args, approver, d.now())
}

// CanApproveEdited reports whether the ticket store supports
// [Deferred.ApproveEdited] (implements [Editor]).
func (d *Deferred) CanApproveEdited() bool {
	d.init()
	_, ok := d.Store.(Editor)
	return ok
}
