package einoadapter

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

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
	if err := kit.CheckTool("einoadapter", spec, exec); err != nil {
		return nil, err
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
