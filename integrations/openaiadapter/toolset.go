package openaiadapter

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/runsync"
)

// Integration names this package's calls and the target of its specs.
const Integration = "openai"

// Options configure a [Toolset]. The zero value is valid.
type Options struct {
	Filter registry.Filter // the registry's tools (Target: openai); others read not_found
	// Strict defines the tools in strict form where they can be ([kit.Define]),
	// a null sent for an optional property read as omitted ([kit.DropOmittedNulls]).
	Strict      bool
	Timeout     time.Duration         // if set, bounds each call, overriding the spec's and executor's
	Render      adapter.RenderOptions // how results read to the model
	Parallelism int                   // calls of one turn run at once; zero: kit.DefaultParallelism
	MaxTurns    int                   // model calls of a [Toolset.Loop], afresh for each Resume; zero: kit.DefaultMaxTurns
}

// Toolset is a registry's tools as OpenAI function tools, defined once by
// [New], and the runner of the model's calls to them (each looked up when
// it runs). It is safe for concurrent use.
type Toolset struct {
	reg    *registry.Registry
	exec   *adapter.Executor
	opts   Options
	defs   []kit.Definition
	issues []kit.Issue
}

// New returns the toolset of reg, its calls run by exec (required: nil is
// an error wrapping [kit.ErrNilExecutor]). opts may be nil.
func New(reg *registry.Registry, exec *adapter.Executor, opts *Options) (*Toolset, error) {
	t := &Toolset{reg: reg, exec: exec, opts: *cmp.Or(opts, &Options{})}
	specs, err := kit.Specs(reg, exec, t.opts.Filter, Integration)
	if err != nil {
		return nil, fmt.Errorf("openaiadapter: %w", err)
	}
	t.opts.Filter = kit.Filter(t.opts.Filter, Integration)
	for _, s := range specs {
		d, is := kit.Define(s, t.opts.Strict)
		t.defs, t.issues = append(t.defs, d), append(t.issues, is...)
	}
	return t, nil
}

// Issues reports what strict mode could not express: a warning for what the
// model no longer sees (the executor enforces it), an error for a non-strict tool.
func (t *Toolset) Issues() []kit.Issue { return t.issues }

// ChatTools returns the tools for ChatCompletionNewParams.Tools.
func (t *Toolset) ChatTools() []openai.ChatCompletionToolUnionParam {
	out := make([]openai.ChatCompletionToolUnionParam, len(t.defs))
	for i, d := range t.defs {
		out[i] = openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: d.Name,
			Description: param.NewOpt(d.Description), Parameters: d.Parameters, Strict: param.NewOpt(d.Strict)})
	}
	return out
}

// ResponseTools returns the tools for ResponseNewParams.Tools.
func (t *Toolset) ResponseTools() []responses.ToolUnionParam {
	out := make([]responses.ToolUnionParam, len(t.defs))
	for i, d := range t.defs {
		out[i] = responses.ToolParamOfFunction(d.Name, d.Parameters, d.Strict) // strict set: the API's default is true
		out[i].OfFunction.Description = param.NewOpt(d.Description)
	}
	return out
}

// call is a model's call: tool, arguments, id, the ticket a resumed call presents.
type call struct{ name, args, id, ticket string }

// outcome is a call's result, the text the model reads (of it, or a payload), its hold.
type outcome struct {
	res  *adapter.Result
	text string
	held *kit.HeldCall
}

func (t *Toolset) do(ctx context.Context, c call) (outcome, error) {
	req := &adapter.Request{Tool: c.name, Args: json.RawMessage(c.args), CallID: c.id, Ticket: c.ticket,
		Integration: Integration, Timeout: t.opts.Timeout}
	spec, err := kit.Resolve(ctx, t.reg, t.exec, t.opts.Filter, req)
	if err == nil {
		req.Spec, req.Args = spec, kit.OmitNull(req.Args)
		if t.opts.Strict {
			req.Args = kit.DropOmittedNulls(req.Args, spec.InputSchema)
		}
		var o outcome
		if o.res, err = t.exec.Do(ctx, req); err == nil {
			o.text = adapter.Render(o.res, &t.opts.Render)
			return o, nil
		}
	}
	o := kit.Triage(err)
	if o.Pending != nil {
		h := kit.HeldOf(o.Pending)
		h.Tool, h.Args, h.CallID = c.name, c.args, c.id // the call as the model made it (call_tool's), which a resume makes again
		return outcome{held: &h, text: kit.TriagePayload(err).Payload}, nil
	}
	return outcome{text: o.Payload}, o.Err
}

// answers runs a turn's calls, Parallelism at once: the answers of those
// decided, the held calls; faults, joined, the error (answered kit.FaultPayload).
func answers[C, A any](ctx context.Context, t *Toolset, calls []C, in func(C) call, answer func(call, outcome) A) (as []A, held []*kit.HeldCall, err error) {
	outs, errs := runsync.Parallel(ctx, cmp.Or(max(t.opts.Parallelism, 0), kit.DefaultParallelism), calls, func(ctx context.Context, _ int, c C) (outcome, error) {
		return t.do(ctx, in(c))
	})
	for i, o := range outs {
		if errs[i] != nil {
			o = outcome{text: kit.FaultPayload(errs[i])}
		}
		if o.held != nil {
			held = append(held, o.held)
		} else {
			as = append(as, answer(in(calls[i]), o))
		}
	}
	return as, held, errors.Join(errs...)
}

func resumed(h *kit.HeldCall) call { return call{h.Tool, h.Args, h.CallID, h.Ticket} }
