package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/agentadapter/agentadapter/internal/canonical"
)

// An ApprovalPolicy decides whether a call needs approval.
type ApprovalPolicy func(ctx context.Context, c *ToolCall) bool

// Built-in approval policies.
var (
	// ApproveNever: no call needs approval.
	ApproveNever ApprovalPolicy = func(context.Context, *ToolCall) bool { return false }
	// ApproveAlways: every call needs approval.
	ApproveAlways ApprovalPolicy = func(context.Context, *ToolCall) bool { return true }
	// ApproveByAnnotations: destructive or open-world tools need approval
	// (an unset hint counts as true, as in MCP).
	ApproveByAnnotations ApprovalPolicy = func(_ context.Context, c *ToolCall) bool {
		a := c.Spec.Annotations
		return a.IsDestructive() || a.IsOpenWorld()
	}
)

// ApprovalOptions configure approval in an [Executor].
type ApprovalOptions struct {
	// Port asks for approval. Nil means no call is ever held for approval,
	// whatever the policies say.
	Port ApprovalPort
	// Policy decides which calls need approval; nil means ApproveByAnnotations.
	Policy ApprovalPolicy
	// Tools overrides Policy per tool name.
	Tools map[string]ApprovalPolicy
}

// An ApprovalPort decides on a call that needs approval. It either answers
// now (a blocking port: a person or program approves or denies) or defers,
// returning a pending decision with a ticket to approve later ([Deferred]).
type ApprovalPort interface {
	Decide(ctx context.Context, req *ApprovalRequest) (Decision, error)
}

// ApprovalRequest is what a port decides on.
type ApprovalRequest struct {
	Call *ToolCall
	// ArgsHash is the canonical hash of Call.Args (see [CanonicalHash]).
	ArgsHash string
}

// Verdict is an approval port's answer.
type Verdict int

const (
	// VerdictApproved: the call may run.
	VerdictApproved Verdict = iota + 1
	// VerdictDenied: the call is refused ([KindApprovalDenied]).
	VerdictDenied
	// VerdictPending: the call waits for a ticket to be decided
	// ([KindApprovalPending]).
	VerdictPending
)

// String returns "approved", "denied" or "pending".
func (o Verdict) String() string {
	switch o {
	case VerdictApproved:
		return "approved"
	case VerdictDenied:
		return "denied"
	case VerdictPending:
		return "pending"
	}
	return fmt.Sprintf("Verdict(%d)", int(o))
}

// Decision is an approval port's answer.
type Decision struct {
	// Verdict is the answer.
	Verdict Verdict
	// Reason explains a denial; it is shown to the model.
	Reason string
	// Approver names who decided.
	Approver string
	// Args, if set with VerdictApproved, replaces the call's arguments (they are
	// validated again).
	Args json.RawMessage
	// Ticket is the ticket id of a VerdictPending decision.
	Ticket string
}

// ApprovalFunc is a blocking [ApprovalPort] made from a function.
type ApprovalFunc func(ctx context.Context, req *ApprovalRequest) (Decision, error)

// Decide calls f.
func (f ApprovalFunc) Decide(ctx context.Context, req *ApprovalRequest) (Decision, error) {
	return f(ctx, req)
}

// CanonicalHash returns the hex SHA-256 of [CanonicalJSON] of args: it
// ignores key order and white space, so {"a":1,"b":2} and { "b":2, "a":1 }
// hash the same. Numbers keep their text, so 10 and 10.0 differ.
func CanonicalHash(args json.RawMessage) (string, error) {
	return canonical.Hash(args)
}

// CanonicalJSON re-encodes a JSON value with sorted keys and no white space.
// Empty input is the empty object. Input that is already canonical (as
// validated arguments with defaults applied are) is returned as is.
func CanonicalJSON(args json.RawMessage) ([]byte, error) {
	return canonical.JSON(args)
}

// TicketState is the state of an approval ticket.
type TicketState int

const (
	TicketPending TicketState = iota + 1
	TicketApproved
	TicketDenied
	TicketConsumed
)

func (s TicketState) String() string {
	switch s {
	case TicketPending:
		return "pending"
	case TicketApproved:
		return "approved"
	case TicketDenied:
		return "denied"
	case TicketConsumed:
		return "consumed"
	}
	return fmt.Sprintf("TicketState(%d)", int(s))
}

// Ticket is a deferred approval, bound to one tool and the canonical hash of
// one set of arguments. It is one-use and expires.
type Ticket struct {
	ID       string
	Tool     string
	ArgsHash string
	// Args are the arguments as first presented, for the approver to read.
	Args     json.RawMessage
	CallID   string
	RunID    string
	Subject  string
	State    TicketState
	Reason   string
	Approver string
	Created  time.Time
	Expires  time.Time
}

