package kit

import (
	"errors"

	"github.com/agentadapter/agentadapter/adapter"
)

// Outcome is what an integration does with an executor error: hand the
// model a payload, hold the call for approval, or abort the run.
// Exactly one of its fields is set.
type Outcome struct {
	// Payload is the text the model reads in place of a result, for a
	// model-facing kind (see [adapter.ModelPayload]).
	Payload string
	// Pending is the error of a call held for approval; its Ticket is
	// what the resumed call presents.
	Pending *adapter.Error
	// Err is an infrastructure fault, returned to the framework as a Go
	// error (it aborts the run).
	Err error
}

// Triage sorts err, as returned by [adapter.Executor.Do], into an
// [Outcome]. A nil err gives the zero Outcome.
//
// An integration whose framework can interrupt a run (eino, genkit) turns
// Pending into its interrupt; one that cannot uses [TriagePayload], which
// hands the model the approval_pending payload with its ticket instead.
func Triage(err error) Outcome {
	if err == nil {
		return Outcome{}
	}
	var e *adapter.Error
	if errors.As(err, &e) && e.Kind == adapter.KindApprovalPending {
		return Outcome{Pending: e}
	}
	return TriagePayload(err)
}

// TriagePayload is [Triage] for an integration that cannot hold a run: a
// call held for approval is a payload like any model-facing kind.
func TriagePayload(err error) Outcome {
	if err == nil {
		return Outcome{}
	}
	if p, ok := adapter.ModelPayload(err); ok {
		return Outcome{Payload: p}
	}
	return Outcome{Err: err}
}
