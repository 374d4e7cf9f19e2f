package einoadapter

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

// Integration is the name the tools give the executor (adapter.Request.Integration).
const Integration = adapter.TargetEino

// TagMultimodal marks a spec whose results carry images, audio or files:
// with the default [Options.Multimodal], such a spec becomes a
// [tool.EnhancedInvokableTool].
const TagMultimodal = "multimodal"

// Options configure [Tool] and [Tools]. The zero value is valid.
type Options struct {
	// Multimodal reports whether a spec's tool is a
	// tool.EnhancedInvokableTool (results reach the model as parts). Nil
	// means: the spec has the tag TagMultimodal.
	Multimodal func(*adapter.Spec) bool
	// PendingAsPayload hands the model a held call's payload (with the
	// ticket) instead of interrupting, for graphs with no checkpoint store.
	PendingAsPayload bool
	// Filter selects the specs [Tools] exports; its Target is always eino.
	Filter registry.Filter
	// Timeout bounds each call, overriding the spec's and the executor's;
	// zero leaves theirs. A per-call [WithTimeout] overrides it.
	Timeout time.Duration
	// Render configures the text the model reads (adapter.Render).
	Render adapter.RenderOptions
}

// Tool returns spec as an eino tool that runs each call through exec
// (required: nil is an error, so that no policy is dropped in silence): a
// tool.InvokableTool, a tool.EnhancedInvokableTool when the spec is
// multimodal ([Options.Multimodal]), and for a streaming spec also a
// tool.StreamableTool. Its [schema.ToolInfo] is built once, here. opts may
// be nil.
func Tool(spec *adapter.Spec, exec *adapter.Executor, opts *Options) (tool.BaseTool, error) {
	if opts == nil {
		opts = &Options{}
	}
	if err := kit.CheckTool(spec, exec); err != nil {
		return nil, fmt.Errorf("einoadapter: %w", err)
	}
	info, err := Info(spec)
	if err != nil {
		return nil, err
	}
	b := &base{spec: spec, exec: exec, info: info, opts: *opts}
	switch {
	case opts.Multimodal == nil && spec.HasTag(TagMultimodal), opts.Multimodal != nil && opts.Multimodal(spec):
		return &enhancedTool{b}, nil
	case spec.Streaming:
		return &streamTool{textTool{b}}, nil
	}
	return &textTool{b}, nil
}

// Tools returns the specs of reg exported to eino and matching opts.Filter
// as eino tools ([Tool]), in the registry's order. opts may be nil.
func Tools(reg *registry.Registry, exec *adapter.Executor, opts *Options) ([]tool.BaseTool, error) {
	if opts == nil {
		opts = &Options{}
	}
	return kit.BuildTools("einoadapter", reg, exec, opts.Filter, adapter.TargetEino, func(s *adapter.Spec) (tool.BaseTool, error) {
		return Tool(s, exec, opts)
	})
}

// WithTimeout bounds the calls made with this option, overriding every
// other timeout.
func WithTimeout(d time.Duration) tool.Option {
	return tool.WrapImplSpecificOptFn(func(o *kit.CallOptions) { o.Timeout = d })
}

// WithApproval asks port, not the executor's, to approve these calls.
func WithApproval(port adapter.ApprovalPort) tool.Option {
	return tool.WrapImplSpecificOptFn(func(o *kit.CallOptions) { o.Approval = port })
}

// WithExecutor runs the calls made with this option through e.
func WithExecutor(e *adapter.Executor) tool.Option {
	return tool.WrapImplSpecificOptFn(func(o *kit.CallOptions) { o.Executor = e })
}

var errNilExecutor = fmt.Errorf("einoadapter: %w", kit.ErrNilExecutor)

type base struct {
	spec *adapter.Spec
	exec *adapter.Executor
	info *schema.ToolInfo
	opts Options
}

// Info returns the tool's description for the model, built once.
func (b *base) Info(context.Context) (*schema.ToolInfo, error) { return b.info, nil }

func (b *base) adapterSpec() *adapter.Spec { return b.spec }

