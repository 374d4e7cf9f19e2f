// Package anthropicadapter runs agentadapter tools in the tool runner of the
// Anthropic Go SDK (anthropic-sdk-go/v2), every call through an [adapter.Executor].
//
//	tools, err := anthropicadapter.Tools(reg, exec, nil)
//	client := anthropic.NewClient() // ANTHROPIC_API_KEY
//	params := anthropic.BetaToolRunnerParams{BetaMessageNewParams: anthropic.BetaMessageNewParams{
//		Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024,
//		Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("What is 2+3?"))}}}
//	msg, err := tools.Run(ctx, &client.Beta.Messages, params)
//	if held := (*anthropicadapter.Held)(nil); errors.As(err, &held) { // decide held.Calls' tickets, then
//		msg, err = tools.Resume(ctx, &client.Beta.Messages, params, held)
//	}
//
// The model reads a result as adapter.RenderParts gives it (images as image
// blocks, audio as the renderer's text), a model-facing failure as an is_error
// result: "Error: " and its payload ([kit.Triage]). [Toolset.Run] drives the
// SDK's runner in one run scope, stops it on a held call ([*Held]) or a fault,
// and answers made-up tool names not_found. In a runner of one's own
// ([Toolset.BetaTools]) a held call and a fault read as payloads.
package anthropicadapter

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

// Integration names this package's calls (adapter.Request.Integration) and
// the spec target [Tools] exports (adapter.Spec.Targets).
const Integration = "anthropic"

// Options configure [NewTool] and [Tools]. The zero value is valid.
type Options struct {
	Filter  registry.Filter       // the specs of [Tools]; its Target is always [Integration]
	Timeout time.Duration         // if set, bounds each call, overriding the spec's and the executor's
	Render  adapter.RenderOptions // what the model reads (adapter.RenderParts)
}

// Tool is a spec as an [anthropic.BetaTool], every call through the executor.
type Tool struct {
	spec   *adapter.Spec
	exec   *adapter.Executor
	opts   Options
	runs   *kit.TraceRuns
	schema anthropic.BetaToolInputSchemaParam
}

// NewTool returns spec as a tool running its calls through exec (required);
// a call outside a run scope has its trace's ([kit.TraceRuns]). opts may be nil.
func NewTool(spec *adapter.Spec, exec *adapter.Executor, opts *Options) (*Tool, error) {
	if err := kit.CheckTool(spec, exec); err != nil {
		return nil, fmt.Errorf("anthropicadapter: %w", err)
	}
	s, err := InputSchema(spec)
	if err != nil {
		return nil, err
	}
	return &Tool{spec: spec, exec: exec, opts: *cmp.Or(opts, &Options{}), runs: kit.NewTraceRuns("anthropic_"), schema: s}, nil
}

// InputSchema returns spec's input schema as the SDK's type, every keyword
// kept: those it has no field for in ExtraFields, which it marshals inline.
func InputSchema(spec *adapter.Spec) (s anthropic.BetaToolInputSchemaParam, err error) {
	b, err := json.Marshal(spec.InputSchema)
	if err = cmp.Or(err, json.Unmarshal(b, &s)); err != nil {
		err = fmt.Errorf("anthropicadapter: tool %q: input schema: %w", spec.Name, err)
	}
	return s, err
}

// Name, Description and InputSchema describe the spec to the model ([InputSchema]).
func (t *Tool) Name() string                                    { return t.spec.Name }
func (t *Tool) Description() string                             { return t.spec.Description }
func (t *Tool) InputSchema() anthropic.BetaToolInputSchemaParam { return t.schema }

// Execute runs one call on input. A model-facing failure is an error, which
// the runner hands the model as an is_error result.
func (t *Tool) Execute(ctx context.Context, input json.RawMessage) ([]anthropic.BetaToolResultBlockParamContentUnion, error) {
	return t.execute(ctx, &adapter.Request{Args: kit.OmitNull(input)})
}

// execute runs req; a conversation's held call (its result a placeholder) or fault stops it.
func (t *Tool) execute(ctx context.Context, req *adapter.Request) ([]anthropic.BetaToolResultBlockParamContentUnion, error) {
	blocks, o := t.call(ctx, req)
	switch c := convOf(ctx); {
	case o.Pending != nil && c != nil:
		h, p := kit.HeldOf(o.Pending), kit.TriagePayload(o.Pending).Payload
		h.Args = string(req.Args)
		c.update(func() { c.held[p] = h })
		return []anthropic.BetaToolResultBlockParamContentUnion{textBlock(p)}, nil
	case o.Pending != nil:
		return nil, errors.New(kit.TriagePayload(o.Pending).Payload)
	case o.Err != nil && c != nil:
		c.update(func() { c.fault = cmp.Or[error](c.fault, o.Err) })
		fallthrough
	case o.Err != nil:
		return nil, errors.New(kit.FaultPayload(o.Err))
	case o.Payload != "":
		return nil, errors.New(o.Payload)
	}
	return blocks, nil
}

