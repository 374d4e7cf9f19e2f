package kit

import (
	"context"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

// Unknown answers a call to a tool the agent does not have (req.Tool
// names it) with the not_found payload every integration gives, and
// records it in exec's ledger, once, as every call is recorded
// ([adapter.Executor.Unknown]). A nil exec records nothing.
func Unknown(ctx context.Context, exec *adapter.Executor, req *adapter.Request) string {
	err := adapter.UnknownTool(req.Tool)
	if exec != nil {
		err = exec.Unknown(ctx, req)
	}
	p, _ := adapter.ModelPayload(err)
	return p
}

// Resolve returns the spec reg holds under req.Tool, for a tool that looks
// its spec up at call time (so that a replaced spec is used at once). A
// spec removed, or no longer matching f, answers as an unknown tool: the
// call is recorded ([adapter.Executor.Unknown]) and its not_found error
// returned. A nil exec or reg is an internal error wrapping
// [ErrNilExecutor] or [ErrNilRegistry].
func Resolve(ctx context.Context, reg *registry.Registry, exec *adapter.Executor, f registry.Filter, req *adapter.Request) (*adapter.Spec, error) {
	if exec == nil {
		return nil, noExecutor(req)
	}
	if reg == nil {
		return nil, &adapter.Error{Kind: adapter.KindInternal, Tool: req.Tool, CallID: req.CallID, Message: ErrNilRegistry.Error(), Err: ErrNilRegistry}
	}
	if s, ok := reg.Lookup(req.Tool); ok && f.Match(s) {
		return s, nil
	}
	return nil, exec.Unknown(ctx, req)
}