// SpecOf returns the spec a tool built by [Tool] runs.
func SpecOf(t tool.BaseTool) (*adapter.Spec, bool) {
	if s, ok := t.(interface{ adapterSpec() *adapter.Spec }); ok {
		return s.adapterSpec(), true
	}
	return nil, false
}

// call runs one call: a model-facing error comes back as its payload,
// approval_pending as an interrupt error.
func (b *base) call(ctx context.Context, args string, opts []tool.Option, native any) (*adapter.Result, string, error) {
	exec, req := b.request(ctx, args, opts, native)
	res, err := exec.Do(ctx, req)
	if err != nil {
		payload, err := b.failure(ctx, req, args, err)
		return nil, payload, err
	}
	return res, "", nil
}

func (b *base) request(ctx context.Context, args string, opts []tool.Option, native any) (*adapter.Executor, *adapter.Request) {
	req := &adapter.Request{Spec: b.spec, Args: json.RawMessage(args), CallID: compose.GetToolCallID(ctx), Integration: Integration, Native: native}
	// Resumed after an approval interrupt: present the ticket (one-use), so
	// that only the approved arguments run, once.
	if was, has, st := tool.GetInterruptState[*pendingState](ctx); was && has && st != nil {
		req.Ticket = st.Ticket
	}
	return tool.GetImplSpecificOptions(&kit.CallOptions{}, opts...).Apply(req, b.exec, b.opts.Timeout), req
}

// failure maps a failed call (kit.Triage), approval_pending to an interrupt.
func (b *base) failure(ctx context.Context, req *adapter.Request, args string, err error) (payload string, _ error) {
	o := kit.TriageHold(err, !b.opts.PendingAsPayload)
	if e := o.Pending; e != nil {
		return "", tool.StatefulInterrupt(ctx,
			&Pending{Ticket: e.Ticket, Tool: b.spec.Name, CallID: req.CallID, Args: args},
			&pendingState{Ticket: e.Ticket})
	}
	return o.Payload, o.Err
}

// textTool is a tool.InvokableTool: the model reads the result's text.
type textTool struct{ *base }

// InvokableRun runs the call; a model-facing failure is its payload.
func (t *textTool) InvokableRun(ctx context.Context, argumentsInJSON string, opts ...tool.Option) (string, error) {
	res, payload, err := t.call(ctx, argumentsInJSON, opts, t)
	if err != nil || payload != "" {
		return payload, err
	}
	return adapter.Render(res, &t.opts.Render), nil
}

// enhancedTool is a tool.EnhancedInvokableTool: content reaches the model
// as parts.
type enhancedTool struct{ *base }

// InvokableRun runs the call; see textTool.InvokableRun.
func (t *enhancedTool) InvokableRun(ctx context.Context, arg *schema.ToolArgument, opts ...tool.Option) (*schema.ToolResult, error) {
	var args string
	if arg != nil {
		args = arg.Text
	}
	switch res, payload, err := t.call(ctx, args, opts, t); {
	case err != nil:
		return nil, err
	case payload != "":
		return textResult(payload), nil
	default:
		return toolResult(res, &t.opts.Render), nil
	}
}

// Pending is the info of the interrupt of a call held for approval:
// approve Ticket (adapter.Deferred.Approve) and resume the graph from its
// checkpoint; the resumed call runs exactly the approved arguments.
type Pending struct {
	Ticket string
	Tool   string
	CallID string
	// Args are the arguments held, as the model sent them.
	Args string
	// InterruptID is the interrupt to resume (compose.Resume,
	// adk.ResumeParams.Targets).
	InterruptID string
}

// String describes the held call.
func (p *Pending) String() string {
	return fmt.Sprintf("tool %s (call %s) awaits approval of ticket %s", p.Tool, p.CallID, p.Ticket)
}

// pendingState is saved with the interrupt, for the resumed call.
type pendingState struct{ Ticket string }

func init() {
	// Checkpoints are gob-encoded: unregistered types fail to save.
	schema.RegisterName[*Pending]("agentadapter_einoadapter_pending")
	schema.RegisterName[*pendingState]("agentadapter_einoadapter_pending_state")
}

