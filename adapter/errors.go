package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentadapter/agentadapter/adapter/internal/argcheck"
)

// A Kind classifies why a tool call failed. The set is closed: every error the
// executor returns is an [*Error] with one of these kinds.
type Kind string

const (
	// KindArgsInvalid: the arguments are too large, not JSON, or do not
	// match the tool's input schema.
	KindArgsInvalid Kind = "args_invalid"
	// KindToolError: the tool ran and reported a failure (a handler error,
	// an MCP isError result, or a result that does not match its output schema).
	KindToolError Kind = "tool_error"
	// KindApprovalDenied: an approver refused the call.
	KindApprovalDenied Kind = "approval_denied"
	// KindApprovalPending: the call awaits a deferred approval; see [Error.Ticket].
	KindApprovalPending Kind = "approval_pending"
	// KindGuardrailBlocked: an input or output guard refused the call.
	KindGuardrailBlocked Kind = "guardrail_blocked"
	// KindRunLimitExceeded: the run scope's call limits are used up.
	KindRunLimitExceeded Kind = "run_limit_exceeded"
	// KindTimeout: the tool did not finish before its deadline.
	KindTimeout Kind = "timeout"
	// KindNotFound: no tool of that name (locally, or on the remote server).
	KindNotFound Kind = "not_found"
	// KindConnection: the transport to a remote tool failed.
	KindConnection Kind = "connection"
	// KindCancelled: the caller cancelled the call (its context). Nobody
	// is left to read a payload, so it is not model-facing.
	KindCancelled Kind = "cancelled"
	// KindInternal: a fault of the machinery itself (a panicking hook, a
	// broken extension point, a programming error).
	KindInternal Kind = "internal"
)

// Sentinel errors, one per [Kind], for use with [errors.Is]:
//
//	if errors.Is(err, adapter.ErrApprovalPending) { ... }
var (
	ErrArgsInvalid      = &sentinel{KindArgsInvalid}
	ErrToolError        = &sentinel{KindToolError}
	ErrApprovalDenied   = &sentinel{KindApprovalDenied}
	ErrApprovalPending  = &sentinel{KindApprovalPending}
	ErrGuardrailBlocked = &sentinel{KindGuardrailBlocked}
	ErrRunLimitExceeded = &sentinel{KindRunLimitExceeded}
	ErrTimeout          = &sentinel{KindTimeout}
	ErrNotFound         = &sentinel{KindNotFound}
	ErrConnection       = &sentinel{KindConnection}
	ErrCancelled        = &sentinel{KindCancelled}
	ErrInternal         = &sentinel{KindInternal}
)

type sentinel struct{ kind Kind }

func (s *sentinel) Error() string { return "adapter: " + string(s.kind) }

// ModelFacing reports whether errors of this kind are the model's business:
// the integrations hand them to the model as a readable payload (see
// [ModelPayload]) so that an agent loop can recover, instead of aborting the
// run. Connection and internal faults are infrastructure errors and stay Go
// errors.
func (k Kind) ModelFacing() bool {
	switch k {
	case KindArgsInvalid, KindToolError, KindApprovalDenied, KindApprovalPending,
		KindGuardrailBlocked, KindRunLimitExceeded, KindTimeout, KindNotFound:
		return true
	}
	return false
}

