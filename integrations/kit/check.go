package kit

import (
	"errors"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

// ErrNilSpec reports a constructor given no spec.
var ErrNilSpec = errors.New("nil spec")

// CheckTool checks what a constructor of one tool checks first: spec and
// exec are required ([ErrNilSpec], [ErrNilExecutor]) and spec must be
// valid ([adapter.Spec.Check]).
func CheckTool(spec *adapter.Spec, exec *adapter.Executor) error {
	if spec == nil {
		return ErrNilSpec
	}
	if exec == nil {
		return ErrNilExecutor
	}
	return spec.Check()
}

// CheckRegistry checks what a constructor over a registry checks first:
// reg and exec are required ([ErrNilRegistry], [ErrNilExecutor]).
func CheckRegistry(reg *registry.Registry, exec *adapter.Executor) error {
	if reg == nil {
		return ErrNilRegistry
	}
	if exec == nil {
		return ErrNilExecutor
	}
	return nil
}

// noExecutor is the error of a call given a nil executor: an internal
// error (not model-facing, so the run fails rather than the model reading
// it) that wraps [ErrNilExecutor].
func noExecutor(req *adapter.Request) error {
	e := &adapter.Error{Kind: adapter.KindInternal, Message: ErrNilExecutor.Error(), Err: ErrNilExecutor}
	if req != nil {
		e.Tool, e.CallID = req.Tool, req.CallID
	}
	return e
}
