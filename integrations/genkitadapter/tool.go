package genkitadapter

import (
	"cmp"
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

// Integration names this package's calls ([adapter.Request.Integration]).
const Integration = adapter.TargetGenkit

// ErrNameClash reports a spec named like a tool registered on the
// *genkit.Genkit, which genkit would run instead.
var ErrNameClash = errors.New("genkitadapter: a genkit tool of that name is already registered")

// Options configure the tools of this package. The zero value is valid.
type Options struct {
	// Filter selects the registry's specs in [Tools] and [DefineTools] (Target: genkit).
	Filter registry.Filter
	// Timeout, if set, bounds each call, overriding the spec's and executor's.
	Timeout time.Duration
	// Render configures how results read to the model (adapter.Render).
	Render adapter.RenderOptions
}

var errNilExecutor = fmt.Errorf("genkitadapter: %w", kit.ErrNilExecutor)

// Tool is a spec as an [ai.Tool] with the spec's input schema unchanged; its
// arguments reach the executor as genkit holds them, unnormalised.
type Tool struct {
	core kit.RawTool
	desc api.ActionDesc
}

var (
	_ ai.Tool    = (*Tool)(nil)
	_ api.Action = (*Tool)(nil)
)

// NewTool returns spec as an unregistered tool running its calls through
// exec (required); a registered tool of its name would run instead. opts
// may be nil.
func NewTool(spec *adapter.Spec, exec *adapter.Executor, opts *Options) (*Tool, error) {
	if exec == nil {
		return nil, errNilExecutor
	}
	return newTool(spec, exec, opts, kit.NewTraceRuns("genkit_"))
}

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
	opts = cmp.Or(opts, &Options{})
	t := &Tool{core: kit.RawTool{Spec: spec, Exec: exec, Integration: Integration, Timeout: opts.Timeout, Render: opts.Render, Runs: runs}}
	t.core.Native = t
	t.desc = api.ActionDesc{
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
	}
	return t, nil
}

// Definition returns the definition a [NewTool] of spec hands to models.
func Definition(spec *adapter.Spec) (*ai.ToolDefinition, error) {
	t, err := newTool(spec, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	return t.Definition(), nil
}

// DefineTool registers spec as a tool on g, running its calls through exec
// (required); a name taken on g is [ErrNameClash]. opts may be nil.
func DefineTool(g *genkit.Genkit, spec *adapter.Spec, exec *adapter.Executor, opts *Options) (*Tool, error) {
	ts, err := define(g, nil, []*adapter.Spec{spec}, exec, opts, true)
	if err != nil {
		return nil, err
	}
	return ts[0].(*Tool), nil
}

// Tools returns reg's specs for genkit as unregistered tools (each a *Tool),
// running their calls through exec (required); a name taken on g is
// [ErrNameClash], and no tools. opts may be nil.
func Tools(g *genkit.Genkit, reg *registry.Registry, exec *adapter.Executor, opts *Options) ([]ai.ToolRef, error) {
	return define(g, reg, nil, exec, opts, false)
}

// DefineTools is [Tools] with the tools registered on g, so that prompts
// can name them; a name clash registers nothing.
func DefineTools(g *genkit.Genkit, reg *registry.Registry, exec *adapter.Executor, opts *Options) ([]ai.ToolRef, error) {
	return define(g, reg, nil, exec, opts, true)
}

// define builds the tools of specs, else of reg's, sharing run scopes;
// with register, on g, once all are built.
func define(g *genkit.Genkit, reg *registry.Registry, specs []*adapter.Spec, exec *adapter.Executor, opts *Options, register bool) ([]ai.ToolRef, error) {
	opts = cmp.Or(opts, &Options{})
	if specs == nil {
		var err error
		if specs, err = kit.Specs(reg, exec, opts.Filter, adapter.TargetGenkit); err != nil {
			return nil, fmt.Errorf("genkitadapter: %w", err)
		}
	}
	if g == nil {
		return nil, errors.New("genkitadapter: nil *genkit.Genkit")
	}
	if exec == nil {
		return nil, errNilExecutor
	}
	if err := kit.CheckNames(specs, func(n string) bool { return genkit.LookupTool(g, n) != nil }, ErrNameClash); err != nil {
		return nil, err
	}
	runs := kit.NewTraceRuns("genkit_")
	ts, err := kit.BuildEach(specs, func(s *adapter.Spec) (*Tool, error) { return newTool(s, exec, opts, runs) })
	if err != nil {
		return nil, err
	}
	refs := make([]ai.ToolRef, len(ts))
	for i, t := range ts {
		if register {
			delete(t.desc.Metadata, "dynamic") // a registered tool is not dynamic
			genkit.RegisterAction(g, t)
		}
		refs[i] = t
	}
	return refs, nil
}

// Spec returns the tool's spec.
func (t *Tool) Spec() *adapter.Spec { return t.core.Spec }

// Name returns the spec's name.
func (t *Tool) Name() string { return t.core.Spec.Name }

// Definition returns the definition genkit hands to models.
func (t *Tool) Definition() *ai.ToolDefinition {
	return &ai.ToolDefinition{
		Name:        t.desc.Name,
		Description: t.desc.Description,
		InputSchema: t.desc.InputSchema,
		Metadata:    map[string]any{"multipart": false},
	}
}

// Register registers the tool in r ([DefineTool] checks for a name clash).
func (t *Tool) Register(r api.Registry) {
	provider, id := api.ParseName(t.Name())
	r.RegisterAction(api.NewKey(api.ActionTypeToolV2, provider, id), t)
	r.RegisterAction(api.NewKey(api.ActionTypeTool, provider, id), t) // genkit's legacy lookup
}

// RunRaw runs the tool on input (a JSON-marshalable value) and returns its output.
func (t *Tool) RunRaw(ctx context.Context, input any) (any, error) {
	r, err := t.RunRawMultipart(ctx, input)
	if err != nil {
		return nil, err
	}
	return r.Output, nil
}

// RunRawMultipart runs the tool on input and returns its output (a
// string, or a JSON value as json.RawMessage) and media.
func (t *Tool) RunRawMultipart(ctx context.Context, input any) (*ai.MultipartToolResponse, error) {
	b, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("genkitadapter: tool %q: input does not marshal: %w", t.Name(), err)
	}
	return t.run(ctx, b)
}

