package genkitadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core/api"
	"github.com/firebase/genkit/go/genkit"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

// Integration is the name this package gives the executor in
// [adapter.Request.Integration].
const Integration = adapter.TargetGenkit

// ErrNameClash reports a spec whose name is already taken by a tool
// registered on the *genkit.Genkit. Genkit resolves a tool by name and
// prefers the registered one, so the spec would silently never run.
var ErrNameClash = errors.New("genkitadapter: a genkit tool of that name is already registered")

// Options configure the tools built by this package. The zero value is
// valid.
type Options struct {
	// Filter selects the registry's specs in [Tools] and [DefineTools]; its
	// Target is always "genkit".
	Filter registry.Filter
	// Timeout bounds each call, overriding the spec's and the executor's
	// timeout; zero leaves theirs.
	Timeout time.Duration
	// Render configures how results read to the model (adapter.Render);
	// the zero value is the default policy.
	Render adapter.RenderOptions
}

var errNilExecutor = fmt.Errorf("genkitadapter: %w", kit.ErrNilExecutor)

// Tool is a spec as a genkit tool. It implements [ai.Tool], so it can be
// passed to ai.WithTools unregistered, or registered with
// genkit.RegisterAction (see [DefineTool]).
//
// Its definition carries the spec's input schema unchanged and no output
// schema. The arguments reach the executor as the JSON genkit holds,
// without genkit's schema normalisation (numbers made float64 or int64,
// null fields dropped) or its second validation of the input.
type Tool struct {
	spec *adapter.Spec
	exec *adapter.Executor
	runs *kit.TraceRuns
	opts Options
	act  *action
}

var _ ai.Tool = (*Tool)(nil)

// NewTool returns spec as an unregistered genkit tool, for ai.WithTools,
// running its calls through exec (required: nil is an error). If a tool of
// the same name is registered on the Genkit instance the call runs with,
// genkit runs that one instead: use [Tools], which checks. opts may be nil.
func NewTool(spec *adapter.Spec, exec *adapter.Executor, opts *Options) (*Tool, error) {
	if exec == nil {
		return nil, errNilExecutor
	}
	return newTool(spec, exec, opts, newRunScopes())
}

// newRunScopes names a run after its genkit trace (see "Run scopes").
func newRunScopes() *kit.TraceRuns { return kit.NewTraceRuns("genkit_") }

// newTool builds the tool; exec is nil only for [Definition].
func newTool(spec *adapter.Spec, exec *adapter.Executor, opts *Options, runs *kit.TraceRuns) (*Tool, error) {
	if spec == nil {
		return nil, errors.New("genkitadapter: nil spec")
	}
	if err := spec.Check(); err != nil {
		return nil, err
	}
	in, err := adapter.SchemaMap(spec.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("genkitadapter: tool %q: input schema: %w", spec.Name, err)
	}
	t := &Tool{spec: spec, exec: exec, runs: runs}
	if opts != nil {
		t.opts = *opts
	}
	t.act = &action{tool: t, desc: api.ActionDesc{
		Type:        api.ActionTypeToolV2,
		Key:         api.KeyFromName(api.ActionTypeToolV2, spec.Name),
		Name:        spec.Name,
		Description: spec.Description,
		InputSchema: in,
		Metadata: map[string]any{
			"type":        api.ActionTypeToolV2,
			"name":        spec.Name,
			"description": spec.Description,
			"tool":        map[string]any{"multipart": false},
			"dynamic":     true,
		},
	}}
	return t, nil
}