// Ticket store errors.
var (
	ErrTicketNotFound = errors.New("adapter: approval ticket not found")
	ErrTicketExpired  = errors.New("adapter: approval ticket expired")
	ErrTicketState    = errors.New("adapter: approval ticket is not in the required state")
)

// A TicketStore keeps approval tickets. Implementations must be safe for
// concurrent use; state changes must be atomic (compare-and-set), so that
// an approved ticket is consumed exactly once. The adaptertest package
// checks an implementation.
type TicketStore interface {
	// Create stores a new ticket.
	Create(ctx context.Context, t *Ticket) error
	// Get returns a copy of the ticket, or ErrTicketNotFound.
	Get(ctx context.Context, id string) (*Ticket, error)
	// Find returns a copy of the newest unexpired ticket for tool and
	// argsHash that is pending, approved or denied, or ErrTicketNotFound.
	Find(ctx context.Context, tool, argsHash string, now time.Time) (*Ticket, error)
	// Transition moves a ticket from state from to state to, recording
	// reason and approver; it fails with ErrTicketState if the ticket is not
	// in state from, and with ErrTicketExpired if it expired.
	Transition(ctx context.Context, id string, from, to TicketState, reason, approver string, now time.Time) error
	// List yields copies of the tickets in a state (0: all), oldest first.
	List(ctx context.Context, state TicketState) iter.Seq2[*Ticket, error]
}

// MemoryTicketStore is an in-memory [TicketStore]. Expired and consumed
// tickets are dropped as new ones are created.
type MemoryTicketStore struct {
	mu      sync.Mutex
	tickets map[string]*Ticket
	order   []string
}

// NewMemoryTicketStore returns an empty store.
func NewMemoryTicketStore() *MemoryTicketStore {
	return &MemoryTicketStore{tickets: map[string]*Ticket{}}
}

func (m *MemoryTicketStore) Create(_ context.Context, t *Ticket) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tickets[t.ID]; ok {
		return fmt.Errorf("adapter: ticket %q exists", t.ID)
	}
	m.sweep(t.Created)
	c := *t
	m.tickets[t.ID] = &c
	m.order = append(m.order, t.ID)
	return nil
}

// sweep drops consumed and long-expired tickets. m.mu is held.
func (m *MemoryTicketStore) sweep(now time.Time) {
	if len(m.order) < 64 {
		return
	}
	kept := m.order[:0]
	for _, id := range m.order {
		t := m.tickets[id]
		if t.State == TicketConsumed || (!t.Expires.IsZero() && now.Sub(t.Expires) > time.Hour) {
			delete(m.tickets, id)
			continue
		}
		kept = append(kept, id)
	}
	m.order = kept
}

func (m *MemoryTicketStore) Get(_ context.Context, id string) (*Ticket, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tickets[id]
	if !ok {
		return nil, ErrTicketNotFound
	}
	c := *t
	return &c, nil
}

func (m *MemoryTicketStore) Find(_ context.Context, tool, argsHash string, now time.Time) (*Ticket, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range slices.Backward(m.order) {
		t := m.tickets[id]
		if t.Tool != tool || t.ArgsHash != argsHash || t.State == TicketConsumed {
			continue
		}
		if !t.Expires.IsZero() && now.After(t.Expires) {
			continue
		}
		c := *t
		return &c, nil
	}
	return nil, ErrTicketNotFound
}

func (m *MemoryTicketStore) Transition(_ context.Context, id string, from, to TicketState, reason, approver string, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tickets[id]
	if !ok {
		return ErrTicketNotFound
	}
	if t.State != from {
		return fmt.Errorf("%w: ticket %s is %s, not %s", ErrTicketState, id, t.State, from)
	}
	if !t.Expires.IsZero() && now.After(t.Expires) {
		return ErrTicketExpired
	}
	t.State = to
	if reason != "" {
		t.Reason = reason
	}
	if approver != "" {
		t.Approver = approver
	}
	return nil
}

func (m *MemoryTicketStore) List(_ context.Context, state TicketState) iter.Seq2[*Ticket, error] {
	m.mu.Lock()
	var out []*Ticket
	for _, id := range m.order {
		if t := m.tickets[id]; state == 0 || t.State == state {
			c := *t
			out = append(out, &c)
		}
	}
	m.mu.Unlock()
	return func(yield func(*Ticket, error) bool) {
		for _, t := range out {
			if !yield(t, nil) {
				return
			}
		}
	}
}

