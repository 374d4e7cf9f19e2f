package langchaingoadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/llms"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/runsync"
)

// DefaultParallelism bounds the tool calls of one model turn that run at
// once when DispatcherOptions.Parallelism is zero.
const DefaultParallelism = 4

// DispatcherOptions configure a [Dispatcher]. The zero value is valid.
type DispatcherOptions struct {
	// Filter selects the registry's tools; its Target is always langchaingo.
	// A call to a tool outside it is answered not_found.
	Filter registry.Filter
	// Timeout bounds each call, overriding the spec's and the executor's
	// timeout; zero leaves theirs.
	Timeout time.Duration
	// Render configures how results read to the model (adapter.Render);
	// the zero value is the default policy.
	Render adapter.RenderOptions
	// Strict defines the tools with strict schemas (see
	// [DefinitionOptions.Strict]), and makes Dispatch read a null given for
	// an optional, non-nullable property as an omitted one.
	Strict bool
	// Parallelism bounds the calls of one Dispatch that run at once; zero
	// means DefaultParallelism, 1 runs them in order.
	Parallelism int
	// Callbacks, if set, receives HandleToolStart (the arguments) and then
	// HandleToolEnd or HandleToolError for each call, from the goroutine
	// running the call: with Parallelism above 1 it must be safe for
	// concurrent use.
	Callbacks callbacks.Handler
}

// Dispatcher answers a tool-calling model's tool calls with the tools of a
// registry. It is safe for concurrent use.
//
//	d, err := langchaingoadapter.NewDispatcher(reg, exec, nil)
//	resp, _ := model.GenerateContent(ctx, msgs, llms.WithTools(d.Tools()))
//	msgs = append(msgs, langchaingoadapter.AssistantMessage(resp.Choices[0]))
//	replies, err := d.Dispatch(ctx, resp.Choices[0].ToolCalls)
//	msgs = append(msgs, replies...)
type Dispatcher struct {
	reg    *registry.Registry
	exec   *adapter.Executor
	opts   DispatcherOptions
	filter registry.Filter
	defs   []llms.Tool
	issues []kit.Issue
	shapes kit.Shapes
}

// NewDispatcher returns a dispatcher over reg whose calls run through exec
// (required: nil is an error). opts may be nil. The tool definitions are
// computed once, here; the calls look tools up in reg at call time.
func NewDispatcher(reg *registry.Registry, exec *adapter.Executor, opts *DispatcherOptions) (*Dispatcher, error) {
	if reg == nil {
		return nil, errors.New("langchaingoadapter: nil registry")
	}
	if exec == nil {
		return nil, errNilExecutor
	}
	d := &Dispatcher{reg: reg, exec: exec}
	if opts != nil {
		d.opts = *opts
	}
	d.filter = kit.Filter(d.opts.Filter, adapter.TargetLangchaingo) // an app-only tool is answered as unknown
	d.defs, d.issues = Definitions(reg, &DefinitionOptions{Filter: d.filter, Strict: d.opts.Strict})
	return d, nil
}

// Tools returns the function definitions to pass with llms.WithTools.
func (d *Dispatcher) Tools() []llms.Tool { return d.defs }

// Issues reports what strict mode could not express (see [kit.Strict]).
func (d *Dispatcher) Issues() []kit.Issue { return d.issues }

// Dispatch runs the tool calls of one model turn through the executor, at
// most Parallelism at once, in the run scope of ctx, and returns one tool
// message per call, in order, each holding an llms.ToolCallResponse: the
// output, or the payload of a failure the model should read. Connection
// and internal faults are returned, joined, as the error; the messages are
// complete even then ([kit.FaultPayload]), so a caller may go on.
func (d *Dispatcher) Dispatch(ctx context.Context, calls []llms.ToolCall) ([]llms.MessageContent, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	limit := d.opts.Parallelism
	if limit <= 0 {
		limit = DefaultParallelism
	}
	outs, errs := runsync.Parallel(ctx, limit, calls, func(ctx context.Context, _ int, tc llms.ToolCall) (string, error) {
		return d.one(ctx, tc)
	})
	msgs := make([]llms.MessageContent, len(calls))
	var faults []error
	for i, tc := range calls {
		content := outs[i]
		if err := errs[i]; err != nil {
			faults = append(faults, err)
			content = kit.FaultPayload(err)
		}
		msgs[i] = llms.MessageContent{
			Role:  llms.ChatMessageTypeTool,
			Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: tc.ID, Name: callName(tc), Content: content}},
		}
	}
	return msgs, errors.Join(faults...)
}

