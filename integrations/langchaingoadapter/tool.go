package langchaingoadapter

import (
	"context"
	"fmt"
	"time"

	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/tools"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

// Integration names this package's calls ([adapter.Request.Integration]).
const Integration = adapter.TargetLangchaingo

// Options configure [NewTool] and [Tools]. The zero value is valid.
type Options struct {
	// Callbacks, if set, is told of every call ([kit.Observe]): the agents
	// do not pass their handler to tools, so give it here too.
	Callbacks callbacks.Handler
	// Filter selects the registry's tools in [Tools] (Target: langchaingo).
	Filter registry.Filter
	// Timeout, if set, bounds each call, overriding the spec's and executor's.
	Timeout time.Duration
	// Render configures how results read to the model (adapter.Render).
	Render adapter.RenderOptions
}

// Tool is a [tools.Tool] that runs an [adapter.Spec] through an executor.
type Tool struct {
	spec  *adapter.Spec
	desc  string
	calls *kit.TextCaller
}

// NewTool returns a tool for spec, which must be valid ([adapter.Spec.Check]),
// whose calls run through exec (required). opts may be nil.
func NewTool(spec *adapter.Spec, exec *adapter.Executor, opts *Options) (*Tool, error) {
	if err := kit.CheckTool(spec, exec); err != nil {
		return nil, fmt.Errorf("langchaingoadapter: %w", err)
	}
	return &Tool{spec: spec, desc: kit.Description(spec), calls: caller(nil, exec, opts)}, nil
}

// Tools returns a tool for every spec in reg that targets langchaingo and
// matches opts.Filter, by name, running its calls through exec (required).
// opts may be nil. Each call looks its spec up in reg again ([kit.Resolve]):
// a replaced spec is used at once, a removed one answers not_found.
func Tools(reg *registry.Registry, exec *adapter.Executor, opts *Options) ([]tools.Tool, error) {
	c := caller(reg, exec, opts)
	specs, err := kit.Specs(reg, exec, c.Filter, Integration)
	if err != nil {
		return nil, fmt.Errorf("langchaingoadapter: %w", err)
	}
	var out []tools.Tool
	for _, s := range specs {
		out = append(out, &Tool{spec: s, desc: kit.Description(s), calls: c})
	}
	return out, nil
}

func caller(reg *registry.Registry, exec *adapter.Executor, opts *Options) *kit.TextCaller {
	if opts == nil {
		opts = &Options{}
	}
	return &kit.TextCaller{Exec: exec, Registry: reg, Filter: kit.Filter(opts.Filter, Integration),
		Observer: opts.Callbacks, Timeout: opts.Timeout, Options: kit.TextOptions{Render: opts.Render}}
}

// Name returns the spec's name.
func (t *Tool) Name() string { return t.spec.Name }

// Description returns the spec's description followed by a compact line
// describing the input (see [kit.Description]).
func (t *Tool) Description() string { return t.desc }

// Spec returns the spec the tool was built from.
func (t *Tool) Spec() *adapter.Spec { return t.spec }

// Call runs the tool on input, what the agent wrote (see the package
// documentation): a failure the model should read is returned as its
// payload with a nil error; faults are errors. The executor sees input as
// [adapter.Request.Native]; the call counts against the run scope of ctx.
func (t *Tool) Call(ctx context.Context, input string) (string, error) {
	return t.calls.Call(ctx, &adapter.Request{Tool: t.spec.Name, Spec: t.spec, Integration: Integration, Native: input}, input)
}

// Run runs a langchaingo chain, such as an agents.Executor, on input in a
// run scope (ctx's, or a new one with opts), so that run limits and the
// ledger's run id span all the tool calls of the agent run. opts may be nil.
func Run(ctx context.Context, c chains.Chain, input string, opts *adapter.RunOptions) (string, error) {
	ctx, _ = adapter.WithRun(ctx, opts)
	return chains.Run(ctx, c, input)
}
