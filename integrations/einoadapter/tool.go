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
	ejs "github.com/eino-contrib/jsonschema"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

const (
	// Integration is the name the tools give the executor (adapter.Request.Integration).
	Integration = adapter.TargetEino
	// TagMultimodal marks a spec whose results reach the model as parts ([Options.Multimodal]).
	TagMultimodal = "multimodal"
)

// Options configure [Tool] and [Tools]. The zero value is valid.
type Options struct {
	// Multimodal reports whether a spec's tool is multimodal; nil: it has TagMultimodal.
	Multimodal func(*adapter.Spec) bool
	// PendingAsPayload hands the model a held call's payload (and ticket) instead of interrupting.
	PendingAsPayload bool
	// Filter selects the specs [Tools] exports; its Target is always eino.
	Filter registry.Filter
	// Timeout, if set, bounds each call, overriding the spec's and the executor's.
	Timeout time.Duration
	// Render configures the text the model reads (adapter.Render).
	Render adapter.RenderOptions
}

// Tool returns spec as an eino tool calling through exec (required): a tool.InvokableTool
// (adapter.Render's text), a tool.EnhancedInvokableTool if multimodal, and
// also a tool.StreamableTool if spec streams. opts may be nil.
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
	b := &base{kit.JSONTool{Spec: spec, Exec: exec, Integration: Integration, Timeout: opts.Timeout, Render: opts.Render, Hold: interrupt}, info}
	if opts.PendingAsPayload {
		b.core.Hold = nil
	}
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

// WithTimeout bounds these calls, overriding every other timeout.
func WithTimeout(d time.Duration) tool.Option {
	return tool.WrapImplSpecificOptFn(func(o *kit.CallOptions) { o.Timeout = d })
}

// WithApproval asks port, not the executor's, to approve these calls.
func WithApproval(port adapter.ApprovalPort) tool.Option {
	return tool.WrapImplSpecificOptFn(func(o *kit.CallOptions) { o.Approval = port })
}

// WithExecutor runs these calls through e.
func WithExecutor(e *adapter.Executor) tool.Option {
	return tool.WrapImplSpecificOptFn(func(o *kit.CallOptions) { o.Executor = e })
}

// SpecOf returns the spec a tool built by [Tool] runs.
func SpecOf(t tool.BaseTool) (*adapter.Spec, bool) {
	if b, ok := t.(interface{ adapterSpec() *adapter.Spec }); ok {
		return b.adapterSpec(), true
	}
	return nil, false
}

// Schema converts a JSON schema to eino's, keeping every keyword ([kit.SchemaStruct]):
// the rest goes to Extras, which eino marshals inline. Nil converts to nil.
func Schema(s *jsonschema.Schema) (*ejs.Schema, error) {
	if s == nil {
		return nil, nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("einoadapter: marshaling schema: %w", err)
	}
	return SchemaFromJSON(b)
}

// SchemaFromJSON is like [Schema] for a schema given as JSON text.
func SchemaFromJSON(data []byte) (*ejs.Schema, error) {
	s, err := kit.SchemaStruct(data, kit.UnmarshalContained[ejs.Schema]("eino's schema decoder"), func(s *ejs.Schema, x map[string]any) { s.Extras = x })
	if err != nil {
		return nil, fmt.Errorf("einoadapter: converting schema: %w", err)
	}
	return s, nil
}

// ExtraOutputSchema is the key of [schema.ToolInfo.Extra] holding the output schema
// (an eino-contrib *jsonschema.Schema); the other keys are [kit.ToolMeta]'s.
const ExtraOutputSchema = "outputSchema"