// PendingFromError returns the held calls that interrupted a graph run
// (Invoke's or Generate's error), in eino's order.
func PendingFromError(err error) []*Pending {
	if info, ok := compose.ExtractInterruptInfo(err); ok && info != nil {
		return PendingFrom(info.InterruptContexts)
	}
	// A tool called outside a graph returns the bare interrupt signal,
	// which has no interrupt id.
	if info, ok := compose.IsInterruptRerunError(err); ok {
		if p, ok := info.(*Pending); ok && p != nil {
			c := *p
			return []*Pending{&c}
		}
	}
	return nil
}

// PendingFrom returns the held calls among interrupt contexts (of
// compose.InterruptInfo, or AgentEvent.Action.Interrupted).
func PendingFrom(contexts []*compose.InterruptCtx) []*Pending {
	var out []*Pending
	for _, ic := range contexts {
		if p, ok := ic.Info.(*Pending); ok && p != nil {
			c := *p
			c.InterruptID = ic.ID
			out = append(out, &c)
		}
	}
	return out
}

// streamTool is a streaming spec as eino sees it: a tool.InvokableTool
// (the whole text at the end) and a tool.StreamableTool (the text in parts,
// as the tool produces them). Both go through the executor's whole
// pipeline.
type streamTool struct{ textTool }

// StreamableRun streams the call's text. A model-facing failure, before or
// during the stream, arrives as a last part holding its payload, so that
// the agent keeps going; approval_pending before the stream starts is an
// interrupt, as for InvokableRun; other failures end the stream with a Go
// error.
func (t *streamTool) StreamableRun(ctx context.Context, argumentsInJSON string, opts ...tool.Option) (*schema.StreamReader[string], error) {
	exec, req := t.request(ctx, argumentsInJSON, opts, t)
	ts, err := kit.StreamText(ctx, exec, req, &t.opts.Render)
	if err != nil {
		payload, err := t.failure(ctx, req, argumentsInJSON, err)
		if err != nil {
			return nil, err
		}
		return schema.StreamReaderFromArray([]string{payload}), nil
	}
	sr, sw := schema.Pipe[string](4)
	go func() {
		defer sw.Close()
		ts.Send(sw.Send)
	}()
	return sr, nil
}

var _ tool.StreamableTool = (*streamTool)(nil)

// toolResult places a result's parts (adapter.RenderParts) in eino's
// multimodal result, media as base64 data parts, never in the text.
func toolResult(r *adapter.Result, opts *adapter.RenderOptions) *schema.ToolResult {
	return &schema.ToolResult{Parts: kit.MapParts(adapter.RenderParts(r, opts), textPart, func(m *adapter.Media) (schema.ToolOutputPart, bool) {
		switch c := media(m.MIMEType, m.Data); m.Kind {
		case adapter.MediaImage:
			return schema.ToolOutputPart{Type: schema.ToolPartTypeImage, Image: &schema.ToolOutputImage{MessagePartCommon: c}}, true
		case adapter.MediaAudio:
			return schema.ToolOutputPart{Type: schema.ToolPartTypeAudio, Audio: &schema.ToolOutputAudio{MessagePartCommon: c}}, true
		}
		return schema.ToolOutputPart{}, false
	})}
}

func textPart(text string) schema.ToolOutputPart {
	return schema.ToolOutputPart{Type: schema.ToolPartTypeText, Text: text}
}

// media is a media part's data, base64-encoded.
func media(mime string, data []byte) schema.MessagePartCommon {
	s := base64.StdEncoding.EncodeToString(data)
	return schema.MessagePartCommon{Base64Data: &s, MIMEType: mime}
}

// UnknownToolsHandler returns the handler of a call to a tool the agent
// does not have (ToolsNodeConfig.UnknownToolsHandler; the react agent's
// too): the model reads the not_found payload and the run goes on, and the
// call has its ledger record ([adapter.Executor.Unknown]). exec is
// required: nil panics here, not at the first made-up name.
func UnknownToolsHandler(exec *adapter.Executor) func(ctx context.Context, name, input string) (string, error) {
	if exec == nil {
		panic(errNilExecutor)
	}
	return func(ctx context.Context, name, input string) (string, error) {
		return kit.Unknown(ctx, exec, &adapter.Request{Tool: name, Args: json.RawMessage(input), CallID: compose.GetToolCallID(ctx), Integration: Integration}), nil
	}
}

