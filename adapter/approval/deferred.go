package approval

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"time"
)

// Defaults of [Deferred].
const (
	// DefaultTicketTTL is how long a ticket stays valid when Deferred.TTL
	// is zero: long enough for a person to answer, short enough that a
	// forgotten approval does not linger.
	DefaultTicketTTL = 15 * time.Minute
	// DefaultMaxOpenTicketsPerSubject and DefaultMaxOpenTickets are the
	// caps when Deferred.Caps leaves them zero.
	DefaultMaxOpenTicketsPerSubject = 100
	DefaultMaxOpenTickets           = 10_000
	// MaxTicketArgBytes bounds the arguments a ticket keeps for the
	// approver to read.
	MaxTicketArgBytes = 16 << 10
)

// Deferred is an [Port] that never blocks: a call that needs approval
// gets a ticket and is pending ([VerdictPending]: the executor fails it
// with its approval_pending kind); someone approves or
// denies the ticket later, from any goroutine ([Deferred.Approve],
// [Deferred.Deny]); the call is then retried with the same arguments (key
// order and white space do not matter) from the same scope (see
// [Scope]; by default the same caller) and runs, once. A retry with
// other arguments does not match the ticket and gets a new one; a call
// from another scope presenting the ticket is denied.
//
// Open tickets are capped per subject (per session under ScopeSession) and
// overall ([Deferred.Caps]); a call
// that would exceed a cap is denied with a message telling the model to wait
// for the pending ones.
type Deferred struct {
	// Store keeps the tickets; nil means a new MemoryStore.
	Store Store
	// TTL bounds a ticket's life; zero means DefaultTicketTTL.
	TTL time.Duration
	// Caps bound the open tickets; a zero field means its default
	// (DefaultMaxOpenTicketsPerSubject, DefaultMaxOpenTickets), a negative
	// one no bound.
	Caps Caps
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OnPending, if set, is told of each new ticket (to notify an approver).
	OnPending func(*Ticket)

	once sync.Once
}

func (d *Deferred) init() {
	d.once.Do(func() {
		if d.Store == nil {
			d.Store = NewMemoryStore()
		}
	})
}

func (d *Deferred) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

func (d *Deferred) caps() Caps {
	c := d.Caps
	switch {
	case c.PerSubject == 0:
		c.PerSubject = DefaultMaxOpenTicketsPerSubject
	case c.PerSubject < 0:
		c.PerSubject = 0
	}
	switch {
	case c.Total == 0:
		c.Total = DefaultMaxOpenTickets
	case c.Total < 0:
		c.Total = 0
	}
	return c
}

// Decide implements [Port]. A call presenting a ticket (Request.Ticket)
// must match that ticket's tool, arguments and scope, or it is denied;
// otherwise the newest ticket with the same key is used.
func (d *Deferred) Decide(ctx context.Context, req *Request) (Decision, error) {
	d.init()
	now := d.now()
	key := TicketKey{Tool: req.Tool, ArgsHash: req.ArgsHash, Scope: req.Scope.orDefault(), ScopeID: req.ScopeID}
	var t *Ticket
	var err error
	if req.Ticket != "" {
		t, err = d.Store.Get(ctx, req.Ticket)
		if err != nil && !errors.Is(err, ErrTicketNotFound) {
			return Decision{}, err
		}
		if t != nil {
			if why := mismatch(t, key); why != "" {
				return Decision{Verdict: VerdictDenied, Ticket: t.ID, Reason: fmt.Sprintf("ticket %s %s; call without it to ask for approval", t.ID, why)}, nil
			}
			if t.State == TicketConsumed || t.expired(now) {
				t = nil // used up or expired: ask again
			}
		}
	}
	if t == nil {
		t, err = d.Store.Find(ctx, key, now)
		if err != nil && !errors.Is(err, ErrTicketNotFound) {
			return Decision{}, err
		}
	}
	if t != nil {
		switch t.State {
		case TicketApproved:
			if err := d.Store.Transition(ctx, t.ID, TicketApproved, TicketConsumed, "", "", now); err != nil {
				if errors.Is(err, ErrTicketState) || errors.Is(err, ErrTicketExpired) {
					// Another call consumed it first: this one must be approved anew.
					return d.newTicket(ctx, req, key, now)
				}
				return Decision{}, err
			}
			return Decision{Verdict: VerdictApproved, Approver: t.Approver, Ticket: t.ID, Requester: t.Requester(), Args: t.Edited}, nil
		case TicketDenied:
			if err := d.Store.Transition(ctx, t.ID, TicketDenied, TicketConsumed, "", "", now); err != nil && !errors.Is(err, ErrTicketState) && !errors.Is(err, ErrTicketExpired) {
				return Decision{}, err
			}
			return Decision{Verdict: VerdictDenied, Reason: t.Reason, Approver: t.Approver, Ticket: t.ID, Requester: t.Requester()}, nil
		case TicketPending:
			return Decision{Verdict: VerdictPending, Ticket: t.ID, Requester: t.Requester()}, nil
		}
	}
	return d.newTicket(ctx, req, key, now)
}