// Info describes spec for an eino model: its name, description and input
// schema ([Schema]), and in Extra its [kit.ToolMeta] and output schema.
func Info(spec *adapter.Spec) (*schema.ToolInfo, error) {
	in, err := Schema(spec.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("einoadapter: tool %q: input schema: %w", spec.Name, err)
	}
	ex := kit.ToolMeta(spec)
	if spec.OutputSchema != nil {
		out, err := Schema(spec.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("einoadapter: tool %q: output schema: %w", spec.Name, err)
		}
		ex[ExtraOutputSchema] = out
	}
	info := &schema.ToolInfo{Name: spec.Name, Desc: spec.Description, Extra: ex}
	if in != nil {
		info.ParamsOneOf = schema.NewParamsOneOfByJSONSchema(in)
	}
	return info, nil
}

type base struct {
	core kit.JSONTool
	info *schema.ToolInfo
}

func (b *base) Info(context.Context) (*schema.ToolInfo, error) { return b.info, nil }
func (b *base) adapterSpec() *adapter.Spec                     { return b.core.Spec }

// call is one call; resumed after an approval interrupt, it presents the ticket.
func (b *base) call(ctx context.Context, args string, opts []tool.Option, native any) *kit.JSONCall {
	c := &kit.JSONCall{Args: args, CallID: compose.GetToolCallID(ctx), Options: tool.GetImplSpecificOptions(&kit.CallOptions{}, opts...), Native: native}
	if was, has, st := tool.GetInterruptState[*pendingState](ctx); was && has && st != nil {
		c.Ticket = st.Ticket
	}
	return c
}

func interrupt(ctx context.Context, h *kit.HeldCall) error {
	return tool.StatefulInterrupt(ctx, h, &pendingState{Ticket: h.Ticket})
}

type textTool struct{ *base }

func (t *textTool) InvokableRun(ctx context.Context, argumentsInJSON string, opts ...tool.Option) (string, error) {
	return t.core.Text(ctx, t.call(ctx, argumentsInJSON, opts, t))
}

type enhancedTool struct{ *base }

func (t *enhancedTool) InvokableRun(ctx context.Context, arg *schema.ToolArgument, opts ...tool.Option) (*schema.ToolResult, error) {
	var args string
	if arg != nil {
		args = arg.Text
	}
	parts, err := t.core.Parts(ctx, t.call(ctx, args, opts, t))
	if err != nil {
		return nil, err
	}
	return toolResult(parts), nil
}

// streamTool streams its text and is invokable too (the whole text at the end).
type streamTool struct{ textTool }

func (t *streamTool) StreamableRun(ctx context.Context, argumentsInJSON string, opts ...tool.Option) (*schema.StreamReader[string], error) {
	ts, payload, err := t.core.Stream(ctx, t.call(ctx, argumentsInJSON, opts, t))
	if err != nil {
		return nil, err
	} else if ts == nil {
		return one(payload), nil
	}
	sr, sw := schema.Pipe[string](4)
	go func() { defer sw.Close(); ts.Send(sw.Send) }()
	return sr, nil
}

// pendingState is saved with the interrupt, for the resumed call.
type pendingState struct{ Ticket string }

func init() {
	// Checkpoints are gob-encoded: unregistered types fail to save.
	schema.RegisterName[*kit.HeldCall]("agentadapter_einoadapter_pending")
	schema.RegisterName[*pendingState]("agentadapter_einoadapter_pending_state")
}

// PendingFromError returns the held calls that interrupted a run (Invoke's or Generate's error).
func PendingFromError(err error) []*kit.HeldCall {
	if info, ok := compose.ExtractInterruptInfo(err); ok && info != nil {
		return PendingFrom(info.InterruptContexts)
	}
	info, _ := compose.IsInterruptRerunError(err) // a tool called outside a graph: the bare signal, no id
	return PendingFrom([]*compose.InterruptCtx{{Info: info}})
}

// PendingFrom returns the held calls among interrupt contexts (of
// compose.InterruptInfo, or AgentEvent.Action.Interrupted).
func PendingFrom(contexts []*compose.InterruptCtx) []*kit.HeldCall {
	return kit.HeldCalls(contexts, func(ic *compose.InterruptCtx) (any, string) { return ic.Info, ic.ID })
}

