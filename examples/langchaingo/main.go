// Command langchaingo runs agentadapter tools inside langchaingo, offline:
// a local typed tool and a tool imported from an in-process MCP server,
// first under langchaingo's OneShot agent (driven by its fake model), then
// in a function-calling loop with the tools' real schemas (driven by a
// scripted model). A failing tool and a call held for approval show what
// the model reads instead of the run aborting.
//
//	go run ./examples/langchaingo
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type weatherIn struct {
	City string `json:"city" jsonschema:"the city"`
	Unit string `json:"unit,omitempty" jsonschema:"c or f"`
}

type weatherOut struct {
	City  string  `json:"city"`
	Temp  float64 `json:"temp"`
	Unit  string  `json:"unit"`
	Skies string  `json:"skies"`
}

func weather(_ context.Context, in weatherIn) (weatherOut, error) {
	if in.City == "Atlantis" {
		return weatherOut{}, errors.New("no weather station in Atlantis")
	}
	out := weatherOut{City: in.City, Temp: 21, Unit: "c", Skies: "clear"}
	if in.Unit == "f" {
		out.Temp, out.Unit = 69.8, "f"
	}
	return out, nil
}

func main() {
	ctx := context.Background()
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("weather", "Current weather in a city.", weather,
		&adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}))

	// A remote MCP server, in process; its tools join the same registry.
	stop, err := importMCP(ctx, reg)
	if err != nil {
		log.Fatal(err)
	}
	defer stop()

	// Booking waits for an approver; the deferred port hands the model a
	// ticket instead of blocking, and the model calls again.
	approvals := &approval.Deferred{}
	approvals.OnPending = approveNow(approvals)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{
		Port:   approvals,
		Policy: adapter.ApproveNever,
		Tools:  map[string]adapter.ApprovalPolicy{"book_table": adapter.ApproveAlways},
	}})
	defer exec.Close()

	oneShot(ctx, reg, exec)
	functionCalling(ctx, reg, exec)
}

// approveNow plays an approver who approves each ticket as it is issued;
// the model still reads approval_pending first and must call again.
func approveNow(d *approval.Deferred) func(*approval.Ticket) {
	return func(t *approval.Ticket) {
		fmt.Printf("  [approver] approves %s %s\n", t.Tool, t.Args)
		if err := d.Approve(context.Background(), t.ID, "example"); err != nil {
			log.Fatal(err)
		}
	}
}

func oneShot(ctx context.Context, reg *registry.Registry, exec *adapter.Executor) {
	fmt.Println("== OneShot agent (text): tools as langchaingo sees them")
	tools, err := langchaingoadapter.Tools(reg, exec, &langchaingoadapter.Options{Callbacks: printer{}})
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		fmt.Printf("- %s: %s\n", t.Name(), t.Description())
	}
	llm := fake.NewFakeLLM([]string{
		"Action: weather\nAction Input: Paris",
		"Action: weather\nAction Input: ```json\n{\"city\": \"Atlantis\"}\n```",
		"Action: book_table\nAction Input: {\"restaurant\": \"Chez Nous\", \"people\": 2}",
		"Action: book_table\nAction Input: {\"people\": 2, \"restaurant\": \"Chez Nous\"}",
		"Final Answer: Paris is clear at 21°C; Atlantis has no station; a table for 2 is booked.",
	})
	agent := agents.NewOneShotAgent(llm, tools, agents.WithMaxIterations(6))
	out, err := langchaingoadapter.Run(ctx, agents.NewExecutor(agent, agents.WithMaxIterations(6)), "Weather in Paris and Atlantis, then book a table.", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answer:", out)
}

func functionCalling(ctx context.Context, reg *registry.Registry, exec *adapter.Executor) {
	fmt.Println("\n== Function calling with real schemas (strict)")
	d, err := langchaingoadapter.NewDispatcher(reg, exec, &langchaingoadapter.DispatcherOptions{Strict: true, Callbacks: printer{}})
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range d.Tools() {
		fmt.Printf("- %s strict=%v %v\n", t.Function.Name, t.Function.Strict, t.Function.Parameters)
	}
	for _, is := range d.Issues() {
		fmt.Println("  issue:", is)
	}
	model := &scripted{turns: [][]llms.ToolCall{{
		call("1", "weather", `{"city":"Rome","unit":"f"}`),
		call("2", "weather", `{"city":"Oslo","unit":null}`), // strict mode's "omitted"
		call("3", "convert", `{"amount":10,"from":"EUR","to":"USD"}`),
	}}}
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Rome and Oslo; 10 EUR in USD?")}
	_, final, err := d.Loop(ctx, model, msgs, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answer:", final.Content)
}

// importMCP starts an MCP server in process and imports its tools.
func importMCP(ctx context.Context, reg *registry.Registry) (stop func(), err error) {
	type convertIn struct {
		Amount float64 `json:"amount"`
		From   string  `json:"from"`
		To     string  `json:"to"`
	}
	type bookIn struct {
		Restaurant string `json:"restaurant"`
		People     int    `json:"people"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "v1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "convert", Description: "Converts currencies.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in convertIn) (*mcp.CallToolResult, any, error) {
			return nil, map[string]any{"amount": in.Amount * 1.08, "currency": in.To}, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "book_table", Description: "Books a restaurant table."},
		func(_ context.Context, _ *mcp.CallToolRequest, in bookIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("booked %s for %d", in.Restaurant, in.People)}}}, nil, nil
		})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	m := mcpadapter.NewManager(reg, nil)
	if err := m.Connect(ctx, mcpadapter.Upstream{Name: "remote", Transport: ct, Trust: true}); err != nil { // our own server
		ss.Close()
		return nil, err
	}
	return func() { m.Close(); ss.Close() }, nil
}

// scripted is a tool-calling model: it plays its turns of tool calls, then
// answers with what the tools returned.
type scripted struct{ turns [][]llms.ToolCall }

func (s *scripted) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	if len(s.turns) > 0 {
		calls := s.turns[0]
		s.turns = s.turns[1:]
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: calls}}}, nil
	}
	var got []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				got = append(got, r.Name+" → "+r.Content)
			}
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: strings.Join(got, "; ")}}}, nil
}

func (s *scripted) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, s, prompt, opts...)
}

func call(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

// printer shows the tool callbacks langchaingo handlers receive.
type printer struct{ callbacks.SimpleHandler }

func (printer) HandleToolStart(_ context.Context, input string) {
	fmt.Printf("  [tool start] %s\n", strings.ReplaceAll(input, "\n", " "))
}
func (printer) HandleToolEnd(_ context.Context, output string) {
	fmt.Printf("  [tool end]   %s\n", output)
}
func (printer) HandleToolError(_ context.Context, err error) { fmt.Printf("  [tool error] %v\n", err) }
