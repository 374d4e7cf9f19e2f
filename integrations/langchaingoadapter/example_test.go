package langchaingoadapter_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"

	"github.com/agentadapter/agentadapter/adapter"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
	"github.com/agentadapter/agentadapter/registry"
)

func exampleRegistry() *registry.Registry {
	type in struct {
		A int `json:"a" jsonschema:"first addend"`
		B int `json:"b" jsonschema:"second addend"`
	}
	add := adapter.MustTool("add", "Adds two integers.", func(_ context.Context, x in) (int, error) {
		return x.A + x.B, nil
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
	reg := registry.New()
	reg.MustRegister(add)
	return reg
}

// A OneShot agent, driven here by langchaingo's fake model, calls a tool.
func ExampleTools() {
	reg := exampleRegistry()
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()

	tools, err := lca.Tools(reg, exec, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tools[0].Description())

	llm := fake.NewFakeLLM([]string{
		"Action: add\nAction Input: {\"a\": 2, \"b\": 3}",
		"Final Answer: 5",
	})
	agent := agents.NewOneShotAgent(llm, tools)
	out, err := lca.Run(context.Background(), agents.NewExecutor(agent), "What is 2+3?", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out)
	// Output:
	// Adds two integers. Input: a JSON object {"a": integer (first addend), "b": integer (second addend)}
	// 5
}

// Call reads what agents write: JSON, OpenAIFunctionsAgent's wrapper, code
// fences; anything else gets a payload showing the shape to send.
func ExampleTool_Call() {
	reg := exampleRegistry()
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	tools, err := lca.Tools(reg, exec, nil)
	if err != nil {
		log.Fatal(err)
	}
	tool := tools[0]

	for _, input := range []string{
		`{"a": 1, "b": 2}`,
		`{"__arg1": "{\"a\": 3, \"b\": 4}"}`,
		"```json\n{\"a\": 5, \"b\": 6}\n```",
		"seven and eight",
	} {
		out, err := tool.Call(context.Background(), input)
		fmt.Println(out, err)
	}
	// Output:
	// 3 <nil>
	// 7 <nil>
	// 11 <nil>
	// {"error":{"kind":"args_invalid","message":"the input is not a JSON object; send a JSON object {\"a\": integer (first addend), \"b\": integer (second addend)}","tool":"add"}} <nil>
}

// exampleModel asks for the add tool once, then reports its answer.
type exampleModel struct{ turn int }

func (m *exampleModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	m.turn++
	if m.turn == 1 {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{{
			ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "add", Arguments: `{"a":20,"b":22}`},
		}}}}}, nil
	}
	last := msgs[len(msgs)-1].Parts[0].(llms.ToolCallResponse)
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "The sum is " + last.Content}}}, nil
}

func (m *exampleModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// A function-calling loop with the tools' real schemas.
func ExampleDispatcher_Loop() {
	reg := exampleRegistry()
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()

	d, err := lca.NewDispatcher(reg, exec, &lca.DispatcherOptions{Strict: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Tools()[0].Function.Parameters)

	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "What is 20+22?")}
	_, final, err := d.Loop(context.Background(), &exampleModel{}, msgs, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(final.Content)
	// Output:
	// map[additionalProperties:false properties:map[a:map[description:first addend type:integer] b:map[description:second addend type:integer]] required:[a b] type:object]
	// The sum is 42
}
