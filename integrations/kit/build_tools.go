package kit

import (
	"fmt"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

// BuildTools returns build's tool for each spec of reg that the
// integration called name exports for target ([Specs]), in the registry's
// order. An error of Specs is prefixed "name: "; the first error of build
// is returned as it is.
func BuildTools[T any](name string, reg *registry.Registry, exec *adapter.Executor, f registry.Filter, target string, build func(*adapter.Spec) (T, error)) ([]T, error) {
	specs, err := Specs(reg, exec, f, target)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return BuildEach(specs, build)
}

// BuildEach returns build's tool for each of specs, in order (never nil),
// or the first error of build as it is, and no tools.
func BuildEach[T any](specs []*adapter.Spec, build func(*adapter.Spec) (T, error)) ([]T, error) {
	out := make([]T, 0, len(specs))
	for _, s := range specs {
		t, err := build(s)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