// mismatch says why a ticket may not serve a call with key k, or "".
// It names what differs, never the other scope's id.
func mismatch(t *Ticket, k TicketKey) string {
	switch {
	case t.Tool != k.Tool:
		return "was issued for another tool"
	case t.ArgsHash != k.ArgsHash:
		return "was issued for other arguments"
	case t.Scope.orDefault() != k.Scope:
		return fmt.Sprintf("was issued under approval scope %q, not %q", t.Scope.orDefault(), k.Scope)
	case t.ScopeID != k.ScopeID:
		switch k.Scope {
		case ScopeSubject:
			return "was issued to another caller"
		case ScopeRun:
			return "was issued in another run"
		case ScopeSession:
			return "was issued in another session"
		}
		return "was issued in another scope"
	}
	return ""
}

func (d *Deferred) newTicket(ctx context.Context, req *Request, key TicketKey, now time.Time) (Decision, error) {
	ttl := d.TTL
	if ttl <= 0 {
		ttl = DefaultTicketTTL
	}
	t := &Ticket{
		ID: newID("tkt_"), Tool: key.Tool, ArgsHash: key.ArgsHash, Scope: key.Scope, ScopeID: key.ScopeID,
		ArgsSize: len(req.Args), CallID: req.CallID, RunID: req.RunID, Session: req.Session,
		State: TicketPending, Created: now, Expires: now.Add(ttl),
	}
	if len(req.Args) <= MaxTicketArgBytes {
		t.Args = req.Args
	}
	requester := req.Subject
	t.Subject = requester
	perSession := key.Scope == ScopeSession && req.Session != "" && !req.Anonymous
	if perSession {
		// The caps count what the ticket is bound to: this session.
		t.Subject = SessionSubject(requester, req.Session)
	}
	if err := d.Store.Create(ctx, t, d.caps()); err != nil {
		var ce *CapError
		if errors.As(err, &ce) {
			// The message is about this caller's own calls only: each
			// caller (and under ScopeSession each session) has its cap.
			reason := fmt.Sprintf("too many calls are waiting for approval (%d open tickets in all); wait until they are decided, then retry", ce.Cap)
			switch {
			case ce.PerSubject && perSession:
				reason = fmt.Sprintf("this session already has %d calls waiting for approval; wait until they are decided, then retry", ce.Cap)
			case ce.PerSubject:
				reason = fmt.Sprintf("you already have %d calls waiting for approval; wait until they are decided, then retry", ce.Cap)
			}
			return Decision{Verdict: VerdictDenied, Reason: reason, Requester: requester}, nil
		}
		return Decision{}, err
	}
	if d.OnPending != nil {
		d.OnPending(t)
	}
	return Decision{Verdict: VerdictPending, Ticket: t.ID, Requester: requester}, nil
}

// sessionSep joins a subject and a session in [SessionSubject].
const sessionSep = "/session:"

// SessionSubject is the [Ticket.Subject] of a ticket asked for under
// ScopeSession: the subject qualified by the session, so that the caps
// count per session. Stores need not know of it: they count by
// Ticket.Subject as always.
func SessionSubject(subject, session string) string {
	return subject + sessionSep + session
}

// Requester returns who asked for t: the caller's subject, as
// [Request.Subject] names it. Under ScopeSession that is [Ticket.Subject]
// less the session that qualifies it; under every other scope the two are
// the same. A standing decision taken on t is for its Requester.
func (t *Ticket) Requester() string {
	if t.Scope == ScopeSession && t.Session != "" {
		if s, ok := strings.CutSuffix(t.Subject, sessionSep+t.Session); ok {
			return s
		}
	}
	return t.Subject
}

// Approve approves a pending ticket; the next call of the same tool with the
// same arguments from the ticket's scope runs.
func (d *Deferred) Approve(ctx context.Context, ticket, approver string) error {
	d.init()
	return d.Store.Transition(ctx, ticket, TicketPending, TicketApproved, "", approver, d.now())
}

// Deny denies a pending ticket; the next matching call fails with
// [VerdictDenied] (the executor's approval_denied kind) and the reason.
func (d *Deferred) Deny(ctx context.Context, ticket, reason, approver string) error {
	d.init()
	return d.Store.Transition(ctx, ticket, TicketPending, TicketDenied, reason, approver, d.now())
}

// Ticket returns a ticket by id.
func (d *Deferred) Ticket(ctx context.Context, id string) (*Ticket, error) {
	d.init()
	return d.Store.Get(ctx, id)
}

// Pending lists the tickets awaiting a decision, oldest first.
func (d *Deferred) Pending(ctx context.Context) iter.Seq2[*Ticket, error] {
	d.init()
	return d.Store.List(ctx, TicketPending)
}

func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
