package adapter

// The approval machinery moved to package approval (#26); these names
// keep the old ones working for one minor release.

import "github.com/agentadapter/agentadapter/adapter/approval"

// ApprovalPort is the old name of [approval.Port].
//
// Deprecated: use [approval.Port]; go fix -inline rewrites it.
//
//go:fix inline
type ApprovalPort = approval.Port

// ApprovalFunc is the old name of [approval.Func].
//
// Deprecated: use [approval.Func]; go fix -inline rewrites it.
//
//go:fix inline
type ApprovalFunc = approval.Func

// ApprovalRequest is the old name of [approval.Request], whose shape changed: the
// call's fields are its own (req.Call.X is now req.X; req.Call.Spec.Name
// is req.Tool, req.Call.Identity.Subject is req.Subject).
//
// Deprecated: use [approval.Request]; go fix -inline rewrites it.
//
//go:fix inline
type ApprovalRequest = approval.Request

// Decision is the old name of [approval.Decision].
//
// Deprecated: use [approval.Decision]; go fix -inline rewrites it.
//
//go:fix inline
type Decision = approval.Decision

// Verdict is the old name of [approval.Verdict].
//
// Deprecated: use [approval.Verdict]; go fix -inline rewrites it.
//
//go:fix inline
type Verdict = approval.Verdict

// ApprovalScope is the old name of [approval.Scope].
//
// Deprecated: use [approval.Scope]; go fix -inline rewrites it.
//
//go:fix inline
type ApprovalScope = approval.Scope

// TicketState is the old name of [approval.TicketState].
//
// Deprecated: use [approval.TicketState]; go fix -inline rewrites it.
//
//go:fix inline
type TicketState = approval.TicketState

// Ticket is the old name of [approval.Ticket].
//
// Deprecated: use [approval.Ticket]; go fix -inline rewrites it.
//
//go:fix inline
type Ticket = approval.Ticket

// TicketKey is the old name of [approval.TicketKey].
//
// Deprecated: use [approval.TicketKey]; go fix -inline rewrites it.
//
//go:fix inline
type TicketKey = approval.TicketKey

// TicketCaps is the old name of [approval.Caps].
//
// Deprecated: use [approval.Caps]; go fix -inline rewrites it.
//
//go:fix inline
type TicketCaps = approval.Caps

// TicketCapError is the old name of [approval.CapError].
//
// Deprecated: use [approval.CapError]; go fix -inline rewrites it.
//
//go:fix inline
type TicketCapError = approval.CapError

// TicketStore is the old name of [approval.Store].
//
// Deprecated: use [approval.Store]; go fix -inline rewrites it.
//
//go:fix inline
type TicketStore = approval.Store

// MemoryTicketStore is the old name of [approval.MemoryStore].
//
// Deprecated: use [approval.MemoryStore]; go fix -inline rewrites it.
//
//go:fix inline
type MemoryTicketStore = approval.MemoryStore

// TicketEditor is the old name of [approval.Editor].
//
// Deprecated: use [approval.Editor]; go fix -inline rewrites it.
//
//go:fix inline
type TicketEditor = approval.Editor

// Deferred is the old name of [approval.Deferred].
//
// Deprecated: use [approval.Deferred]; go fix -inline rewrites it.
//
//go:fix inline
type Deferred = approval.Deferred

// Standing is the old name of [approval.Standing].
//
// Deprecated: use [approval.Standing]; go fix -inline rewrites it.
//
//go:fix inline
type Standing = approval.Standing

// StandingRule is the old name of [approval.StandingRule].
//
// Deprecated: use [approval.StandingRule]; go fix -inline rewrites it.
//
//go:fix inline
type StandingRule = approval.StandingRule

// VerdictApproved is the old name of [approval.VerdictApproved].
//
// Deprecated: use [approval.VerdictApproved]; go fix -inline rewrites it.
//
//go:fix inline
const VerdictApproved = approval.VerdictApproved

// VerdictDenied is the old name of [approval.VerdictDenied].
//
// Deprecated: use [approval.VerdictDenied]; go fix -inline rewrites it.
//
//go:fix inline
const VerdictDenied = approval.VerdictDenied

// VerdictPending is the old name of [approval.VerdictPending].
//
// Deprecated: use [approval.VerdictPending]; go fix -inline rewrites it.
//
//go:fix inline
const VerdictPending = approval.VerdictPending

