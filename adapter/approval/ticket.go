package approval

import (
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"
	"time"
)

// TicketState is the state of an approval ticket.
type TicketState int

const (
	// TicketPending: awaiting a decision.
	TicketPending TicketState = iota + 1
	// TicketApproved: approved, not yet used by a call.
	TicketApproved
	// TicketDenied: denied, the denial not yet told to a call.
	TicketDenied
	// TicketConsumed: used up by the call it was decided for.
	TicketConsumed
)

// String returns "pending", "approved", "denied" or "consumed".
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

// open reports whether a ticket in state s still counts against the caps:
// it has not been used up.
func (s TicketState) open() bool { return s != TicketConsumed }

// Ticket is a deferred approval, bound to one tool, the canonical hash of
// one set of arguments and one scope (see [Scope]). It is one-use
// and expires.
type Ticket struct {
	// ID is the ticket's id, unguessable: it is shown to the model.
	ID   string
	Tool string
	// ArgsHash is the canonical hash of the arguments (see [Request.ArgsHash]).
	ArgsHash string
	// Args are the arguments as first presented, for the approver to read;
	// nil when they were larger than MaxTicketArgBytes (ArgsSize tells how
	// large: the approver then decides on the hash).
	Args json.RawMessage
	// ArgsSize is the size of the canonical arguments in bytes.
	ArgsSize int
	// Scope and ScopeID bind the ticket: only a call of the same tool and
	// arguments in the same scope may use it (see [Request]).
	Scope   Scope
	ScopeID string
	// CallID, RunID, Session and Subject describe the call that asked: who
	// asked, from which run and session. Subject is also what the caps
	// count by ([Caps.PerSubject]): under ScopeSession it is the
	// caller's subject qualified by the session ("alice/session:ID", see
	// [SessionSubject]), so that each session has a cap of its own.
	CallID  string
	RunID   string
	Session string
	Subject string
	State   TicketState
	// Reason explains a denial.
	Reason string
	// Approver names who decided.
	Approver string
	// Edited, if set, are the arguments the approver substituted (see
	// [Deferred.ApproveEdited]); the resumed call runs with them.
	Edited  json.RawMessage
	Created time.Time
	// Expires is when the ticket stops being usable; zero means never.
	Expires time.Time
}

// Key returns the key a store finds the ticket by.
func (t *Ticket) Key() TicketKey {
	return TicketKey{Tool: t.Tool, ArgsHash: t.ArgsHash, Scope: t.Scope, ScopeID: t.ScopeID}
}

// expired reports whether t is past its expiry at now.
func (t *Ticket) expired(now time.Time) bool {
	return !t.Expires.IsZero() && now.After(t.Expires)
}

// TicketKey is what binds a ticket: a call may use a ticket only if all
// four match.
type TicketKey struct {
	Tool     string
	ArgsHash string
	Scope    Scope
	ScopeID  string
}

// Caps bound the open (not yet consumed, not expired) tickets of a
// store, so that a caller cannot fill it. Zero fields mean no bound.
type Caps struct {
	// PerSubject bounds the open tickets asked for by one subject
	// ([Ticket.Subject]; callers without an identity share the empty one,
	// and under ScopeSession each session of a subject counts apart).
	PerSubject int
	// Total bounds the open tickets overall.
	Total int
}

// Ticket store errors. Their text still says "adapter:", as it did
// before the package moved, so that logs and goldens read the same.
var (
	// ErrTicketNotFound: no ticket has that id (or key).
	ErrTicketNotFound = errors.New("adapter: approval ticket not found")
	// ErrTicketExpired: the ticket is past its expiry.
	ErrTicketExpired = errors.New("adapter: approval ticket expired")
	// ErrTicketState: the ticket is not in the state a transition needs.
	ErrTicketState = errors.New("adapter: approval ticket is not in the required state")
	// ErrTicketCap is returned by Store.Create when a cap is reached;
	// wrap it in an error saying which (a *CapError).
	ErrTicketCap = errors.New("adapter: too many open approval tickets")
)

