package adapter

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
	"strings"
	"sync"
	"time"
)

// An ApprovalPolicy decides whether a call needs approval.
type ApprovalPolicy func(ctx context.Context, c *ToolCall) bool

// ApproveNever is the policy under which no call needs approval.
func ApproveNever(context.Context, *ToolCall) bool { return false }

// ApproveAlways is the policy under which every call needs approval.
func ApproveAlways(context.Context, *ToolCall) bool { return true }

// ApproveByAnnotations is the default policy: destructive or open-world
// tools need approval (an unset hint counts as true, as in MCP).
func ApproveByAnnotations(_ context.Context, c *ToolCall) bool {
	a := c.Spec.Annotations
	return a.IsDestructive() || a.IsOpenWorld()
}

// ApprovalOptions configure approval in an [Executor].
type ApprovalOptions struct {
	// Port asks for approval. Nil means no call is ever held for approval,
	// whatever the policies say.
	Port ApprovalPort
	// Policy decides which calls need approval; nil means ApproveByAnnotations.
	Policy ApprovalPolicy
	// Tools overrides Policy per tool name.
	Tools map[string]ApprovalPolicy
	// Scope is who an approval is good for; the zero value is ScopeSubject:
	// an approval granted for one caller's call never lets another caller
	// run the same call.
	Scope ApprovalScope
}

// ApprovalScope says who an approval is bound to, beyond the tool and the
// canonical arguments it was granted for.
type ApprovalScope string

const (
	// ScopeSubject binds an approval to the verified caller
	// ([Identity.Subject]); calls without an identity share the empty
	// subject. It is the default.
	ScopeSubject ApprovalScope = "subject"
	// ScopeRun binds an approval to the run ([ToolCall.RunID]): another
	// run of the same caller must be approved anew.
	ScopeRun ApprovalScope = "run"
	// ScopeSession binds an approval to the session ([ToolCall.Session]),
	// such as one MCP client connection. The caps on open tickets then
	// count per session too ([TicketCaps.PerSubject]): one session of a
	// caller filling its cap does not stop another session of the same
	// caller from being asked.
	ScopeSession ApprovalScope = "session"
	// ScopeGlobal lets an approval serve any caller presenting the same
	// tool and arguments. Use it only when every caller is equally trusted.
	ScopeGlobal ApprovalScope = "global"
)

// valid reports whether s is one of the defined scopes or the zero value.
func (s ApprovalScope) valid() bool {
	switch s {
	case "", ScopeSubject, ScopeRun, ScopeSession, ScopeGlobal:
		return true
	}
	return false
}

// orDefault returns s, or ScopeSubject for the zero value.
func (s ApprovalScope) orDefault() ApprovalScope {
	if s == "" {
		return ScopeSubject
	}
	return s
}

// scopeID returns the id of the scope c belongs to under s.
func (s ApprovalScope) scopeID(c *ToolCall) string {
	switch s.orDefault() {
	case ScopeSubject:
		if c.Identity != nil {
			return c.Identity.Subject
		}
	case ScopeRun:
		return c.RunID
	case ScopeSession:
		return c.Session
	}
	return ""
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
	// Scope is the executor's [ApprovalOptions.Scope] (never empty), and
	// ScopeID the id of the call's scope under it: the subject, run id or
	// session id ("" for ScopeGlobal). A port that remembers approvals
	// must only reuse one for the same tool, ArgsHash, Scope and ScopeID.
	Scope   ApprovalScope
	ScopeID string
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
	// Ticket is the ticket id of a VerdictPending decision, or of the
	// ticket a decision came from.
	Ticket string
	// Requester names the subject who asked for the ticket a decision
	// came from; under a scope wider than ScopeSubject it may differ from
	// the caller. The ledger records it.
	Requester string
}

// ApprovalFunc is a blocking [ApprovalPort] made from a function.
type ApprovalFunc func(ctx context.Context, req *ApprovalRequest) (Decision, error)