// UnknownTool answers a call to a tool the agent does not have with the
// not_found payload, and leaves no ledger record.
//
// Deprecated: every call is to have a record; use [UnknownToolsHandler].
func UnknownTool(_ context.Context, name, _ string) (string, error) {
	return kit.Unknown(context.Background(), nil, &adapter.Request{Tool: name}), nil
}

// Middleware returns a ToolsNode middleware that gives eino tools this
// package did not build (utils.InferTool, eino-ext...) its error policy, so
// that their failures no longer abort the graph: an error or a panic
// becomes the payload the model reads ([kit.FailurePayload],
// [kit.PanicPayload]); eino interrupts, a canceled context and faults stay
// Go errors, as do errors in the middle of an output stream (part of the
// answer has gone to the model). Tools built by [Tool] pass unchanged.
func Middleware() compose.ToolMiddleware {
	return compose.ToolMiddleware{
		Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
			return withPolicy(next, func(p string) *compose.ToolOutput { return &compose.ToolOutput{Result: p} })
		},
		Streamable: func(next compose.StreamableToolEndpoint) compose.StreamableToolEndpoint {
			return withPolicy(next, func(p string) *compose.StreamToolOutput {
				return &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{p})}
			})
		},
		EnhancedInvokable: func(next compose.EnhancedInvokableToolEndpoint) compose.EnhancedInvokableToolEndpoint {
			return withPolicy(next, func(p string) *compose.EnhancedInvokableToolOutput {
				return &compose.EnhancedInvokableToolOutput{Result: textResult(p)}
			})
		},
		EnhancedStreamable: func(next compose.EnhancedStreamableToolEndpoint) compose.EnhancedStreamableToolEndpoint {
			return withPolicy(next, func(p string) *compose.EnhancedStreamableToolOutput {
				return &compose.EnhancedStreamableToolOutput{Result: schema.StreamReaderFromArray([]*schema.ToolResult{textResult(p)})}
			})
		},
	}
}

// withPolicy wraps one endpoint: a failure or panic that is to be a
// payload becomes the output out(payload); eino's interrupts pass.
func withPolicy[O any](next func(context.Context, *compose.ToolInput) (O, error), out func(string) O) func(context.Context, *compose.ToolInput) (O, error) {
	return func(ctx context.Context, in *compose.ToolInput) (O, error) {
		o, p, err := kit.Contain(ctx, in.Name, in.CallID, isInterrupt, func() (O, error) { return next(ctx, in) })
		if p != "" {
			return out(p), nil
		}
		return o, err
	}
}

func isInterrupt(err error) bool {
	_, rerun := compose.IsInterruptRerunError(err)
	_, info := compose.ExtractInterruptInfo(err)
	return rerun || info
}

func textResult(p string) *schema.ToolResult {
	return &schema.ToolResult{Parts: []schema.ToolOutputPart{textPart(p)}}
}

// RunScope returns a callback handler that opens a run scope
// (adapter.WithRun) when a graph or agent run starts, so that the calls of
// one run share its limits and ledger run id; nested graphs, and a ctx that
// has one, keep the outer scope. opts may be nil.
//
//	runnable.Invoke(ctx, in, compose.WithCallbacks(einoadapter.RunScope(nil)))
func RunScope(opts *adapter.RunOptions) callbacks.Handler {
	open := func(ctx context.Context) context.Context {
		ctx, _ = adapter.WithRun(ctx, opts)
		return ctx
	}
	return callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, _ *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
			return open(ctx)
		}).
		OnStartWithStreamInputFn(func(ctx context.Context, _ *callbacks.RunInfo, in *schema.StreamReader[callbacks.CallbackInput]) context.Context {
			in.Close()
			return open(ctx)
		}).
		Build()
}