func (t *Tool) call(ctx context.Context, req *adapter.Request) ([]anthropic.BetaToolResultBlockParamContentUnion, kit.Outcome) {
	req.Spec, req.Integration, req.Native, req.Timeout = t.spec, Integration, t, t.opts.Timeout
	res, err := t.exec.Do(t.runs.Context(ctx), req)
	if err != nil {
		return nil, kit.Triage(err)
	}
	parts := adapter.RenderParts(res, &t.opts.Render)
	out := make([]anthropic.BetaToolResultBlockParamContentUnion, 0, len(parts))
	for _, p := range parts {
		switch m := p.Media; {
		case m == nil && p.Text == "": // the API refuses empty text blocks
		case m == nil:
			out = append(out, textBlock(p.Text))
		case m.Kind == adapter.MediaImage && slices.Contains(imageTypes, m.MIMEType):
			out = append(out, anthropic.BetaToolResultBlockParamContentUnion{OfImage: anthropic.NewBetaImageBlock(image(m.MIMEType, m.Data)).OfImage})
		default: // media the API does not take
			out = append(out, textBlock(adapter.Render(&adapter.Result{Content: []adapter.Content{p.Content}}, &t.opts.Render)))
		}
	}
	return out, kit.Outcome{}
}

// imageTypes are the image types the API takes.
var imageTypes = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}

func image(mime string, data []byte) anthropic.BetaBase64ImageSourceParam {
	return anthropic.BetaBase64ImageSourceParam{Data: base64.StdEncoding.EncodeToString(data), MediaType: anthropic.BetaBase64ImageSourceMediaType(mime)}
}

func textBlock(s string) anthropic.BetaToolResultBlockParamContentUnion {
	return anthropic.BetaToolResultBlockParamContentUnion{OfText: &anthropic.BetaTextBlockParam{Text: s}}
}

// Toolset is the tools of a registry on one executor, and the conversations
// that run them ([Toolset.Run]).
type Toolset struct {
	tools map[string]*Tool
	list  []anthropic.BetaTool
	exec  *adapter.Executor
}

// Tools returns the specs of reg exported to [Integration] and matching
// opts.Filter as tools running through exec (required), in the registry's
// order, sharing trace run scopes. opts may be nil.
func Tools(reg *registry.Registry, exec *adapter.Executor, opts *Options) (*Toolset, error) {
	opts, runs := cmp.Or(opts, &Options{}), kit.NewTraceRuns("anthropic_")
	ts := &Toolset{tools: map[string]*Tool{}, exec: exec}
	var err error
	ts.list, err = kit.BuildTools("anthropicadapter", reg, exec, opts.Filter, Integration, func(s *adapter.Spec) (anthropic.BetaTool, error) {
		t, err := NewTool(s, exec, opts)
		if err == nil {
			t.runs, ts.tools[s.Name] = runs, t
		}
		return t, err
	})
	return ts, err
}

// BetaTools returns the tools, for a runner of one's own.
func (ts *Toolset) BetaTools() []anthropic.BetaTool { return slices.Clone(ts.list) }

// DefaultSampleTokens bounds a sampled reply that sets no limit (the API requires one).
const DefaultSampleTokens = 1024

// Sampler returns a [kit.Sampler] (for mcpadapter.Sample) answering MCP
// servers' sampling requests with svc and opts, in the first of the
// server's model hints among model and others, else model. The API takes
// no temperature: a request's is ignored. svc must not be nil.
func Sampler(svc *anthropic.BetaMessageService, model anthropic.Model, others []anthropic.Model, opts ...option.RequestOption) kit.Sampler {
	if svc == nil {
		panic("anthropicadapter: Sampler with a nil message service")
	}
	models := append([]anthropic.Model{model}, others...)
	return func(ctx context.Context, p *kit.SampleRequest) (*kit.SampleResult, error) {
		msgs, err := kit.Messages(p, nil, message)
		if err != nil {
			return nil, fmt.Errorf("anthropicadapter: %w", err)
		}
		name := kit.ChooseModel(p, func(h string) bool { return slices.Contains(models, anthropic.Model(h)) }, string(model))
		params := anthropic.BetaMessageNewParams{Model: anthropic.Model(name), Messages: msgs,
			MaxTokens: cmp.Or(p.MaxTokens, DefaultSampleTokens), StopSequences: p.StopSequences}
		if p.SystemPrompt != "" {
			params.System = []anthropic.BetaTextBlockParam{{Text: p.SystemPrompt}}
		}
		out, err := svc.New(ctx, params, opts...)
		if err != nil {
			return nil, err
		}
		var text strings.Builder
		for _, b := range out.Content {
			text.WriteString(b.Text) // empty but in text blocks
		}
		return &kit.SampleResult{Text: text.String(), Model: string(out.Model), StopReason: kit.StopReasonOf(string(out.StopReason))}, nil
	}
}