// Decide calls f.
func (f ApprovalFunc) Decide(ctx context.Context, req *ApprovalRequest) (Decision, error) {
	return f(ctx, req)
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

// open reports whether a ticket in state s still counts against the caps:
// it has not been used up.
func (s TicketState) open() bool { return s != TicketConsumed }

// Ticket is a deferred approval, bound to one tool, the canonical hash of
// one set of arguments and one scope (see [ApprovalScope]). It is one-use
// and expires.
type Ticket struct {
	// ID is the ticket's id, unguessable: it is shown to the model.
	ID   string
	Tool string
	// ArgsHash is the canonical hash of the arguments (see [CanonicalHash]).
	ArgsHash string
	// Args are the arguments as first presented, for the approver to read;
	// nil when they were larger than MaxTicketArgBytes (ArgsSize tells how
	// large: the approver then decides on the hash).
	Args json.RawMessage
	// ArgsSize is the size of the canonical arguments in bytes.
	ArgsSize int
	// Scope and ScopeID bind the ticket: only a call of the same tool and
	// arguments in the same scope may use it (see [ApprovalRequest]).
	Scope   ApprovalScope
	ScopeID string
	// CallID, RunID, Session and Subject describe the call that asked: who
	// asked, from which run and session. Subject is also what the caps
	// count by ([TicketCaps.PerSubject]): under ScopeSession it is the
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
	Scope    ApprovalScope
	ScopeID  string
}

// TicketCaps bound the open (not yet consumed, not expired) tickets of a
// store, so that a caller cannot fill it. Zero fields mean no bound.
type TicketCaps struct {
	// PerSubject bounds the open tickets asked for by one subject
	// ([Ticket.Subject]; callers without an identity share the empty one,
	// and under ScopeSession each session of a subject counts apart).
	PerSubject int
	// Total bounds the open tickets overall.
	Total int
}

// Ticket store errors.
var (
	ErrTicketNotFound = errors.New("adapter: approval ticket not found")
	ErrTicketExpired  = errors.New("adapter: approval ticket expired")
	ErrTicketState    = errors.New("adapter: approval ticket is not in the required state")
	// ErrTicketCap is returned by TicketStore.Create when a cap is reached;
	// wrap it in an error saying which (a *TicketCapError).
	ErrTicketCap = errors.New("adapter: too many open approval tickets")
)

// TicketCapError is the error of a Create that would exceed a cap.
type TicketCapError struct {
	// PerSubject is true when the caller's own cap was reached (its
	// subject's, or under ScopeSession its session's), false when the
	// total one was.
	PerSubject bool
	// Cap is the cap that was reached.
	Cap int
}

func (e *TicketCapError) Error() string {
	if e.PerSubject {
		return fmt.Sprintf("%v: the caller already has %d open tickets", ErrTicketCap, e.Cap)
	}
	return fmt.Sprintf("%v: %d open tickets in all", ErrTicketCap, e.Cap)
}

// Unwrap returns ErrTicketCap.
func (e *TicketCapError) Unwrap() error { return ErrTicketCap }

// A TicketStore keeps approval tickets. Implementations must be safe for
// concurrent use; state changes must be atomic (compare-and-set), so that
// an approved ticket is consumed exactly once, and Create must check the
// caps and insert atomically. Lookups by id and by key must not slow down
// with the number of tickets held (an index, not a scan): every
// approval-gated call makes one. The adaptertest package checks an
// implementation.
type TicketStore interface {
	// Create stores a new ticket (a pending one, when the executor asks),
	// unless that would
	// exceed caps: then it returns a *TicketCapError (wrapping
	// ErrTicketCap) and stores nothing. Open tickets are those not
	// consumed and not expired at t.Created.
	Create(ctx context.Context, t *Ticket, caps TicketCaps) error
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

// MemoryTicketStore is an in-memory [TicketStore]: lookups by id and key
// are map lookups, caps are kept by counters, and expired or consumed
// tickets are dropped as new ones are created, so memory is bounded by the
// caps (plus tickets consumed within the last TTL).
type MemoryTicketStore struct {
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

// NewMemoryTicketStore returns an empty store.
func NewMemoryTicketStore() *MemoryTicketStore {
	return &MemoryTicketStore{tickets: map[string]*memTicket{}, byKey: map[TicketKey][]*memTicket{}, bySubject: map[string]int{}}
}

func (m *MemoryTicketStore) Create(_ context.Context, t *Ticket, caps TicketCaps) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tickets[t.ID]; ok {
		return fmt.Errorf("adapter: ticket %q exists", t.ID)
	}
	m.sweep(t.Created)
	if caps.PerSubject > 0 && m.bySubject[t.Subject] >= caps.PerSubject {
		return &TicketCapError{PerSubject: true, Cap: caps.PerSubject}
	}
	if caps.Total > 0 && m.open >= caps.Total {
		return &TicketCapError{Cap: caps.Total}
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
func (m *MemoryTicketStore) sweep(now time.Time) {
	for len(m.expiry) > 0 && m.expiry[0].expired(now) {
		mt := heap.Pop(&m.expiry).(*memTicket)
		m.close(mt)
		delete(m.tickets, mt.ID)
	}
}

// close takes an open ticket out of the key index and the counts. m.mu is
// held.
func (m *MemoryTicketStore) close(mt *memTicket) {
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

func (m *MemoryTicketStore) Get(_ context.Context, id string) (*Ticket, error) {
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

func (m *MemoryTicketStore) Find(_ context.Context, k TicketKey, now time.Time) (*Ticket, error) {
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

func (m *MemoryTicketStore) Transition(_ context.Context, id string, from, to TicketState, reason, approver string, now time.Time) error {
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

func (m *MemoryTicketStore) List(_ context.Context, state TicketState) iter.Seq2[*Ticket, error] {
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

// Deferred is an [ApprovalPort] that never blocks: a call that needs approval
// gets a ticket and fails with [KindApprovalPending]; someone approves or
// denies the ticket later, from any goroutine ([Deferred.Approve],
// [Deferred.Deny]); the call is then retried with the same arguments (key
// order and white space do not matter) from the same scope (see
// [ApprovalScope]; by default the same caller) and runs, once. A retry with
// other arguments does not match the ticket and gets a new one; a call
// from another scope presenting the ticket is denied.
//
// Open tickets are capped per subject (per session under ScopeSession) and
// overall ([Deferred.Caps]); a call
// that would exceed a cap is denied with a message telling the model to wait
// for the pending ones.
type Deferred struct {
	// Store keeps the tickets; nil means a new MemoryTicketStore.
	Store TicketStore
	// TTL bounds a ticket's life; zero means DefaultTicketTTL.
	TTL time.Duration
	// Caps bound the open tickets; a zero field means its default
	// (DefaultMaxOpenTicketsPerSubject, DefaultMaxOpenTickets), a negative
	// one no bound.
	Caps TicketCaps
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

func (d *Deferred) caps() TicketCaps {
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

// Decide implements [ApprovalPort]. A call presenting a ticket (Call.Ticket)
// must match that ticket's tool, arguments and scope, or it is denied;
// otherwise the newest ticket with the same key is used.
func (d *Deferred) Decide(ctx context.Context, req *ApprovalRequest) (Decision, error) {
	d.init()
	c := req.Call
	now := d.now()
	key := TicketKey{Tool: c.Spec.Name, ArgsHash: req.ArgsHash, Scope: req.Scope.orDefault(), ScopeID: req.ScopeID}
	var t *Ticket
	var err error
	if c.Ticket != "" {
		t, err = d.Store.Get(ctx, c.Ticket)
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
			return Decision{Verdict: VerdictApproved, Approver: t.Approver, Ticket: t.ID, Requester: requesterOf(t), Args: t.Edited}, nil
		case TicketDenied:
			if err := d.Store.Transition(ctx, t.ID, TicketDenied, TicketConsumed, "", "", now); err != nil && !errors.Is(err, ErrTicketState) && !errors.Is(err, ErrTicketExpired) {
				return Decision{}, err
			}
			return Decision{Verdict: VerdictDenied, Reason: t.Reason, Approver: t.Approver, Ticket: t.ID, Requester: requesterOf(t)}, nil
		case TicketPending:
			return Decision{Verdict: VerdictPending, Ticket: t.ID, Requester: requesterOf(t)}, nil
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

func (d *Deferred) newTicket(ctx context.Context, req *ApprovalRequest, key TicketKey, now time.Time) (Decision, error) {
	ttl := d.TTL
	if ttl <= 0 {
		ttl = DefaultTicketTTL
	}
	c := req.Call
	t := &Ticket{
		ID: newID("tkt_"), Tool: key.Tool, ArgsHash: key.ArgsHash, Scope: key.Scope, ScopeID: key.ScopeID,
		ArgsSize: len(c.Args), CallID: c.ID, RunID: c.RunID, Session: c.Session,
		State: TicketPending, Created: now, Expires: now.Add(ttl),
	}
	if len(c.Args) <= MaxTicketArgBytes {
		t.Args = c.Args
	}
	requester := ""
	if c.Identity != nil {
		requester = c.Identity.Subject
	}
	t.Subject = requester
	perSession := key.Scope == ScopeSession && c.Session != "" && (c.Identity == nil || !c.Identity.Anonymous)
	if perSession {
		// The caps count what the ticket is bound to: this session.
		t.Subject = SessionSubject(requester, c.Session)
	}
	if err := d.Store.Create(ctx, t, d.caps()); err != nil {
		var ce *TicketCapError
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

// requesterOf returns who asked for t: its subject, less the session that
// qualifies it under ScopeSession.
func requesterOf(t *Ticket) string {
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