// Definition returns the definition genkit hands to models for spec, as a
// tool built by [NewTool] would: the spec's input schema
// unchanged. It runs nothing, so it needs no executor.
func Definition(spec *adapter.Spec) (*ai.ToolDefinition, error) {
	t, err := newTool(spec, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	return t.Definition(), nil
}

// DefineTool registers spec as a tool on g, running its calls through exec
// (required). It fails with [ErrNameClash] if g already has a tool of that
// name. opts may be nil.
func DefineTool(g *genkit.Genkit, spec *adapter.Spec, exec *adapter.Executor, opts *Options) (*Tool, error) {
	ts, err := define(g, []*adapter.Spec{spec}, exec, opts, true)
	if err != nil {
		return nil, err
	}
	return ts[0], nil
}

// Tools returns the registry's specs exported to genkit (see
// adapter.TargetGenkit and Options.Filter) as unregistered tools (each a
// *Tool), in name order, for ai.WithTools. A spec whose name is a tool
// registered on g is reported with [ErrNameClash] and no tools are
// returned. Calls run through exec (required). opts may be nil.
func Tools(g *genkit.Genkit, reg *registry.Registry, exec *adapter.Executor, opts *Options) ([]ai.ToolRef, error) {
	return build(g, reg, exec, opts, false)
}

// DefineTools registers the registry's specs exported to genkit on g, so
// that prompts and ai.WithTools can name them, and returns them (each a
// *Tool) in name order. A name clash registers nothing. Calls run through
// exec (required). opts may be nil.
func DefineTools(g *genkit.Genkit, reg *registry.Registry, exec *adapter.Executor, opts *Options) ([]ai.ToolRef, error) {
	return build(g, reg, exec, opts, true)
}

func build(g *genkit.Genkit, reg *registry.Registry, exec *adapter.Executor, opts *Options, register bool) ([]ai.ToolRef, error) {
	var f registry.Filter
	if opts != nil {
		f = opts.Filter
	}
	specs, err := kit.Specs(reg, exec, f, adapter.TargetGenkit)
	if err != nil {
		return nil, fmt.Errorf("genkitadapter: %w", err)
	}
	ts, err := define(g, specs, exec, opts, register)
	if err != nil {
		return nil, err
	}
	refs := make([]ai.ToolRef, len(ts))
	for i, t := range ts {
		refs[i] = t
	}
	return refs, nil
}

// define builds the tools of specs, which share their run scopes (those
// of one agent), and registers them on g if register is set.
func define(g *genkit.Genkit, specs []*adapter.Spec, exec *adapter.Executor, opts *Options, register bool) ([]*Tool, error) {
	if g == nil {
		return nil, errors.New("genkitadapter: nil *genkit.Genkit")
	}
	if exec == nil {
		return nil, errNilExecutor
	}
	if err := kit.CheckNames(specs, func(n string) bool { return genkit.LookupTool(g, n) != nil }, ErrNameClash); err != nil {
		return nil, err
	}
	ts := make([]*Tool, len(specs))
	runs := newRunScopes()
	for i, s := range specs {
		t, err := newTool(s, exec, opts, runs)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	for _, t := range ts {
		if register { // a registered tool is not "dynamic"
			delete(t.act.desc.Metadata, "dynamic")
			genkit.RegisterAction(g, t)
		}
	}
	return ts, nil
}

// Spec returns the tool's spec.
func (t *Tool) Spec() *adapter.Spec { return t.spec }

// Name returns the tool's name.
func (t *Tool) Name() string { return t.spec.Name }

// Definition returns the definition genkit hands to models: the spec's
// input schema unchanged.
func (t *Tool) Definition() *ai.ToolDefinition {
	d := &t.act.desc
	return &ai.ToolDefinition{
		Name:        d.Name,
		Description: d.Description,
		InputSchema: d.InputSchema,
		Metadata:    map[string]any{"multipart": false},
	}
}

// Register registers the tool's action in r, as genkit.RegisterAction does.
// Prefer [DefineTool], which checks for name clashes first.
func (t *Tool) Register(r api.Registry) {
	provider, id := api.ParseName(t.spec.Name)
	r.RegisterAction(api.NewKey(api.ActionTypeToolV2, provider, id), t.act)
	// Genkit looks tools up under the legacy "tool" type too.
	r.RegisterAction(api.NewKey(api.ActionTypeTool, provider, id), t.act)
}

// RunRaw runs the tool on input (any JSON-marshalable value) and returns its
// output.
func (t *Tool) RunRaw(ctx context.Context, input any) (any, error) {
	r, err := t.RunRawMultipart(ctx, input)
	if err != nil {
		return nil, err
	}
	return r.Output, nil
}

// RunRawMultipart runs the tool on input and returns its output and any
// media the result carries.
func (t *Tool) RunRawMultipart(ctx context.Context, input any) (*ai.MultipartToolResponse, error) {
	b, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("genkitadapter: tool %q: input does not marshal: %w", t.spec.Name, err)
	}
	out, err := t.call(ctx, b)
	if err != nil {
		return nil, err
	}
	var r ai.MultipartToolResponse
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("genkitadapter: tool %q: %w", t.spec.Name, err)
	}
	return &r, nil
}

