package genkitadapter

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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
	return newTool(spec, exec, opts, kit.NewTraceRuns("genkit_"), true)
}

// newTool builds the tool (exec nil only for [Definition]).
func newTool(spec *adapter.Spec, exec *adapter.Executor, opts *Options, runs *kit.TraceRuns, dynamic bool) (*Tool, error) {
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
		},
	}
	if dynamic {
		t.desc.Metadata["dynamic"] = true
	}
	return t, nil
}

// Definition returns the definition a [NewTool] of spec hands to models.
func Definition(spec *adapter.Spec) (*ai.ToolDefinition, error) {
	t, err := newTool(spec, nil, nil, nil, true)
	if err != nil {
		return nil, err
	}
	return t.Definition(), nil
}

// Tools returns reg's specs for genkit as unregistered tools (each a *Tool),
// running their calls through exec (required); a name taken on g is
// [ErrNameClash], and no tools. opts may be nil.
func Tools(g *genkit.Genkit, reg *registry.Registry, exec *adapter.Executor, opts *Options) ([]ai.ToolRef, error) {
	return define(g, reg, exec, opts, false)
}

// DefineTools is [Tools] with the tools registered on g, so that prompts
// can name them; a name clash registers nothing.
func DefineTools(g *genkit.Genkit, reg *registry.Registry, exec *adapter.Executor, opts *Options) ([]ai.ToolRef, error) {
	return define(g, reg, exec, opts, true)
}

// define builds reg's tools sharing run scopes; with register, on g.
func define(g *genkit.Genkit, reg *registry.Registry, exec *adapter.Executor, opts *Options, register bool) ([]ai.ToolRef, error) {
	if g == nil {
		return nil, errors.New("genkitadapter: nil *genkit.Genkit")
	}
	opts = cmp.Or(opts, &Options{})
	specs, err := kit.Specs(reg, exec, opts.Filter, Integration)
	if err != nil {
		return nil, fmt.Errorf("genkitadapter: %w", err)
	}
	if err := kit.CheckNames(specs, func(n string) bool { return genkit.LookupTool(g, n) != nil }, ErrNameClash); err != nil {
		return nil, err
	}
	runs := kit.NewTraceRuns("genkit_")
	ts, err := kit.BuildEach(specs, func(s *adapter.Spec) (ai.ToolRef, error) { return newTool(s, exec, opts, runs, !register) })
	for _, t := range ts {
		if register {
			genkit.RegisterAction(g, t.(*Tool))
		}
	}
	return ts, err
}

// Spec returns the tool's spec.
func (t *Tool) Spec() *adapter.Spec { return t.core.Spec }

// Name returns the spec's name.
func (t *Tool) Name() string { return t.core.Spec.Name }

// Definition returns the definition genkit hands to models.
func (t *Tool) Definition() *ai.ToolDefinition {
	d := t.desc
	return &ai.ToolDefinition{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema, Metadata: map[string]any{"multipart": false}}
}

// Register registers the tool in r ([DefineTools] checks for a name clash).
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
	return (&ai.ToolDef[any, any]{}).Respond(toolReq, output, opts) // genkit's, which ignores its tool
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

// run runs the tool: the renderer's text ([kit.TextValue]), media as
// data-URL parts, a held call as genkit's interrupt.
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

// Approval is the interrupt of a call held for approval by a tool of this package.
type Approval struct {
	Part    *ai.Part        // the interrupted tool request, as in the response
	Tool    string          // the tool the model called (call_tool for one found by search; Ticket names the tool it runs)
	Ticket  string          // the ticket to approve or deny (adapter.Deferred.Approve)
	Args    json.RawMessage // the arguments the ticket was issued for
	Message string          // the executor's explanation
}

// Restart returns the part restarting the call with its ticket: approved,
// it runs Args once; denied, it reads approval_denied.
func (a *Approval) Restart() *ai.Part { return restartPart(a.Part, nil) }

// Approvals returns the approval interrupts of resp raised by this
// package's tools, in message order; other interrupts are skipped.
func Approvals(resp *ai.ModelResponse) []*Approval {
	var out []*Approval
	for _, p := range resp.Interrupts() {
		if a := approvalOf(p); a != nil {
			out = append(out, a)
		}
	}
	return out
}

func approvalOf(p *ai.Part) *Approval {
	meta, _ := p.Metadata["interrupt"].(map[string]any)
	h, ok := kit.HeldFromMetadata(meta)
	if r := toolCall(p); r != nil && ok {
		return &Approval{Part: p, Tool: r.Tool, Ticket: h.Ticket, Args: r.Args, Message: h.Message}
	}
	return nil
}

