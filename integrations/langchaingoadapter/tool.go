package langchaingoadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/tools"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

// Integration is the name this package gives the executor for its calls
// ([adapter.Request.Integration]).
const Integration = adapter.TargetLangchaingo

// Options configure the tools built by [NewTool] and [Tools]. The zero
// value is valid.
type Options struct {
	// Callbacks, if set, receives HandleToolStart before each call and then
	// exactly one of HandleToolEnd (the tool's output) or HandleToolError
	// (for every failure, including those returned to the model as a
	// payload). langchaingo's agents do not pass their handler to tools:
	// give the same handler here and to agents.WithCallbacksHandler.
	Callbacks callbacks.Handler
	// Filter selects the registry's tools in [Tools]; its Target is always
	// langchaingo.
	Filter registry.Filter
	// Timeout bounds each call, overriding the spec's and the executor's
	// timeout; zero leaves theirs.
	Timeout time.Duration
	// Render configures how results read to the model (adapter.Render);
	// the zero value is the default policy.
	Render adapter.RenderOptions
}

var errNilExecutor = fmt.Errorf("langchaingoadapter: %w", kit.ErrNilExecutor)

// Tool is a langchaingo [tools.Tool] that runs an [adapter.Spec] through an
// [adapter.Executor].
type Tool struct {
	spec   *adapter.Spec
	exec   *adapter.Executor
	reg    *registry.Registry // non-nil: look the spec up at call time
	f      registry.Filter    // with reg: the spec must still match it
	opts   Options
	desc   string
	shapes kit.Shapes
}

var _ tools.Tool = (*Tool)(nil)

// NewTool returns a tool for spec whose calls run through exec (required:
// nil is an error). opts may be nil. It fails if the spec is invalid (see
// [adapter.Spec.Check]).
func NewTool(spec *adapter.Spec, exec *adapter.Executor, opts *Options) (*Tool, error) {
	if spec == nil {
		return nil, errors.New("langchaingoadapter: nil spec")
	}
	if exec == nil {
		return nil, errNilExecutor
	}
	if err := spec.Check(); err != nil {
		return nil, err
	}
	return newTool(spec, nil, exec, opts), nil
}

func newTool(spec *adapter.Spec, reg *registry.Registry, exec *adapter.Executor, opts *Options) *Tool {
	t := &Tool{spec: spec, reg: reg, exec: exec}
	if opts != nil {
		t.opts = *opts
	}
	t.desc = kit.Description(spec)
	return t
}

// Tools returns a tool for every spec in reg that targets langchaingo and
// matches opts.Filter, ordered by name, each running its calls through
// exec (required). opts may be nil. Each call looks its spec up in reg
// again, so a replaced spec (an MCP server that reconnected) is used at
// once and a removed one answers not_found.
func Tools(reg *registry.Registry, exec *adapter.Executor, opts *Options) ([]tools.Tool, error) {
	f := filter(opts)
	specs, err := kit.Specs(reg, exec, f, adapter.TargetLangchaingo)
	if err != nil {
		return nil, fmt.Errorf("langchaingoadapter: %w", err)
	}
	var out []tools.Tool
	for _, s := range specs {
		t := newTool(s, reg, exec, opts)
		t.f = f
		out = append(out, t)
	}
	return out, nil
}

func filter(opts *Options) registry.Filter {
	var f registry.Filter
	if opts != nil {
		f = opts.Filter
	}
	return kit.Filter(f, adapter.TargetLangchaingo)
}

// Name returns the spec's name.
func (t *Tool) Name() string { return t.spec.Name }

// Description returns the spec's description followed by a compact line
// describing the input (see [kit.Description]).
func (t *Tool) Description() string { return t.desc }

// Spec returns the spec the tool was built from.
func (t *Tool) Spec() *adapter.Spec { return t.spec }

// Call runs the tool on input, what the agent wrote (see the package
// documentation). A failure the model should read is returned as its
// payload with a nil error, so that the agent goes on; connection and
// internal faults are errors. The executor sees Integration "langchaingo"
// and input as [adapter.Request.Native]; the call counts against the run
// scope of ctx (see [Run]).
func (t *Tool) Call(ctx context.Context, input string) (string, error) {
	return observe(ctx, t.opts.Callbacks, input, func() (string, error) {
		spec := t.spec
		if t.reg != nil {
			// Removed since the agent was built: a record like any call.
			s, err := kit.Resolve(ctx, t.reg, t.exec, t.f, &adapter.Request{Tool: spec.Name, Args: json.RawMessage(input), Integration: Integration})
			if err != nil {
				return "", err
			}
			spec = s
		}
		req := &adapter.Request{Spec: spec, Integration: Integration, Native: input, Timeout: t.opts.Timeout}
		return kit.CallText(ctx, t.exec, req, input, t.shapes.Of(spec.InputSchema), &kit.TextOptions{Render: t.opts.Render})
	})
}

// observe runs a call, telling cb (if set) of its start and end, and
// returns a model-facing failure as its payload.
func observe(ctx context.Context, cb callbacks.Handler, input string, run func() (string, error)) (string, error) {
	if cb != nil {
		cb.HandleToolStart(ctx, input)
	}
	out, err := run()
	if err != nil {
		if cb != nil {
			cb.HandleToolError(ctx, err)
		}
		o := kit.TriagePayload(err)
		return o.Payload, o.Err
	}
	if cb != nil {
		cb.HandleToolEnd(ctx, out)
	}
	return out, nil
}

// Run runs a langchaingo chain, such as an agents.Executor, on input in a
// run scope (ctx's, or a new one with opts), so that run limits and the
// ledger's run id span all the tool calls of the agent run. opts may be nil.
func Run(ctx context.Context, c chains.Chain, input string, opts *adapter.RunOptions) (string, error) {
	ctx, _ = adapter.WithRun(ctx, opts)
	return chains.Run(ctx, c, input)
}