// Respond returns a part answering an interrupted request of this tool with
// output, for ai.WithToolResponses; the tool does not run.
func (t *Tool) Respond(toolReq *ai.Part, output any, opts *ai.RespondOptions) *ai.Part {
	return genkitTool.Respond(toolReq, output, opts)
}

// Restart returns a part that runs an interrupted request of this tool
// again, for ai.WithToolRestarts. When the interrupt was an approval, the
// restarted call presents its ticket, so only the arguments the ticket was
// issued for run: with opts.ReplaceInput set to other arguments the call is
// denied (the model reads approval_denied).
func (t *Tool) Restart(toolReq *ai.Part, opts *ai.RestartOptions) *ai.Part {
	return restartPart(toolReq, opts)
}

// action is the genkit action behind a Tool, hand-written so that the raw
// JSON genkit marshals reaches the executor as is.
type action struct {
	tool *Tool
	desc api.ActionDesc
}

func (a *action) Name() string            { return a.desc.Name }
func (a *action) Desc() api.ActionDesc    { return a.desc }
func (a *action) Register(r api.Registry) { a.tool.Register(r) }

func (a *action) RunJSON(ctx context.Context, input json.RawMessage, _ func(context.Context, json.RawMessage) error) (json.RawMessage, error) {
	return a.tool.call(ctx, input)
}

func (a *action) RunJSONWithTelemetry(ctx context.Context, input json.RawMessage, _ func(context.Context, json.RawMessage) error) (*api.ActionRunResult[json.RawMessage], error) {
	out, err := a.tool.call(ctx, input)
	if err != nil {
		return nil, err
	}
	sc := trace.SpanContextFromContext(ctx)
	return &api.ActionRunResult[json.RawMessage]{Result: out, TraceId: sc.TraceID().String(), SpanId: sc.SpanID().String()}, nil
}

// call runs one call, its result as a genkit MultipartToolResponse.
func (t *Tool) call(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	req := &adapter.Request{Spec: t.spec, Args: input, Integration: Integration, Native: t, Timeout: t.opts.Timeout}
	kit.ApplyResume(req)
	req.Args = kit.OmitNull(req.Args) // genkit marshals a missing input as null
	ctx = t.runs.Context(ctx)
	parts, pending, err := kit.CallParts(ctx, t.exec, req, &t.opts.Render)
	if pending != nil {
		return nil, approvalInterrupt(ctx, pending)
	}
	if err != nil {
		return nil, err
	}
	var r struct {
		Output  any        `json:"output"`
		Content []*ai.Part `json:"content,omitempty"`
	}
	r.Output = kit.TextValue(adapter.PartsText(parts))
	for _, p := range parts {
		if p.Media != nil {
			r.Content = append(r.Content, ai.NewMediaPart(p.Media.MIMEType, kit.DataURL(p.Media.MIMEType, p.Media.Data)))
		}
	}
	return kit.Marshal(r) // no HTML escaping: genkit hands on the text the renderer wrote
}
