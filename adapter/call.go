package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"

	"github.com/agentadapter/agentadapter/runsync"
)

// CallDirect runs the tool directly, with no executor: the arguments are checked
// against the input schema (defaults applied), the handler runs, and the
// result is checked against the output schema. It applies no policy (no
// approval, limits, timeout, ledger); agent code should call tools through
// an [Executor]. A panicking handler is recovered into a [KindToolError]
// whose cause is a [*runsync.PanicError] carrying the stack.
func (s *Spec) CallDirect(ctx context.Context, args json.RawMessage) (*Result, error) {
	c, err := s.compiled()
	if err != nil {
		return nil, specError(err, s.Name, "")
	}
	args, err = c.prepareArgs(args, DefaultMaxArgBytes)
	if err != nil {
		return nil, withTool(err, s.Name, "")
	}
	r, err := s.callHandler(ctx, args)
	if err != nil {
		return nil, toolError(err, s.Name, "")
	}
	if err := c.checkResult(r); err != nil {
		return nil, withTool(err, s.Name, "")
	}
	return r, nil
}

// Call runs the tool directly, like [Spec.CallDirect].
//
// Deprecated: use CallDirect (it skips every policy); or call through an Executor.
//
//go:fix inline
func (s *Spec) Call(ctx context.Context, args json.RawMessage) (*Result, error) {
	return s.CallDirect(ctx, args)
}

func (s *Spec) callHandler(ctx context.Context, args json.RawMessage) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, &Error{Kind: KindToolError, Message: "the tool failed unexpectedly (it panicked)",
				Err: &runsync.PanicError{Value: p, Stack: debug.Stack()}}
		}
	}()
	return s.Handler(ctx, args)
}

// toolError classifies a handler's error: an *Error keeps its kind, a
// recovered panic hides its value, a deadline is a timeout, and anything
// else is a tool error whose message is the error's text.
func toolError(err error, tool, callID string) *Error {
	var e *Error
	if errors.As(err, &e) {
		return withTool(e, tool, callID)
	}
	var pe *runsync.PanicError
	if errors.As(err, &pe) { // e.g. from a runsync call inside the handler: the panic text is Go's
		return &Error{Kind: KindToolError, Tool: tool, CallID: callID, Message: "the tool failed unexpectedly (it panicked)", Err: err}
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
	msg := boundMessage(e.Message)
	if e.Tool == tool && e.CallID == callID && len(msg) == len(e.Message) {
		return e
	}
	c := *e
	c.Message = msg
	if c.Tool == "" {
		c.Tool = tool
	}
	if c.CallID == "" {
		c.CallID = callID
	}
	return &c
}