// Respond returns a part answering an interrupted request with output.
func (t *Tool) Respond(toolReq *ai.Part, output any, opts *ai.RespondOptions) *ai.Part {
	return genkitTool.Respond(toolReq, output, opts)
}

// Restart returns a part restarting an interrupted request; an approval's
// presents its ticket, so other arguments (ReplaceInput) read approval_denied.
func (t *Tool) Restart(toolReq *ai.Part, opts *ai.RestartOptions) *ai.Part {
	return restartPart(toolReq, opts)
}

// Desc returns the tool's genkit action descriptor.
func (t *Tool) Desc() api.ActionDesc { return t.desc }

// RunJSONWithTelemetry is [Tool.RunJSON] with the span of ctx (api.Action).
func (t *Tool) RunJSONWithTelemetry(ctx context.Context, input json.RawMessage, _ func(context.Context, json.RawMessage) error) (*api.ActionRunResult[json.RawMessage], error) {
	out, err := t.RunJSON(ctx, input, nil)
	if err != nil {
		return nil, err
	}
	sc := trace.SpanContextFromContext(ctx)
	return &api.ActionRunResult[json.RawMessage]{Result: out, TraceId: sc.TraceID().String(), SpanId: sc.SpanID().String()}, nil
}

// RunJSON runs the tool on input as genkit holds it, unnormalised, and
// returns its output as a genkit MultipartToolResponse (api.Action).
func (t *Tool) RunJSON(ctx context.Context, input json.RawMessage, _ func(context.Context, json.RawMessage) error) (json.RawMessage, error) {
	r, err := t.run(ctx, input)
	if err != nil {
		return nil, err
	}
	return kit.Marshal(r) // no HTML escaping: the text the renderer wrote
}

// run runs the tool: its output the renderer's text ([kit.TextValue]),
// media as data-URL parts, a held call genkit's interrupt.
func (t *Tool) run(ctx context.Context, input json.RawMessage) (*ai.MultipartToolResponse, error) {
	parts, held, err := t.core.Call(ctx, input)
	if held != nil {
		return nil, (&ai.ToolContext{Context: ctx}).Interrupt(&ai.InterruptOptions{Metadata: held.Metadata()})
	} else if err != nil {
		return nil, err
	}
	media := kit.MapParts(parts, nil, func(m *adapter.Media) (*ai.Part, bool) {
		return ai.NewMediaPart(m.MIMEType, kit.DataURL(m.MIMEType, m.Data)), true
	})
	return &ai.MultipartToolResponse{Output: kit.TextValue(adapter.PartsText(parts)), Content: media}, nil
}
