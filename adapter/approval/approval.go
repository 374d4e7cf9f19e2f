package approval

import (
	"context"
	"encoding/json"
	"fmt"
)

// Scope says who an approval is bound to, beyond the tool and the
// canonical arguments it was granted for.
type Scope string

const (
	// ScopeSubject binds an approval to the verified caller
	// ([Request.Subject]); calls without an identity share the empty
	// subject. It is the default.
	ScopeSubject Scope = "subject"
	// ScopeRun binds an approval to the run ([Request.RunID]): another
	// run of the same caller must be approved anew.
	ScopeRun Scope = "run"
	// ScopeSession binds an approval to the session ([Request.Session]),
	// such as one MCP client connection. The caps on open tickets then
	// count per session too ([Caps.PerSubject]): one session of a
	// caller filling its cap does not stop another session of the same
	// caller from being asked.
	ScopeSession Scope = "session"
	// ScopeGlobal lets an approval serve any caller presenting the same
	// tool and arguments. Use it only when every caller is equally trusted.
	ScopeGlobal Scope = "global"
)

// Valid reports whether s is one of the defined scopes or the zero value.
func (s Scope) Valid() bool {
	switch s {
	case "", ScopeSubject, ScopeRun, ScopeSession, ScopeGlobal:
		return true
	}
	return false
}

// orDefault returns s, or ScopeSubject for the zero value.
func (s Scope) orDefault() Scope {
	if s == "" {
		return ScopeSubject
	}
	return s
}

// A Port decides on a call that needs approval. It either answers
// now (a blocking port: a person or program approves or denies) or defers,
// returning a pending decision with a ticket to approve later ([Deferred]).
type Port interface {
	Decide(ctx context.Context, req *Request) (Decision, error)
}

// Request is what a port decides on: the call that needs approval, in
// plain fields.
type Request struct {
	// Tool is the name of the tool's spec.
	Tool string
	// CallID identifies the call (the framework's tool call id when it has
	// one), RunID its run, Session its session ("" when none).
	CallID  string
	RunID   string
	Session string
	// Integration names the calling framework: "eino", "genkit",
	// "langchaingo", "mcp", or "" for direct calls.
	Integration string
	// Subject is the verified caller's subject, "" without an identity;
	// Anonymous is true for a caller that proved no identity (its subject
	// then names its session).
	Subject   string
	Anonymous bool
	// Server is the MCP server the tool was imported from ("" for a local
	// tool), and Credential what the call reaches it with: "" for no
	// OAuth, "shared" for the server's one identity, "caller" for the
	// caller's own token (its sign-in), "exchanged" for one exchanged for
	// the caller's inbound token (adapter.Source.Credential).
	Server     string
	Credential string
	// Args are the validated arguments.
	Args json.RawMessage
	// Ticket is the approval ticket the caller presents to resume a call
	// that was pending approval, or "".
	Ticket string
	// ReadOnly, Destructive, Idempotent and OpenWorld are the tool's
	// annotations, with unset hints resolved as in MCP (destructive and
	// open-world unless said otherwise; a read-only tool is never
	// destructive).
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
	// ArgsHash is the canonical hash of Args: the hex SHA-256 of their
	// canonical JSON (adapter/canonical.Hash).
	ArgsHash string
	// Scope is the executor's approval scope (never empty), and
	// ScopeID the id of the call's scope under it: the subject, run id or
	// session id ("" for ScopeGlobal). A port that remembers approvals
	// must only reuse one for the same tool, ArgsHash, Scope and ScopeID.
	Scope   Scope
	ScopeID string
}

// Verdict is an approval port's answer.
type Verdict int

const (
	// VerdictApproved: the call may run.
	VerdictApproved Verdict = iota + 1
	// VerdictDenied: the call is refused (the executor's approval_denied
	// kind).
	VerdictDenied
	// VerdictPending: the call waits for a ticket to be decided (the
	// executor's approval_pending kind).
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

// Func is a blocking [Port] made from a function.
type Func func(ctx context.Context, req *Request) (Decision, error)

// Decide calls f.
func (f Func) Decide(ctx context.Context, req *Request) (Decision, error) {
	return f(ctx, req)
}