// Resume continues a generation stopped on approvals: decide approves or
// denies each ticket (an error aborts), then the calls restart with resp's
// history and opts (the first call's model and tools). An interrupt of
// another origin is an error, as is resuming twice: genkit fails a
// restarted call that interrupts again, so nothing runs twice.
func Resume(ctx context.Context, g *genkit.Genkit, resp *ai.ModelResponse, decide func(context.Context, *Approval) error, opts ...ai.GenerateOption) (*ai.ModelResponse, error) {
	if resp == nil || resp.FinishReason != ai.FinishReasonInterrupted {
		return nil, errors.New("genkitadapter: Resume needs an interrupted response")
	}
	var restarts []*ai.Part
	for _, p := range resp.Interrupts() {
		a := approvalOf(p)
		if a == nil {
			return nil, fmt.Errorf("genkitadapter: interrupt of tool %q was not raised by genkitadapter; resume it with ai.WithToolResponses or ai.WithToolRestarts", p.ToolRequest.Name)
		}
		if err := decide(ctx, a); err != nil {
			return nil, err
		}
		restarts = append(restarts, a.Restart())
	}
	return genkit.Generate(ctx, g, append(slices.Clip(opts), ai.WithMessages(resp.History()...), ai.WithToolRestarts(restarts...))...)
}

// restartPart is genkit's restart of p, an approval's ticket in the input ([kit.Resume]).
func restartPart(p *ai.Part, opts *ai.RestartOptions) *ai.Part {
	np := (&ai.ToolDef[any, any]{}).Restart(p, opts) // genkit's, which ignores its tool
	if a := approvalOf(p); a != nil {
		if args, err := json.Marshal(np.ToolRequest.Input); err == nil {
			np.ToolRequest.Input = kit.Resume{Ticket: a.Ticket, Ref: p.ToolRequest.Ref, Args: args}.Input()
		}
	}
	return np
}

// UnknownToolsMiddleware returns a model middleware answering requests for
// a tool the generation lacks with the not_found payload, recorded in exec's
// ledger (exec nil panics); requests and answers join the history
// ([kit.AnswerUnknown]), and a turn of them only asks the model again.
func UnknownToolsMiddleware(exec *adapter.Executor) ai.ModelMiddleware {
	if exec == nil {
		panic(errNilExecutor)
	}
	return func(next ai.ModelFunc) ai.ModelFunc {
		return func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (resp *ai.ModelResponse, err error) {
			known := func(n string) bool {
				return slices.ContainsFunc(req.Tools, func(d *ai.ToolDefinition) bool { return d.Name == n })
			}
			rest, answered, err := kit.AskKnown(ctx, exec, known, toolCall, answer, func(ctx context.Context) ([]*ai.Part, bool, error) {
				if resp, err = next(ctx, req, cb); err != nil || resp == nil || resp.Message == nil {
					return nil, false, err
				}
				return resp.Message.Content, true, nil
			}, func(asked, answers []*ai.Part) {
				msg := *resp.Message
				msg.Content = asked
				req.Messages = append(req.Messages, &msg, ai.NewMessage(ai.RoleTool, nil, answers...))
			})
			if answered {
				msg, out := *resp.Message, *resp
				msg.Content, out.Message = rest, &msg
				return &out, nil
			}
			return resp, err
		}
	}
}

func toolCall(p *ai.Part) *adapter.Request {
	if !p.IsToolRequest() {
		return nil
	}
	args, _ := json.Marshal(p.ToolRequest.Input)
	return &adapter.Request{Tool: p.ToolRequest.Name, Args: args, CallID: p.ToolRequest.Ref, Integration: Integration}
}

func answer(p *ai.Part, payload string) *ai.Part {
	return ai.NewToolResponsePart(&ai.ToolResponse{Name: p.ToolRequest.Name, Ref: p.ToolRequest.Ref, Output: json.RawMessage(payload)})
}

// Sampler returns a [kit.Sampler] (for mcpadapter.Sample) that answers MCP
// servers' sampling requests with g's models: the first model hint defined
// in g, else modelName.
func Sampler(g *genkit.Genkit, modelName string) kit.Sampler {
	if g == nil {
		panic("genkitadapter: Sampler with a nil Genkit")
	}
	return func(ctx context.Context, p *kit.SampleRequest) (*kit.SampleResult, error) {
		name := kit.ChooseModel(p, func(h string) bool { return genkit.LookupModel(g, h) != nil }, modelName)
		msgs, err := kit.Messages(p, ai.NewSystemTextMessage, func(r kit.Role, c kit.Part) (*ai.Message, error) {
			part := ai.NewTextPart(c.Text)
			if c.Kind != kit.PartText {
				part = ai.NewMediaPart(c.MIMEType, kit.DataURL(c.MIMEType, c.Data))
			}
			if r == kit.RoleAssistant {
				return ai.NewModelMessage(part), nil
			}
			return ai.NewUserMessage(part), nil
		})
		if err != nil {
			return nil, fmt.Errorf("genkitadapter: %w", err)
		}
		resp, err := genkit.Generate(ctx, g, ai.WithModelName(name), ai.WithMessages(msgs...),
			ai.WithConfig(&ai.GenerationCommonConfig{MaxOutputTokens: int(p.MaxTokens), StopSequences: p.StopSequences, Temperature: p.Temperature}))
		if err != nil {
			return nil, err
		}
		return &kit.SampleResult{Text: resp.Text(), Model: name, StopReason: kit.StopReasonOf(string(resp.FinishReason))}, nil
	}
}