func toolResult(parts []adapter.Part) *schema.ToolResult {
	return &schema.ToolResult{Parts: kit.MapParts(parts, textPart, func(m *adapter.Media) (schema.ToolOutputPart, bool) {
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

func textResult(p string) *schema.ToolResult {
	return &schema.ToolResult{Parts: []schema.ToolOutputPart{textPart(p)}}
}

func one[T any](v T) *schema.StreamReader[T] { return schema.StreamReaderFromArray([]T{v}) }

func media(mime string, data []byte) schema.MessagePartCommon {
	s := base64.StdEncoding.EncodeToString(data)
	return schema.MessagePartCommon{Base64Data: &s, MIMEType: mime}
}

// UnknownToolsHandler returns eino's handler of a call to a tool the agent does not
// have (ToolsNodeConfig.UnknownToolsHandler), recorded ([kit.UnknownHook]). A nil exec panics.
func UnknownToolsHandler(exec *adapter.Executor) func(ctx context.Context, name, input string) (string, error) {
	return kit.UnknownHook("einoadapter", exec, Integration, compose.GetToolCallID)
}

// UnknownTool answers a call to a tool the agent does not have, recording nothing.
//
// Deprecated: every call is to have a record; use [UnknownToolsHandler].
func UnknownTool(_ context.Context, name, _ string) (string, error) {
	return kit.Unknown(context.Background(), nil, &adapter.Request{Tool: name}), nil
}

// Middleware gives eino tools built elsewhere this package's error policy
// ([kit.Contain]): an error or panic is the payload the model reads;
// interrupts, a canceled context, faults and errors amid a stream stay errors.
// Tools built by [Tool] pass unchanged.
func Middleware() compose.ToolMiddleware {
	return compose.ToolMiddleware{
		Invokable:  policy[compose.InvokableToolEndpoint](func(p string) *compose.ToolOutput { return &compose.ToolOutput{Result: p} }),
		Streamable: policy[compose.StreamableToolEndpoint](func(p string) *compose.StreamToolOutput { return &compose.StreamToolOutput{Result: one(p)} }),
		EnhancedInvokable: policy[compose.EnhancedInvokableToolEndpoint](func(p string) *compose.EnhancedInvokableToolOutput {
			return &compose.EnhancedInvokableToolOutput{Result: textResult(p)}
		}),
		EnhancedStreamable: policy[compose.EnhancedStreamableToolEndpoint](func(p string) *compose.EnhancedStreamableToolOutput {
			return &compose.EnhancedStreamableToolOutput{Result: one(textResult(p))}
		}),
	}
}

func policy[E ~func(context.Context, *compose.ToolInput) (O, error), O any](out func(string) O) func(E) E {
	return func(next E) E {
		return func(ctx context.Context, in *compose.ToolInput) (O, error) {
			o, p, err := kit.Contain(ctx, in.Name, in.CallID, isInterrupt, func() (O, error) { return next(ctx, in) })
			if p != "" {
				return out(p), nil
			}
			return o, err
		}
	}
}

func isInterrupt(err error) bool {
	_, rerun := compose.IsInterruptRerunError(err)
	_, info := compose.ExtractInterruptInfo(err)
	return rerun || info
}

// RunScope returns a callback handler opening a run scope (adapter.WithRun) where
// a graph or agent run starts, unless one is open, so that its calls share
// limits and a ledger run id. opts may be nil.
func RunScope(opts *adapter.RunOptions) callbacks.Handler {
	return callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, _ *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
			ctx, _ = adapter.WithRun(ctx, opts)
			return ctx
		}).
		OnStartWithStreamInputFn(func(ctx context.Context, _ *callbacks.RunInfo, in *schema.StreamReader[callbacks.CallbackInput]) context.Context {
			in.Close()
			ctx, _ = adapter.WithRun(ctx, opts)
			return ctx
		}).
		Build()
}