// message is one sampling message: text, or a user's image.
func message(r kit.Role, c kit.Part) (anthropic.BetaMessageParam, error) {
	b := anthropic.NewBetaTextBlock(c.Text)
	if c.Kind != kit.PartText && (c.Kind != kit.PartImage || r != kit.RoleUser || !slices.Contains(imageTypes, c.MIMEType)) {
		return anthropic.BetaMessageParam{}, fmt.Errorf("the Messages API takes no %s %s of type %q", r, c.Kind, c.MIMEType)
	} else if c.Kind == kit.PartImage {
		b = anthropic.NewBetaImageBlock(image(c.MIMEType, c.Data))
	}
	if r == kit.RoleAssistant {
		return anthropic.BetaMessageParam{OfAssistant: &anthropic.BetaAssistantMessageParam{Content: []anthropic.BetaContentBlockParamUnion{b}}}, nil
	}
	return anthropic.NewBetaUserMessage(b), nil
}

// Held is the error of a conversation stopped on calls held for approval:
// approve or deny each ticket, then [Toolset.Resume] it.
type Held struct {
	Calls    []kit.HeldCall               // in the turn's order, CallID the tool_use id
	Messages []anthropic.BetaMessageParam // so far, the last the turn's results (a held call's a placeholder)
	run      *adapter.Run
}

func (h *Held) Error() string {
	return fmt.Sprintf("anthropicadapter: %d calls await approval", len(h.Calls))
}

type convKey struct{}

// conv is one conversation, which its tools find in their context.
type conv struct {
	mu     sync.Mutex
	held   map[string]kit.HeldCall // by placeholder
	fault  error
	cancel context.CancelFunc
}

func newConv(ctx context.Context) (context.Context, *conv) {
	c := &conv{held: map[string]kit.HeldCall{}}
	return context.WithValue(ctx, convKey{}, c), c
}

func convOf(ctx context.Context) *conv {
	c, _ := ctx.Value(convKey{}).(*conv)
	return c
}

func (c *conv) update(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
}

// middleware fails a request after a held call or a fault (the SDK retries none whose context is done).
func (c *conv) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	var stop bool
	if c.update(func() { stop = len(c.held) > 0 || c.fault != nil }); stop {
		c.cancel()
		return nil, context.Canceled
	}
	return next(req)
}

// Run runs a conversation on params to its end and returns the model's last message:
// the SDK's runner (svc.NewToolRunner with opts) calls the tools in one run scope,
// ctx's or a new one. A held call stops it with a [*Held], a fault with the fault.
// A turn calling a tool not in ts is answered here (not_found, recorded), then a new runner goes on.
func (ts *Toolset) Run(ctx context.Context, svc *anthropic.BetaMessageService, params anthropic.BetaToolRunnerParams, opts ...option.RequestOption) (*anthropic.BetaMessage, error) {
	ctx, c := newConv(ctx)
	return ts.run(ctx, c, svc, params, opts)
}

func (ts *Toolset) run(ctx context.Context, c *conv, svc *anthropic.BetaMessageService, params anthropic.BetaToolRunnerParams, opts []option.RequestOption) (*anthropic.BetaMessage, error) {
	ctx, _ = adapter.WithRun(ctx, nil)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.update(func() { c.cancel = cancel })
	opts = append(slices.Clip(opts), option.WithMiddleware(c.middleware))
	for r := svc.NewToolRunner(ts.list, params, opts...); ; {
		msg, err := r.NextMessage(ctx)
		var held map[string]kit.HeldCall
		var fault error
		c.update(func() { held, fault = c.held, c.fault })
		switch {
		case fault != nil:
			return nil, fault
		case len(held) > 0:
			return nil, heldOf(held, r.Messages(), adapter.RunFromContext(ctx))
		case err != nil:
			return nil, err
		case msg == nil:
			return r.LastMessage(), nil
		}
		if n := params.MaxIterations; n > 0 && n <= r.IterationCount() {
			continue // the runner ends the conversation unanswered
		}
		if results, ok := ts.answer(ctx, msg); ok {
			params.MaxIterations = max(0, params.MaxIterations-r.IterationCount())
			params.Messages = append(r.Messages(), anthropic.NewBetaUserMessage(results...))
			r = svc.NewToolRunner(ts.list, params, opts...)
		}
	}
}

