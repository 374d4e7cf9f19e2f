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
	// Strict asks for strict schemas (OpenAI structured outputs): see
	// [kit.Define] for what it does to a schema and what it reports.
	Strict bool
}

// Definitions returns function definitions, with full input schemas as
// map[string]any (which every provider accepts), for the tools in reg that
// target langchaingo, by name, to pass with llms.WithTools; answer the
// model's tool calls with a [Dispatcher]. issues are [kit.Define]'s.
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
	// Timeout, if set, bounds each call, overriding the spec's and executor's.
	Timeout time.Duration
	// Render configures how results read to the model (adapter.Render).
	Render adapter.RenderOptions
	// Strict defines the tools with strict schemas (see
	// [DefinitionOptions.Strict]), and makes Dispatch read a null given for
	// an optional, non-nullable property as an omitted one.
	Strict bool
	// Parallelism bounds the calls of one Dispatch that run at once; zero
	// means DefaultParallelism, 1 runs them in order.
	Parallelism int
	// Callbacks, if set, is told of every call ([kit.Observe]) from the
	// goroutine running it: safe for concurrent use, with Parallelism > 1.
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

// Dispatch runs the tool calls of one model turn in the run scope of ctx
// and returns one tool message per call, in order, each holding an
// llms.ToolCallResponse with the answer of [kit.Answers]; the faults,
// joined, are the error, and the messages are complete even then.
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

// Loop runs a function-calling loop ([kit.Loop]) with the tools'
// definitions and [Dispatcher.Dispatch]. It returns the conversation,
// messages included, and the model's final choice; on an error, the
// conversation so far.
func (d *Dispatcher) Loop(ctx context.Context, model llms.Model, messages []llms.MessageContent, opts *LoopOptions) ([]llms.MessageContent, *llms.ContentChoice, error) {
	if opts == nil {
		opts = &LoopOptions{}
	}
	callOpts := append([]llms.CallOption{llms.WithTools(d.defs)}, opts.CallOptions...)
	var last *llms.ContentChoice
	messages, err := kit.Loop(ctx, opts.MaxTurns, messages, func(ctx context.Context, msgs []llms.MessageContent) (_ llms.MessageContent, _ []llms.ToolCall, err error) {
		if last, err = choice(model.GenerateContent(ctx, msgs, callOpts...)); err != nil {
			return llms.MessageContent{}, nil, err
		}
		return AssistantMessage(last), last.ToolCalls, nil
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

// Sampler returns a [kit.Sampler] that answers MCP servers' sampling
// requests with m, the agent's own model: set mcpadapter.Sample(Sampler(m))
// as ManagerOptions.Sampler and the servers an agent imports can ask its
// model for completions, governed by the executor like any call.
//
// The system prompt becomes a system message, content human or AI
// messages (media as binary parts), the settings llms options
// ([kit.SampleOptions]). m answers every request, whatever the server's
// model hints (a provider refuses names it does not serve); the result
// names "langchaingo" as its model.
func Sampler(m llms.Model) kit.Sampler {
	if m == nil {
		panic("langchaingoadapter: Sampler with a nil model")
	}
	return func(ctx context.Context, p *kit.SampleRequest) (*kit.SampleResult, error) {
		msgs, err := kit.Messages(p, func(prompt string) llms.MessageContent {
			return llms.TextParts(llms.ChatMessageTypeSystem, prompt)
		}, message)
		if err != nil {
			return nil, fmt.Errorf("langchaingoadapter: %w", err)
		}
		opts := kit.SampleOptions(p, llms.WithMaxTokens, llms.WithStopWords, llms.WithTemperature)
		c, err := choice(m.GenerateContent(ctx, msgs, opts...))
		if err != nil {
			return nil, err
		}
		return &kit.SampleResult{Text: c.Content, Model: "langchaingo", StopReason: kit.StopReasonOf(c.StopReason)}, nil
	}
}

func message(r kit.Role, c kit.Part) (llms.MessageContent, error) {
	role, part := llms.ChatMessageTypeHuman, llms.ContentPart(llms.TextPart(c.Text))
	if r == kit.RoleAssistant {
		role = llms.ChatMessageTypeAI
	}
	if c.Kind != kit.PartText {
		part = llms.BinaryPart(c.MIMEType, c.Data)
	}
	return llms.MessageContent{Role: role, Parts: []llms.ContentPart{part}}, nil
}
