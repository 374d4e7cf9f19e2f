package kit

import (
	"errors"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

// ErrNilExecutor reports a constructor given no executor. An integration
// never defaults one: a nil executor would drop every policy in silence.
var ErrNilExecutor = errors.New("nil executor (pass the *adapter.Executor whose policy the calls must follow)")

// ErrNilRegistry reports a constructor given no registry.
var ErrNilRegistry = errors.New("nil registry")

// Filter returns f as an integration lists it: for target, and without
// MCP Apps' app-only tools, which no model is offered.
func Filter(f registry.Filter, target string) registry.Filter {
	f.Target = target
	f.Model = true
	return f
}

// Specs returns the specs of reg an integration for target exports (see
// [Filter]), in the registry's order. It checks the arguments every
// constructor checks first: reg and exec are required.
func Specs(reg *registry.Registry, exec *adapter.Executor, f registry.Filter, target string) ([]*adapter.Spec, error) {
	if reg == nil {
		return nil, ErrNilRegistry
	}
	if exec == nil {
		return nil, ErrNilExecutor
	}
	var out []*adapter.Spec
	for s := range reg.List(Filter(f, target)) {
		out = append(out, s)
	}
	return out, nil
}