// answer answers a turn calling a tool not in ts (the runner would, with its own text).
func (ts *Toolset) answer(ctx context.Context, msg *anthropic.BetaMessage) (results []anthropic.BetaContentBlockParamUnion, ok bool) {
	if msg.StopReason != anthropic.BetaStopReasonToolUse || !slices.ContainsFunc(msg.Content, func(b anthropic.BetaContentBlockUnion) bool {
		return b.Type == "tool_use" && ts.tools[b.Name] == nil
	}) {
		return nil, false
	}
	for _, b := range msg.Content {
		if t := ts.tools[b.Name]; b.Type == "tool_use" && t != nil {
			content, err := t.Execute(ctx, b.Input)
			results = append(results, result(b.ID, content, err))
		} else if b.Type == "tool_use" {
			p := kit.Unknown(ctx, ts.exec, &adapter.Request{Tool: b.Name, Args: b.Input, CallID: b.ID, Integration: Integration})
			results = append(results, result(b.ID, nil, errors.New(p)))
		}
	}
	return results, true
}

// result is a call's tool result as the runner makes it.
func result(id string, content []anthropic.BetaToolResultBlockParamContentUnion, err error) anthropic.BetaContentBlockParamUnion {
	r := anthropic.BetaToolResultBlockParam{ToolUseID: id, Content: content}
	if err != nil {
		r = anthropic.NewBetaToolResultTextBlockParam(id, "Error: "+err.Error(), true)
	}
	return anthropic.BetaContentBlockParamUnion{OfToolResult: &r}
}

// heldOf finds the held calls' placeholders in the last message of msgs.
func heldOf(held map[string]kit.HeldCall, msgs []anthropic.BetaMessageParam, run *adapter.Run) *Held {
	h := &Held{Messages: msgs, run: run}
	for _, b := range lastResults(msgs) {
		if r := b.OfToolResult; r != nil && len(r.Content) == 1 && r.Content[0].OfText != nil {
			if call, ok := held[r.Content[0].OfText.Text]; ok {
				call.CallID = r.ToolUseID
				h.Calls = append(h.Calls, call)
			}
		}
	}
	return h
}

func lastResults(msgs []anthropic.BetaMessageParam) []anthropic.BetaContentBlockParamUnion {
	if n := len(msgs); n > 0 && msgs[n-1].OfUser != nil {
		return msgs[n-1].OfUser.Content
	}
	return nil
}

// Resume goes on with a held conversation, in its run scope unless ctx has one: each held
// call runs again with its ticket (an approved one runs once, exactly the arguments it was
// issued for; others read approval_denied; a spent or pending one holds the call again),
// then [Toolset.Run] goes on with params, its Messages replaced.
func (ts *Toolset) Resume(ctx context.Context, svc *anthropic.BetaMessageService, params anthropic.BetaToolRunnerParams, held *Held, opts ...option.RequestOption) (*anthropic.BetaMessage, error) {
	if held == nil || lastResults(held.Messages) == nil {
		return nil, errors.New("anthropicadapter: Resume needs the *Held of a stopped conversation")
	}
	if adapter.RunFromContext(ctx) == nil && held.run != nil {
		ctx = adapter.ContextWithRun(ctx, held.run)
	}
	ctx, c := newConv(ctx)
	results := slices.Clone(lastResults(held.Messages))
	for _, hc := range held.Calls {
		i := slices.IndexFunc(results, func(b anthropic.BetaContentBlockParamUnion) bool {
			return b.OfToolResult != nil && b.OfToolResult.ToolUseID == hc.CallID
		})
		t := ts.tools[hc.Tool]
		if i < 0 || t == nil {
			return nil, errors.New("anthropicadapter: Resume: no result or tool for " + hc.String())
		}
		content, err := t.execute(ctx, &adapter.Request{Args: []byte(hc.Args), Ticket: hc.Ticket, CallID: hc.CallID})
		results[i] = result(hc.CallID, content, err)
	}
	params.Messages = append(slices.Clone(held.Messages[:len(held.Messages)-1]), anthropic.NewBetaUserMessage(results...))
	return ts.run(ctx, c, svc, params, opts)
}