// ScopeSubject is the old name of [approval.ScopeSubject].
//
// Deprecated: use [approval.ScopeSubject]; go fix -inline rewrites it.
//
//go:fix inline
const ScopeSubject = approval.ScopeSubject

// ScopeRun is the old name of [approval.ScopeRun].
//
// Deprecated: use [approval.ScopeRun]; go fix -inline rewrites it.
//
//go:fix inline
const ScopeRun = approval.ScopeRun

// ScopeSession is the old name of [approval.ScopeSession].
//
// Deprecated: use [approval.ScopeSession]; go fix -inline rewrites it.
//
//go:fix inline
const ScopeSession = approval.ScopeSession

// ScopeGlobal is the old name of [approval.ScopeGlobal].
//
// Deprecated: use [approval.ScopeGlobal]; go fix -inline rewrites it.
//
//go:fix inline
const ScopeGlobal = approval.ScopeGlobal

// TicketPending is the old name of [approval.TicketPending].
//
// Deprecated: use [approval.TicketPending]; go fix -inline rewrites it.
//
//go:fix inline
const TicketPending = approval.TicketPending

// TicketApproved is the old name of [approval.TicketApproved].
//
// Deprecated: use [approval.TicketApproved]; go fix -inline rewrites it.
//
//go:fix inline
const TicketApproved = approval.TicketApproved

// TicketDenied is the old name of [approval.TicketDenied].
//
// Deprecated: use [approval.TicketDenied]; go fix -inline rewrites it.
//
//go:fix inline
const TicketDenied = approval.TicketDenied

// TicketConsumed is the old name of [approval.TicketConsumed].
//
// Deprecated: use [approval.TicketConsumed]; go fix -inline rewrites it.
//
//go:fix inline
const TicketConsumed = approval.TicketConsumed

// DefaultTicketTTL is the old name of [approval.DefaultTicketTTL].
//
// Deprecated: use [approval.DefaultTicketTTL]; go fix -inline rewrites it.
//
//go:fix inline
const DefaultTicketTTL = approval.DefaultTicketTTL

// DefaultMaxOpenTicketsPerSubject is the old name of [approval.DefaultMaxOpenTicketsPerSubject].
//
// Deprecated: use [approval.DefaultMaxOpenTicketsPerSubject]; go fix -inline rewrites it.
//
//go:fix inline
const DefaultMaxOpenTicketsPerSubject = approval.DefaultMaxOpenTicketsPerSubject

// DefaultMaxOpenTickets is the old name of [approval.DefaultMaxOpenTickets].
//
// Deprecated: use [approval.DefaultMaxOpenTickets]; go fix -inline rewrites it.
//
//go:fix inline
const DefaultMaxOpenTickets = approval.DefaultMaxOpenTickets

// MaxTicketArgBytes is the old name of [approval.MaxTicketArgBytes].
//
// Deprecated: use [approval.MaxTicketArgBytes]; go fix -inline rewrites it.
//
//go:fix inline
const MaxTicketArgBytes = approval.MaxTicketArgBytes

// NewMemoryTicketStore is the old name of [approval.NewMemoryStore].
//
// Deprecated: use [approval.NewMemoryStore]; go fix -inline rewrites it.
//
//go:fix inline
func NewMemoryTicketStore() *approval.MemoryStore { return approval.NewMemoryStore() }

// SessionSubject is the old name of [approval.SessionSubject].
//
// Deprecated: use [approval.SessionSubject]; go fix -inline rewrites it.
//
//go:fix inline
func SessionSubject(subject, session string) string { return approval.SessionSubject(subject, session) }

// ErrTicketNotFound is the old name of [approval.ErrTicketNotFound].
//
// Deprecated: use [approval.ErrTicketNotFound].
var ErrTicketNotFound = approval.ErrTicketNotFound

// ErrTicketExpired is the old name of [approval.ErrTicketExpired].
//
// Deprecated: use [approval.ErrTicketExpired].
var ErrTicketExpired = approval.ErrTicketExpired

// ErrTicketState is the old name of [approval.ErrTicketState].
//
// Deprecated: use [approval.ErrTicketState].
var ErrTicketState = approval.ErrTicketState

// ErrTicketCap is the old name of [approval.ErrTicketCap].
//
// Deprecated: use [approval.ErrTicketCap].
var ErrTicketCap = approval.ErrTicketCap

// ErrStandingNotAllowed is the old name of [approval.ErrStandingNotAllowed].
//
// Deprecated: use [approval.ErrStandingNotAllowed].
var ErrStandingNotAllowed = approval.ErrStandingNotAllowed