// one runs a call; model-facing failures come back as the payload.
func (d *Dispatcher) one(ctx context.Context, tc llms.ToolCall) (string, error) {
	var args string
	if tc.FunctionCall != nil {
		args = tc.FunctionCall.Arguments
	}
	return observe(ctx, d.opts.Callbacks, args, func() (string, error) {
		name := callName(tc)
		if tc.FunctionCall == nil || (tc.Type != "" && tc.Type != "function") {
			return "", &adapter.Error{Kind: adapter.KindNotFound, Tool: name, CallID: tc.ID,
				Message: fmt.Sprintf("tool call of type %q is not a function call", tc.Type)}
		}
		// A made-up (or filtered) name has a record like any call.
		spec, err := kit.Resolve(ctx, d.reg, d.exec, d.filter, &adapter.Request{Tool: name, Args: json.RawMessage(args), CallID: tc.ID, Integration: Integration, Native: tc})
		if err != nil {
			return "", err
		}
		req := &adapter.Request{Spec: spec, CallID: tc.ID, Integration: Integration, Native: tc, Timeout: d.opts.Timeout}
		return kit.CallText(ctx, d.exec, req, args, d.shapes.Of(spec.InputSchema), &kit.TextOptions{Render: d.opts.Render, DropOmittedNulls: d.opts.Strict})
	})
}

func callName(tc llms.ToolCall) string {
	if tc.FunctionCall == nil {
		return ""
	}
	return tc.FunctionCall.Name
}

// AssistantMessage returns the model's turn as a message to append before
// the tool responses: its text, if any, and its tool calls.
func AssistantMessage(choice *llms.ContentChoice) llms.MessageContent {
	m := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	if choice == nil {
		return m
	}
	if choice.Content != "" {
		m.Parts = append(m.Parts, llms.TextContent{Text: choice.Content})
	}
	for _, tc := range choice.ToolCalls {
		m.Parts = append(m.Parts, tc)
	}
	return m
}

// ErrMaxTurns is returned by [Dispatcher.Loop] when the model still asks
// for tools after the last turn.
var ErrMaxTurns = errors.New("langchaingoadapter: the model did not finish within the turn limit")

// DefaultMaxTurns bounds [Dispatcher.Loop] when LoopOptions.MaxTurns is zero.
const DefaultMaxTurns = 10

// LoopOptions configure [Dispatcher.Loop]. The zero value is valid.
type LoopOptions struct {
	// MaxTurns bounds the model calls; zero means DefaultMaxTurns.
	MaxTurns int
	// CallOptions are passed to every model call, after llms.WithTools.
	CallOptions []llms.CallOption
}

// Loop runs a function-calling loop: it calls the model with the tools'
// definitions, answers its tool calls with [Dispatcher.Dispatch], and
// repeats until the model answers without tool calls. All calls share one
// run scope (ctx's, or a new one). It returns the conversation, messages
// included, and the model's final choice. On an error it returns the
// conversation so far.
func (d *Dispatcher) Loop(ctx context.Context, model llms.Model, messages []llms.MessageContent, opts *LoopOptions) ([]llms.MessageContent, *llms.ContentChoice, error) {
	if opts == nil {
		opts = &LoopOptions{}
	}
	turns := opts.MaxTurns
	if turns <= 0 {
		turns = DefaultMaxTurns
	}
	ctx, _ = adapter.WithRun(ctx, nil)
	callOpts := append([]llms.CallOption{llms.WithTools(d.defs)}, opts.CallOptions...)
	for range turns {
		resp, err := model.GenerateContent(ctx, messages, callOpts...)
		if err != nil {
			return messages, nil, err
		}
		if resp == nil || len(resp.Choices) == 0 {
			return messages, nil, errors.New("langchaingoadapter: the model returned no choices")
		}
		choice := resp.Choices[0]
		messages = append(messages, AssistantMessage(choice))
		if len(choice.ToolCalls) == 0 {
			return messages, choice, nil
		}
		replies, err := d.Dispatch(ctx, choice.ToolCalls)
		messages = append(messages, replies...)
		if err != nil {
			return messages, nil, err
		}
	}
	return messages, nil, ErrMaxTurns
}
