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
// SDK's runner in one run scope, stops it on a held call ([*Held]) or a fault
// ([*Fault]), and answers made-up tool names not_found. In a runner of one's own
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
	Filter  registry.Filter       // selects the specs of [Tools], for [Integration] whatever its Target; NewTool ignores it
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

// Name returns the spec's name, which the model calls the tool by.
func (t *Tool) Name() string { return t.spec.Name }

// Description returns the spec's description, for the model.
func (t *Tool) Description() string { return t.spec.Description }

// InputSchema returns the spec's input schema ([InputSchema]).
func (t *Tool) InputSchema() anthropic.BetaToolInputSchemaParam { return t.schema }

// Execute runs one call on input. A model-facing failure is an error, which
// the runner hands the model as an is_error result. The runner hands a tool no
// tool_use id: in [Toolset.Run] the call's is found by input (kit.CallIDs), in
// a runner of one's own the executor makes one up (adapter.Request.CallID).
func (t *Tool) Execute(ctx context.Context, input json.RawMessage) ([]anthropic.BetaToolResultBlockParamContentUnion, error) {
	return t.execute(ctx, &adapter.Request{Args: kit.OmitNull(input), CallID: kit.ConversationOf(ctx).IDs().Take(t.spec.Name, input)})
}

// execute runs req; a conversation's held call (its result a placeholder) or fault stops it.
// The handler runs outside the conversation: a runner it starts is its own.
func (t *Tool) execute(ctx context.Context, req *adapter.Request) ([]anthropic.BetaToolResultBlockParamContentUnion, error) {
	c := kit.ConversationOf(ctx)
	req.Spec, req.Integration, req.Native, req.Timeout = t.spec, Integration, t, t.opts.Timeout
	res, err := t.exec.Do(t.runs.Context(kit.WithoutConversation(ctx)), req)
	o := kit.Triage(err)
	if p := o.Pending; p != nil && p.Tool != t.spec.Name { // held through call_tool: hold the call the model made, which Resume makes again
		q := *p
		q.Tool, o.Pending = t.spec.Name, &q
	}
	switch text, failed := c.Stop(o, string(req.Args)); {
	case failed:
		return nil, errors.New(text)
	case text != "":
		return []anthropic.BetaToolResultBlockParamContentUnion{textBlock(text)}, nil
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
	return out, nil
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

// Error says how many calls await approval.
func (h *Held) Error() string {
	return fmt.Sprintf("anthropicadapter: %d calls await approval", len(h.Calls))
}

// Fault is the error of a conversation stopped on a fault, Err (adapter.KindOf
// tells its kind): Held is the conversation so far, the faulted call's result its
// payload, and the calls held in the same turn, for [Toolset.Resume] once the
// fault is dealt with. It is no *Held: approving calls does not end a fault.
type Fault struct {
	Err  error
	Held *Held
}

// Error returns Err's text, after the package's name.
func (f *Fault) Error() string { return "anthropicadapter: " + f.Err.Error() }

// Unwrap returns Err.
func (f *Fault) Unwrap() error { return f.Err }

// stop fails a request after a held call or a fault, cancelling the
// conversation (the SDK retries no request whose context is done).
func stop(c *kit.Conversation, cancel context.CancelFunc) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		if c.Stopped() {
			cancel()
			return nil, context.Canceled
		}
		return next(req)
	}
}

// Run runs a conversation on params to its end and returns the model's last message:
// the SDK's runner (svc.NewToolRunner with opts) calls the tools in one run scope,
// ctx's or a new one. A held call stops it with a [*Held], a fault with a [*Fault].
// A turn calling a tool not in ts is answered here (not_found, recorded), then a new runner goes on.
func (ts *Toolset) Run(ctx context.Context, svc *anthropic.BetaMessageService, params anthropic.BetaToolRunnerParams, opts ...option.RequestOption) (*anthropic.BetaMessage, error) {
	ctx, c := kit.NewConversation(ctx)
	return ts.run(ctx, c, svc, params, opts)
}