// Error is the one error type of a failed tool call.
type Error struct {
	// Kind classifies the failure.
	Kind Kind
	// Tool is the name of the tool called.
	Tool string
	// CallID identifies the call (the framework's tool call id when it has one).
	CallID string
	// Message is safe to show to a model: no stack traces, no Go internals.
	Message string
	// Ticket is set for KindApprovalPending: the id to approve or deny.
	Ticket string
	// Guard names the guard that blocked the call (KindGuardrailBlocked).
	Guard string
	// Content carries what the tool itself returned with its failure, such
	// as the text blocks of an MCP isError result.
	Content []Content
	// Err is the underlying cause, for programs. It is never shown to a model.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Kind))
	if e.Tool != "" {
		b.WriteString(" (tool ")
		b.WriteString(e.Tool)
		b.WriteString(")")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Err != nil && e.Message == "" {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel of e's kind.
func (e *Error) Is(target error) bool {
	s, ok := target.(*sentinel)
	return ok && s.kind == e.Kind
}

// Errorf-style constructors are deliberately absent: build an *Error with a
// composite literal, or use [NewError].

// NewError returns an *Error of the given kind with a model-safe message.
func NewError(kind Kind, message string) *Error {
	return &Error{Kind: kind, Message: message}
}

// KindOf returns the kind of err: the Kind of the first *Error in its chain,
// KindTimeout for context.DeadlineExceeded, and KindInternal otherwise.
// It returns "" for a nil error.
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return KindTimeout
	}
	if errors.Is(err, context.Canceled) {
		return KindCancelled
	}
	return KindInternal
}

// Payload is the JSON shape of a model-facing error:
//
//	{"error":{"kind":"tool_error","message":"..."}}
type Payload struct {
	// Error is the failure, as the model reads it.
	Error PayloadError `json:"error"`
}

// PayloadError is the body of a [Payload].
type PayloadError struct {
	// Kind is the error's kind.
	Kind Kind `json:"kind"`
	// Message is the error's model-safe message.
	Message string `json:"message"`
	// Tool names the tool called, if known.
	Tool string `json:"tool,omitempty"`
	// Ticket is the approval ticket of an approval_pending error.
	Ticket string `json:"ticket,omitempty"`
}

// ModelPayload renders err as the JSON text a model reads,
// {"error":{"kind":"...","message":"..."}}, with a ticket for pending
// approvals. The output is stable: fixed key order, no stack traces, no Go
// error chains. ok is false (and payload empty) when err is nil or not
// model-facing (see [Kind.ModelFacing]); such errors should stay Go errors.
func ModelPayload(err error) (payload string, ok bool) {
	var e *Error
	if err == nil || !errors.As(err, &e) || !e.Kind.ModelFacing() {
		return "", false
	}
	msg := boundMessage(e.Message)
	if msg == "" {
		msg = defaultMessage(e.Kind)
	}
	// No HTML escaping: the reader is a model, and "a < b" should stay so.
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(Payload{Error: PayloadError{Kind: e.Kind, Message: msg, Tool: e.Tool, Ticket: e.Ticket}}) != nil {
		return "", false // unreachable: the payload holds only strings
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

func defaultMessage(k Kind) string {
	switch k {
	case KindArgsInvalid:
		return "the arguments do not match the tool's input schema"
	case KindToolError:
		return "the tool failed"
	case KindApprovalDenied:
		return "the call was not approved"
	case KindApprovalPending:
		return "the call is waiting for approval"
	case KindGuardrailBlocked:
		return "the call was blocked by a guardrail"
	case KindRunLimitExceeded:
		return "the run's tool call limit is reached"
	case KindTimeout:
		return "the tool did not answer in time"
	case KindNotFound:
		return "no such tool"
	}
	return string(k)
}

// MaxMessageBytes bounds the message of every error the executor returns,
// records in the ledger or renders for a model: a hostile input (100,000
// unknown keys, a huge value quoted back) must not become a megabyte of
// error text in a model's context or the ledger.
const MaxMessageBytes = 1024

// boundMessage shortens s to at most MaxMessageBytes (see argcheck.BoundMessage).
func boundMessage(s string) string { return argcheck.BoundMessage(s, MaxMessageBytes) }

// maxUnknownName bounds the tool name quoted in a not_found message: the
// name comes from a model and may be anything.
const maxUnknownName = 128

// UnknownTool returns the not_found error of a call to a tool that does not
// exist: the one every integration gives a model that called a tool by a
// name it made up, so that it reads the same payload everywhere.
func UnknownTool(name string) *Error {
	shown := name
	if len(shown) > maxUnknownName {
		cut := maxUnknownName
		for cut > 0 && !utf8.RuneStart(shown[cut]) { // never half a rune
			cut--
		}
		shown = shown[:cut] + "…"
	}
	// The name is recorded (Executor.Unknown): a database column and a JSON
	// export keep valid UTF-8 only, and the record's hash must survive both.
	shown = strings.ToValidUTF8(shown, "\uFFFD")
	return &Error{Kind: KindNotFound, Tool: shown, Message: fmt.Sprintf("no tool named %q", shown)}
}