// CapError is the error of a Create that would exceed a cap.
type CapError struct {
	// PerSubject is true when the caller's own cap was reached (its
	// subject's, or under ScopeSession its session's), false when the
	// total one was.
	PerSubject bool
	// Cap is the cap that was reached.
	Cap int
}

// Error says which cap was reached.
func (e *CapError) Error() string {
	if e.PerSubject {
		return fmt.Sprintf("%v: the caller already has %d open tickets", ErrTicketCap, e.Cap)
	}
	return fmt.Sprintf("%v: %d open tickets in all", ErrTicketCap, e.Cap)
}

// Unwrap returns ErrTicketCap.
func (e *CapError) Unwrap() error { return ErrTicketCap }

// A Store keeps approval tickets. Implementations must be safe for
// concurrent use; state changes must be atomic (compare-and-set), so that
// an approved ticket is consumed exactly once, and Create must check the
// caps and insert atomically. Lookups by id and by key must not slow down
// with the number of tickets held (an index, not a scan): every
// approval-gated call makes one. The adaptertest package checks an
// implementation.
type Store interface {
	// Create stores a new ticket (a pending one, when the executor asks),
	// unless that would
	// exceed caps: then it returns a *CapError (wrapping
	// ErrTicketCap) and stores nothing. Open tickets are those not
	// consumed and not expired at t.Created.
	Create(ctx context.Context, t *Ticket, caps Caps) error
	// Get returns a copy of the ticket, or ErrTicketNotFound.
	Get(ctx context.Context, id string) (*Ticket, error)
	// Find returns a copy of the newest unexpired ticket with key k that is
	// pending, approved or denied, or ErrTicketNotFound.
	Find(ctx context.Context, k TicketKey, now time.Time) (*Ticket, error)
	// Transition moves a ticket from state from to state to, recording
	// reason and approver when not empty; it fails with ErrTicketState if
	// the ticket is not in state from, and with ErrTicketExpired if it
	// expired.
	Transition(ctx context.Context, id string, from, to TicketState, reason, approver string, now time.Time) error
	// List yields copies of the tickets in a state (0: all), oldest first.
	List(ctx context.Context, state TicketState) iter.Seq2[*Ticket, error]
}

// MemoryStore is an in-memory [Store]: lookups by id and key
// are map lookups, caps are kept by counters, and expired or consumed
// tickets are dropped as new ones are created, so memory is bounded by the
// caps (plus tickets consumed within the last TTL). The zero value is an
// empty store, as [NewMemoryStore] returns.
type MemoryStore struct {
	mu        sync.Mutex
	tickets   map[string]*memTicket
	byKey     map[TicketKey][]*memTicket // oldest first
	open      int
	bySubject map[string]int // open tickets per subject
	expiry    ticketHeap     // every ticket with an expiry, soonest first
	seq       uint64
}

type memTicket struct {
	Ticket
	seq  uint64 // creation order, for List
	heap int    // index in expiry, -1 when not there
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{tickets: map[string]*memTicket{}, byKey: map[TicketKey][]*memTicket{}, bySubject: map[string]int{}}
}

// Create implements [Store].
func (m *MemoryStore) Create(_ context.Context, t *Ticket, caps Caps) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tickets == nil { // the zero MemoryStore is empty and ready
		m.tickets, m.byKey, m.bySubject = map[string]*memTicket{}, map[TicketKey][]*memTicket{}, map[string]int{}
	}
	if _, ok := m.tickets[t.ID]; ok {
		return fmt.Errorf("adapter: ticket %q exists", t.ID)
	}
	m.sweep(t.Created)
	if caps.PerSubject > 0 && m.bySubject[t.Subject] >= caps.PerSubject {
		return &CapError{PerSubject: true, Cap: caps.PerSubject}
	}
	if caps.Total > 0 && m.open >= caps.Total {
		return &CapError{Cap: caps.Total}
	}
	m.seq++
	mt := &memTicket{Ticket: *t, seq: m.seq, heap: -1}
	mt.Args = bytes.Clone(t.Args)
	m.tickets[t.ID] = mt
	if mt.State.open() {
		k := mt.Key()
		m.byKey[k] = append(m.byKey[k], mt)
		m.open++
		m.bySubject[t.Subject]++
	}
	if !mt.Expires.IsZero() {
		heap.Push(&m.expiry, mt)
	}
	return nil
}

