package kit

import (
	"errors"
	"fmt"

	"github.com/agentadapter/agentadapter/adapter"
)

// ErrNilSpec reports a constructor given no spec.
var ErrNilSpec = errors.New("nil spec")

// CheckTool checks what every tool constructor checks first, for the
// integration called name: spec and exec are required (errors wrapping
// [ErrNilSpec] and [ErrNilExecutor], prefixed "name: "), and the spec must
// be valid ([adapter.Spec.Check]'s error, as it is: it names the tool).
func CheckTool(name string, spec *adapter.Spec, exec *adapter.Executor) error {
	switch {
	case spec == nil:
		return fmt.Errorf("%s: %w", name, ErrNilSpec)
	case exec == nil:
		return fmt.Errorf("%s: %w", name, ErrNilExecutor)
	}
	return spec.Check()
}
