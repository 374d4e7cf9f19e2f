package adapter

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Limits bound the tool calls of one run. Zero fields mean no limit.
type Limits struct {
	// MaxCalls bounds the calls of the run.
	MaxCalls int
	// MaxCallsPerTool bounds the calls of each tool in the run.
	MaxCallsPerTool int
	// MaxCallsPerWindow bounds the calls of the run within any Window.
	MaxCallsPerWindow int
	// Window is the sliding window of MaxCallsPerWindow.
	Window time.Duration
}

func (l Limits) isZero() bool { return l == Limits{} }

// Validate reports limits that cannot apply: negative bounds, or a window
// without a bound (or a bound without a window). A silently ignored limit
// is worse than none.
func (l Limits) Validate() error {
	switch {
	case l.MaxCalls < 0 || l.MaxCallsPerTool < 0 || l.MaxCallsPerWindow < 0 || l.Window < 0:
		return fmt.Errorf("adapter: limits %+v: bounds must not be negative", l)
	case l.MaxCallsPerWindow > 0 && l.Window == 0:
		return fmt.Errorf("adapter: limits: MaxCallsPerWindow %d needs a Window", l.MaxCallsPerWindow)
	case l.Window > 0 && l.MaxCallsPerWindow == 0:
		return fmt.Errorf("adapter: limits: Window %v needs MaxCallsPerWindow", l.Window)
	}
	return nil
}

// maxImplicitRuns bounds the implicit runs an executor keeps; beyond it an
// arbitrary one is forgotten (its caller starts counting anew).
const maxImplicitRuns = 10_000

// implicitRuns are the runs of calls made outside any run, one per subject.
type implicitRuns struct {
	mu   sync.Mutex
	runs map[string]*Run
}

func (ir *implicitRuns) run(c *ToolCall) *Run {
	subject := ""
	if c.Identity != nil {
		subject = c.Identity.Subject
	}
	ir.mu.Lock()
	defer ir.mu.Unlock()
	if r, ok := ir.runs[subject]; ok {
		return r
	}
	if ir.runs == nil {
		ir.runs = map[string]*Run{}
	}
	if len(ir.runs) >= maxImplicitRuns {
		for k := range ir.runs {
			delete(ir.runs, k)
			break
		}
	}
	r := NewRun(&RunOptions{ID: newID("run_implicit_")})
	ir.runs[subject] = r
	return r
}

// RunOptions configure a run scope. The zero value is valid.
type RunOptions struct {
	// ID names the run; empty means a random id.
	ID string
	// Limits, if non-zero, replace the executor's default limits for this run.
	Limits Limits
}

// Run is a scope of related tool calls, typically one agent run. The
// integrations open one per agent invocation; run limits and the ledger's
// run id come from it.
type Run struct {
	id     string
	limits Limits

	calls   atomic.Int64
	mu      sync.Mutex
	perTool map[string]int
	window  []time.Time // call times within the window, oldest first
}

type runKey struct{}

// WithRun opens a run scope on ctx. opts may be nil. If ctx already carries
// a run, it is returned unchanged: nested integrations share the outer run.
func WithRun(ctx context.Context, opts *RunOptions) (context.Context, *Run) {
	if r := RunFromContext(ctx); r != nil {
		return ctx, r
	}
	r := NewRun(opts)
	return context.WithValue(ctx, runKey{}, r), r
}

// NewRun returns a run scope not yet attached to a context; most callers
// want [WithRun].
func NewRun(opts *RunOptions) *Run {
	if opts == nil {
		opts = &RunOptions{}
	}
	if err := opts.Limits.Validate(); err != nil {
		panic(err.Error())
	}
	id := opts.ID
	if id == "" {
		id = newID("run_")
	}
	return &Run{id: id, limits: opts.Limits, perTool: map[string]int{}}
}

// ContextWithRun attaches r to ctx, replacing any run it carries.
func ContextWithRun(ctx context.Context, r *Run) context.Context {
	return context.WithValue(ctx, runKey{}, r)
}

// RunFromContext returns the run scope of ctx, or nil.
func RunFromContext(ctx context.Context) *Run {
	r, _ := ctx.Value(runKey{}).(*Run)
	return r
}

// ID returns the run's id.
func (r *Run) ID() string { return r.id }

// Calls returns the number of calls admitted in the run.
func (r *Run) Calls() int { return int(r.calls.Load()) }

// admit counts a call of tool against the limits, or returns a
// run_limit_exceeded error without counting it.
func (r *Run) admit(tool string, def Limits, now time.Time) error {
	l := r.limits
	if l.isZero() {
		l = def
	}
	if l.isZero() {
		r.calls.Add(1)
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if l.MaxCalls > 0 && int(r.calls.Load()) >= l.MaxCalls {
		return &Error{Kind: KindRunLimitExceeded, Message: fmt.Sprintf("this run may make at most %d tool calls", l.MaxCalls)}
	}
	if l.MaxCallsPerTool > 0 && r.perTool[tool] >= l.MaxCallsPerTool {
		return &Error{Kind: KindRunLimitExceeded, Message: fmt.Sprintf("this run may call %s at most %d times", tool, l.MaxCallsPerTool)}
	}
	if l.MaxCallsPerWindow > 0 && l.Window > 0 {
		cut := now.Add(-l.Window)
		i := 0
		for i < len(r.window) && !r.window[i].After(cut) {
			i++
		}
		r.window = r.window[i:]
		if len(r.window) >= l.MaxCallsPerWindow {
			return &Error{Kind: KindRunLimitExceeded, Message: fmt.Sprintf("this run may make at most %d tool calls per %s", l.MaxCallsPerWindow, l.Window)}
		}
		r.window = append(r.window, now)
	}
	r.calls.Add(1)
	r.perTool[tool]++
	return nil
}

func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