// sweep drops the tickets that expired by now. m.mu is held.
func (m *MemoryStore) sweep(now time.Time) {
	for len(m.expiry) > 0 && m.expiry[0].expired(now) {
		mt := heap.Pop(&m.expiry).(*memTicket)
		m.close(mt)
		delete(m.tickets, mt.ID)
	}
}

// close takes an open ticket out of the key index and the counts. m.mu is
// held.
func (m *MemoryStore) close(mt *memTicket) {
	if !mt.State.open() {
		return
	}
	k := mt.Key()
	list := m.byKey[k]
	if i := slices.Index(list, mt); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(m.byKey, k)
	} else {
		m.byKey[k] = list
	}
	m.open--
	if m.bySubject[mt.Subject]--; m.bySubject[mt.Subject] <= 0 {
		delete(m.bySubject, mt.Subject)
	}
}

// Get implements [Store].
func (m *MemoryStore) Get(_ context.Context, id string) (*Ticket, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mt, ok := m.tickets[id]
	if !ok {
		return nil, ErrTicketNotFound
	}
	return mt.copy(), nil
}

func (mt *memTicket) copy() *Ticket {
	c := mt.Ticket
	c.Args = bytes.Clone(c.Args)
	return &c
}

// Find implements [Store].
func (m *MemoryStore) Find(_ context.Context, k TicketKey, now time.Time) (*Ticket, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	list := m.byKey[k]
	for _, mt := range slices.Backward(list) {
		if !mt.expired(now) {
			return mt.copy(), nil
		}
	}
	return nil, ErrTicketNotFound
}

// Transition implements [Store].
func (m *MemoryStore) Transition(_ context.Context, id string, from, to TicketState, reason, approver string, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	mt, ok := m.tickets[id]
	if !ok {
		return ErrTicketNotFound
	}
	if mt.State != from {
		return fmt.Errorf("%w: ticket %s is %s, not %s", ErrTicketState, id, mt.State, from)
	}
	if mt.expired(now) {
		return ErrTicketExpired
	}
	if !to.open() {
		m.close(mt)
	}
	mt.State = to
	if reason != "" {
		mt.Reason = reason
	}
	if approver != "" {
		mt.Approver = approver
	}
	return nil
}

// List implements [Store].
func (m *MemoryStore) List(_ context.Context, state TicketState) iter.Seq2[*Ticket, error] {
	m.mu.Lock()
	var out []*memTicket
	for _, mt := range m.tickets {
		if state == 0 || mt.State == state {
			out = append(out, mt)
		}
	}
	slices.SortFunc(out, func(a, b *memTicket) int { return cmp.Compare(a.seq, b.seq) })
	copies := make([]*Ticket, len(out))
	for i, mt := range out {
		copies[i] = mt.copy()
	}
	m.mu.Unlock()
	return func(yield func(*Ticket, error) bool) {
		for _, t := range copies {
			if !yield(t, nil) {
				return
			}
		}
	}
}

// ticketHeap orders tickets by expiry (container/heap).
type ticketHeap []*memTicket

func (h ticketHeap) Len() int           { return len(h) }
func (h ticketHeap) Less(i, j int) bool { return h[i].Expires.Before(h[j].Expires) }
func (h ticketHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heap, h[j].heap = i, j
}
func (h *ticketHeap) Push(x any) {
	mt := x.(*memTicket)
	mt.heap = len(*h)
	*h = append(*h, mt)
}
func (h *ticketHeap) Pop() any {
	old := *h
	mt := old[len(old)-1]
	old[len(old)-1] = nil
	mt.heap = -1
	*h = old[:len(old)-1]
	return mt
}
