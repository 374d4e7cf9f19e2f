package adapter

import (
	"context"
	"encoding/json"
	"errors"
)

// Call runs the tool directly, with no executor: the arguments are checked
// against the input schema (defaults applied), the handler runs, and the
// result is checked against the output schema. It applies no policy (no
// approval, limits, timeout, ledger); agent code should call tools through
// an [Executor].
func (s *Spec) Call(ctx context.Context, args json.RawMessage) (*Result, error) {
	c, err := s.compiled()
	if err != nil {
		return nil, &Error{Kind: KindInternal, Tool: s.Name, Message: "invalid tool spec", Err: err}
	}
	args, err = c.prepareArgs(args, DefaultMaxArgBytes)
	if err != nil {
		return nil, withTool(err, s.Name, "")
	}
	r, err := s.Handler(ctx, args)
	if err != nil {
		return nil, toolError(err, s.Name, "")
	}
	if err := c.checkResult(r); err != nil {
		return nil, withTool(err, s.Name, "")
	}
	return r, nil
}

// toolError classifies a handler's error: an *Error keeps its kind, a
// deadline is a timeout, anything else is a tool error whose message is the
// error's text.
func toolError(err error, tool, callID string) *Error {
	var e *Error
	if errors.As(err, &e) {
		return withTool(e, tool, callID)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: KindTimeout, Tool: tool, CallID: callID, Message: "the tool did not finish before its deadline", Err: err}
	}
	return &Error{Kind: KindToolError, Tool: tool, CallID: callID, Message: err.Error(), Err: err}
}

// withTool fills in the tool and call id of an *Error (copying it when they
// would change), and wraps other errors as internal.
func withTool(err error, tool, callID string) *Error {
	var e *Error
	if !errors.As(err, &e) {
		return &Error{Kind: KindInternal, Tool: tool, CallID: callID, Message: "internal error", Err: err}
	}
	if e.Tool == tool && e.CallID == callID {
		return e
	}
	c := *e
	if c.Tool == "" {
		c.Tool = tool
	}
	if c.CallID == "" {
		c.CallID = callID
	}
	return &c
}
