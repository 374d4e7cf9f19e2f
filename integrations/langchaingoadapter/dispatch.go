package langchaingoadapter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/llms"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

// DefinitionOptions configure [Definitions]. The zero value is valid.
type DefinitionOptions struct {
	// Filter selects the registry's tools; its Target is always langchaingo.
	Filter registry.Filter
	// Strict asks for strict schemas (OpenAI structured outputs, see
	// [kit.Strict]). A tool whose schema cannot be made strict is defined
	// without Strict and reported with a kit.SeverityError issue; what
	// strict mode cannot carry is dropped from what the model sees (the
	// executor still enforces it) and reported as a warning.
	Strict bool
}

// Definitions returns function definitions, with full input schemas, for
// the tools in reg that target langchaingo, ordered by name: pass them to
// a model with llms.WithTools, and answer its tool calls with a
// [Dispatcher]. Parameters are map[string]any, the type every langchaingo
// provider accepts. issues lists what strict mode could not express.
func Definitions(reg *registry.Registry, opts *DefinitionOptions) (defs []llms.Tool, issues []kit.Issue) {
	if opts == nil {
		opts = &DefinitionOptions{}
	}
	for s := range reg.List(kit.Filter(opts.Filter, Integration)) {
		def, is := Definition(s, opts.Strict)
		defs, issues = append(defs, def), append(issues, is...)
	}
	return defs, issues
}

// Definition returns the function definition of one spec; see
// [Definitions] and [kit.Define].
func Definition(spec *adapter.Spec, strict bool) (llms.Tool, []kit.Issue) {
	d, issues := kit.Define(spec, strict)
	return llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
		Name: d.Name, Description: d.Description, Parameters: d.Parameters, Strict: d.Strict}}, issues
}

// DefaultParallelism bounds the tool calls of one model turn that run at
// once when DispatcherOptions.Parallelism is zero.
const DefaultParallelism = kit.DefaultParallelism

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
	calls       *kit.TextCaller
	parallelism int
	defs        []llms.Tool
	issues      []kit.Issue
}

// NewDispatcher returns a dispatcher over reg whose calls run through exec
// (required: nil is an error). opts may be nil. The tool definitions are
// computed once, here; the calls look tools up in reg at call time.
func NewDispatcher(reg *registry.Registry, exec *adapter.Executor, opts *DispatcherOptions) (*Dispatcher, error) {
	if err := kit.CheckRegistry(reg, exec); err != nil {
		return nil, fmt.Errorf("langchaingoadapter: %w", err)
	}
	if opts == nil {
		opts = &DispatcherOptions{}
	}
	f := kit.Filter(opts.Filter, Integration) // an app-only tool is answered as unknown
	d := &Dispatcher{parallelism: opts.Parallelism, calls: &kit.TextCaller{Exec: exec, Registry: reg, Filter: f,
		Observer: opts.Callbacks, Timeout: opts.Timeout, Options: kit.TextOptions{Render: opts.Render, DropOmittedNulls: opts.Strict}}}
	d.defs, d.issues = Definitions(reg, &DefinitionOptions{Filter: f, Strict: opts.Strict})
	return d, nil
}

// Tools returns the function definitions to pass with llms.WithTools.
func (d *Dispatcher) Tools() []llms.Tool { return d.defs }

// Issues reports what strict mode could not express (see [kit.Strict]).
func (d *Dispatcher) Issues() []kit.Issue { return d.issues }

// Dispatch runs the tool calls of one model turn, at most Parallelism at
// once, in the run scope of ctx, and returns one tool message per call, in
// order, each holding an llms.ToolCallResponse (see [kit.Answers]): the
// output, or the payload of a failure the model should read. Faults are
// returned, joined, as the error; the messages are complete even then.
func (d *Dispatcher) Dispatch(ctx context.Context, calls []llms.ToolCall) ([]llms.MessageContent, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	outs, err := kit.Answers(ctx, d.parallelism, calls, d.one)
	msgs := make([]llms.MessageContent, len(calls))
	for i, tc := range calls {
		name, _ := function(tc)
		msgs[i] = llms.MessageContent{Role: llms.ChatMessageTypeTool,
			Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: tc.ID, Name: name, Content: outs[i]}}}
	}
	return msgs, err
}

func (d *Dispatcher) one(ctx context.Context, tc llms.ToolCall) (string, error) {
	name, args := function(tc)
	if tc.FunctionCall == nil || (tc.Type != "" && tc.Type != "function") {
		return kit.Observe(ctx, d.calls.Observer, args, func() (string, error) {
			return "", &adapter.Error{Kind: adapter.KindNotFound, Tool: name, CallID: tc.ID,
				Message: fmt.Sprintf("tool call of type %q is not a function call", tc.Type)}
		})
	}
	return d.calls.Call(ctx, &adapter.Request{Tool: name, CallID: tc.ID, Integration: Integration, Native: tc}, args)
}

func function(tc llms.ToolCall) (name, args string) {
	if tc.FunctionCall == nil {
		return "", ""
	}
	return tc.FunctionCall.Name, tc.FunctionCall.Arguments
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
var ErrMaxTurns = kit.ErrMaxTurns

// DefaultMaxTurns bounds [Dispatcher.Loop] when LoopOptions.MaxTurns is zero.
const DefaultMaxTurns = kit.DefaultMaxTurns

// LoopOptions configure [Dispatcher.Loop]. The zero value is valid.
type LoopOptions struct {
	// MaxTurns bounds the model calls; zero means DefaultMaxTurns.
	MaxTurns int
	// CallOptions are passed to every model call, after llms.WithTools.
	CallOptions []llms.CallOption
}

// Loop runs a function-calling loop ([kit.Loop]): it calls the model with
// the tools' definitions and answers its tool calls with
// [Dispatcher.Dispatch] until it answers without any, in one run scope.
// It returns the conversation, messages included, and the model's final
// choice; on an error, the conversation so far.
func (d *Dispatcher) Loop(ctx context.Context, model llms.Model, messages []llms.MessageContent, opts *LoopOptions) ([]llms.MessageContent, *llms.ContentChoice, error) {
	if opts == nil {
		opts = &LoopOptions{}
	}
	callOpts := append([]llms.CallOption{llms.WithTools(d.defs)}, opts.CallOptions...)
	var last *llms.ContentChoice
	messages, err := kit.Loop(ctx, opts.MaxTurns, messages, func(ctx context.Context, msgs []llms.MessageContent) (llms.MessageContent, []llms.ToolCall, error) {
		c, err := choice(model.GenerateContent(ctx, msgs, callOpts...))
		if err != nil {
			return llms.MessageContent{}, nil, err
		}
		last = c
		return AssistantMessage(c), c.ToolCalls, nil
	}, d.Dispatch)
	if err != nil {
		return messages, nil, err
	}
	return messages, last, nil
}

// choice returns the first choice of the model's reply.
func choice(resp *llms.ContentResponse, err error) (*llms.ContentChoice, error) {
	if err == nil && (resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil) {
		err = errors.New("langchaingoadapter: the model returned no choice")
	}
	if err != nil {
		return nil, err
	}
	return resp.Choices[0], nil
}