func (ts *Toolset) run(ctx context.Context, c *kit.Conversation, svc *anthropic.BetaMessageService, params anthropic.BetaToolRunnerParams, opts []option.RequestOption) (*anthropic.BetaMessage, error) {
	ctx, _ = adapter.WithRun(ctx, nil)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts = append(slices.Clip(opts), option.WithMiddleware(stop(c, cancel)))
	for r := svc.NewToolRunner(ts.list, params, opts...); ; {
		msg, err := r.NextMessage(ctx)
		switch fault := c.Fault(); {
		case fault != nil:
			return nil, &Fault{fault, heldOf(c, r.Messages(), adapter.RunFromContext(ctx))}
		case c.Stopped():
			return nil, heldOf(c, r.Messages(), adapter.RunFromContext(ctx))
		case err != nil:
			return nil, err
		case msg == nil:
			return r.LastMessage(), nil
		}
		if n := params.MaxIterations; n > 0 && n <= r.IterationCount() {
			continue // the runner ends the conversation unanswered
		}
		c.IDs().Reset()
		for _, b := range toolUses(msg) {
			in, _ := json.Marshal(b.AsToolUse().Input) // as the runner hands it to Execute (executeToolUse)
			c.IDs().Add(b.Name, in, b.ID)
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
	uses := toolUses(msg)
	if msg.StopReason != anthropic.BetaStopReasonToolUse || !slices.ContainsFunc(uses, func(b anthropic.BetaContentBlockUnion) bool {
		return ts.tools[b.Name] == nil
	}) {
		return nil, false
	}
	for _, b := range uses {
		if t := ts.tools[b.Name]; t != nil {
			content, err := t.execute(ctx, &adapter.Request{Args: kit.OmitNull(b.Input), CallID: b.ID})
			results = append(results, result(b.ID, content, err))
		} else {
			p := kit.Unknown(ctx, ts.exec, &adapter.Request{Tool: b.Name, Args: b.Input, CallID: b.ID, Integration: Integration})
			results = append(results, result(b.ID, nil, errors.New(p)))
		}
	}
	return results, true
}

// toolUses are the calls of msg the runner answers: those after its last fallback
// block, the others the refused attempt's (betatoolrunner.go unansweredToolCalls).
func toolUses(msg *anthropic.BetaMessage) (uses []anthropic.BetaContentBlockUnion) {
	for _, b := range msg.Content {
		if b.Type == "fallback" {
			uses = nil
		} else if b.Type == "tool_use" {
			uses = append(uses, b)
		}
	}
	return uses
}

// result is a call's tool result as the runner makes it.
func result(id string, content []anthropic.BetaToolResultBlockParamContentUnion, err error) anthropic.BetaContentBlockParamUnion {
	r := anthropic.BetaToolResultBlockParam{ToolUseID: id, Content: content}
	if err != nil {
		r = anthropic.NewBetaToolResultTextBlockParam(id, "Error: "+err.Error(), true)
	}
	return anthropic.BetaContentBlockParamUnion{OfToolResult: &r}
}

// heldOf is conversation c stopped on msgs, its held calls found by their placeholders.
func heldOf(c *kit.Conversation, msgs []anthropic.BetaMessageParam, run *adapter.Run) *Held {
	calls := kit.HeldAmong(c, lastResults(msgs), func(b anthropic.BetaContentBlockParamUnion) (string, string, bool) {
		r := b.OfToolResult
		if r == nil || len(r.Content) != 1 || r.Content[0].OfText == nil {
			return "", "", false
		}
		return r.ToolUseID, r.Content[0].OfText.Text, true
	})
	return &Held{Calls: calls, Messages: msgs, run: run}
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
// then [Toolset.Run] goes on with params, its Messages replaced. A call with no tool in ts
// or no result in held fails Resume before any runs.
func (ts *Toolset) Resume(ctx context.Context, svc *anthropic.BetaMessageService, params anthropic.BetaToolRunnerParams, held *Held, opts ...option.RequestOption) (*anthropic.BetaMessage, error) {
	if held == nil || lastResults(held.Messages) == nil {
		return nil, errors.New("anthropicadapter: Resume needs the *Held of a stopped conversation")
	}
	if adapter.RunFromContext(ctx) == nil && held.run != nil {
		ctx = adapter.ContextWithRun(ctx, held.run)
	}
	ctx, c := kit.NewConversation(ctx)
	results, at := slices.Clone(lastResults(held.Messages)), make([]int, len(held.Calls))
	for k, hc := range held.Calls {
		at[k] = slices.IndexFunc(results, func(b anthropic.BetaContentBlockParamUnion) bool {
			return b.OfToolResult != nil && b.OfToolResult.ToolUseID == hc.CallID
		})
		if at[k] < 0 || ts.tools[hc.Tool] == nil {
			return nil, errors.New("anthropicadapter: Resume: no result or tool for " + hc.String())
		}
	}
	for k, hc := range held.Calls {
		content, err := ts.tools[hc.Tool].execute(ctx, &adapter.Request{Args: []byte(hc.Args), Ticket: hc.Ticket, CallID: hc.CallID})
		results[at[k]] = result(hc.CallID, content, err)
	}
	params.Messages = append(slices.Clone(held.Messages[:len(held.Messages)-1]), anthropic.NewBetaUserMessage(results...))
	return ts.run(ctx, c, svc, params, opts)
}
