package kit

import (
	"context"
	"errors"

	"github.com/agentadapter/agentadapter/adapter"
)

// FailurePayload is the payload a model reads in place of the result of a
// call that failed with err in a tool the executor did not run (one the
// framework built, wrapped by an integration's middleware), so that its
// failure ends the call and not the run: an [*adapter.Error] of a
// model-facing kind is its own payload (naming tool and callID when it
// does not), a deadline a timeout, any other error a tool_error. ok is
// false for a nil err, for context.Canceled once ctx is done, and for
// adapter errors of other kinds (connection, internal): those stay Go
// errors.
func FailurePayload(ctx context.Context, tool, callID string, err error) (payload string, ok bool) {
	if err == nil {
		return "", false
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return "", false
	}
	var e *adapter.Error
	switch {
	case errors.As(err, &e):
		if !e.Kind.ModelFacing() {
			return "", false
		}
		if e.Tool == "" || e.CallID == "" {
			c := *e
			if c.Tool == "" {
				c.Tool = tool
			}
			if c.CallID == "" {
				c.CallID = callID
			}
			e = &c
		}
	case errors.Is(err, context.DeadlineExceeded):
		e = &adapter.Error{Kind: adapter.KindTimeout, Tool: tool, CallID: callID, Message: "the tool did not finish before its deadline", Err: err}
	default:
		e = &adapter.Error{Kind: adapter.KindToolError, Tool: tool, CallID: callID, Message: err.Error(), Err: err}
	}
	return adapter.ModelPayload(e)
}

// PanicPayload is the tool_error payload of a call whose tool, one the
// executor did not run, panicked: the model reads that the tool failed, as
// it does for a handler the executor recovers. The caller logs the panic.
func PanicPayload(tool, callID string) string {
	p, _ := adapter.ModelPayload(&adapter.Error{Kind: adapter.KindToolError, Tool: tool, CallID: callID, Message: "the tool failed unexpectedly (it panicked)"})
	return p
}