// DefaultTicketTTL is how long a ticket stays valid when Deferred.TTL is zero.
const DefaultTicketTTL = 24 * time.Hour

// Deferred is an [ApprovalPort] that never blocks: a call that needs approval
// gets a ticket and fails with [KindApprovalPending]; someone approves or
// denies the ticket later, from any goroutine ([Deferred.Approve],
// [Deferred.Deny]); the call is then retried with the same arguments (key
// order and white space do not matter) and runs, once. A retry with other
// arguments does not match the ticket and gets a new one.
type Deferred struct {
	// Store keeps the tickets; nil means a new MemoryTicketStore.
	Store TicketStore
	// TTL bounds a ticket's life; zero means DefaultTicketTTL.
	TTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OnPending, if set, is told of each new ticket (to notify an approver).
	OnPending func(*Ticket)

	once sync.Once
}

func (d *Deferred) init() {
	d.once.Do(func() {
		if d.Store == nil {
			d.Store = NewMemoryTicketStore()
		}
	})
}

func (d *Deferred) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// Decide implements [ApprovalPort]. A call presenting a ticket (Call.Ticket)
// must match that ticket's tool and arguments; otherwise the newest matching
// ticket for the same tool and arguments is used.
func (d *Deferred) Decide(ctx context.Context, req *ApprovalRequest) (Decision, error) {
	d.init()
	c := req.Call
	now := d.now()
	var t *Ticket
	var err error
	if c.Ticket != "" {
		t, err = d.Store.Get(ctx, c.Ticket)
		if err != nil && !errors.Is(err, ErrTicketNotFound) {
			return Decision{}, err
		}
		if t != nil && (t.Tool != c.Spec.Name || t.ArgsHash != req.ArgsHash) {
			return Decision{Verdict: VerdictDenied, Reason: fmt.Sprintf("ticket %s was issued for other arguments or another tool", c.Ticket)}, nil
		}
		if t != nil && (t.State == TicketConsumed || (!t.Expires.IsZero() && now.After(t.Expires))) {
			t = nil // used up or expired: ask again
		}
	} else {
		t, err = d.Store.Find(ctx, c.Spec.Name, req.ArgsHash, now)
		if err != nil && !errors.Is(err, ErrTicketNotFound) {
			return Decision{}, err
		}
	}
	if t != nil {
		switch t.State {
		case TicketApproved:
			if err := d.Store.Transition(ctx, t.ID, TicketApproved, TicketConsumed, "", "", now); err != nil {
				if errors.Is(err, ErrTicketState) {
					// Another call consumed it first: this one must be approved anew.
					return d.newTicket(ctx, req, now)
				}
				return Decision{}, err
			}
			return Decision{Verdict: VerdictApproved, Approver: t.Approver, Ticket: t.ID}, nil
		case TicketDenied:
			if err := d.Store.Transition(ctx, t.ID, TicketDenied, TicketConsumed, "", "", now); err != nil && !errors.Is(err, ErrTicketState) {
				return Decision{}, err
			}
			return Decision{Verdict: VerdictDenied, Reason: t.Reason, Approver: t.Approver, Ticket: t.ID}, nil
		case TicketPending:
			return Decision{Verdict: VerdictPending, Ticket: t.ID}, nil
		}
	}
	return d.newTicket(ctx, req, now)
}

func (d *Deferred) newTicket(ctx context.Context, req *ApprovalRequest, now time.Time) (Decision, error) {
	ttl := d.TTL
	if ttl <= 0 {
		ttl = DefaultTicketTTL
	}
	c := req.Call
	t := &Ticket{
		ID: newID("tkt_"), Tool: c.Spec.Name, ArgsHash: req.ArgsHash, Args: c.Args,
		CallID: c.ID, RunID: c.RunID, State: TicketPending, Created: now, Expires: now.Add(ttl),
	}
	if c.Identity != nil {
		t.Subject = c.Identity.Subject
	}
	if err := d.Store.Create(ctx, t); err != nil {
		return Decision{}, err
	}
	if d.OnPending != nil {
		d.OnPending(t)
	}
	return Decision{Verdict: VerdictPending, Ticket: t.ID}, nil
}

// Approve approves a pending ticket; the next call of the same tool with the
// same arguments runs.
func (d *Deferred) Approve(ctx context.Context, ticket, approver string) error {
	d.init()
	return d.Store.Transition(ctx, ticket, TicketPending, TicketApproved, "", approver, d.now())
}

// Deny denies a pending ticket; the next matching call fails with
// [KindApprovalDenied] and the reason.
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
