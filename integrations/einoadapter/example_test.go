package einoadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type divIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

func ExampleTool() {
	div := adapter.MustTool("div", "divides a by b", func(_ context.Context, in divIn) (float64, error) {
		if in.B == 0 {
			return 0, errors.New("division by zero")
		}
		return in.A / in.B, nil
	}, nil)
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	t, err := einoadapter.Tool(div, exec, nil)
	if err != nil {
		log.Fatal(err)
	}
	it := t.(tool.InvokableTool)
	ctx := context.Background()
	out, _ := it.InvokableRun(ctx, `{"a":1,"b":4}`)
	fmt.Println(out)
	// A failure is a result the model reads, not an error that ends the run.
	out, err = it.InvokableRun(ctx, `{"a":1,"b":0}`)
	fmt.Println(out, err)
	// Output:
	// 0.25
	// {"error":{"kind":"tool_error","message":"division by zero","tool":"div"}} <nil>
}

func ExampleTools() {
	reg := registry.New()
	reg.MustRegister(addSpec())
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	// The stock react agent cannot pause: a call held for approval comes
	// back to the model as a payload with its ticket (for a real pause, run
	// ExportGraph in a graph compiled with a checkpoint store).
	tools, err := einoadapter.Tools(reg, exec, &einoadapter.Options{PendingAsPayload: true})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	a, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: newModel(call("call_1", "add", `{"a":2,"b":3}`)), // an offline scripted model
		ToolsConfig: compose.ToolsNodeConfig{
			Tools:               tools,
			ToolCallMiddlewares: []compose.ToolMiddleware{einoadapter.Middleware()}, // for tools built elsewhere
			UnknownToolsHandler: einoadapter.UnknownToolsHandler(exec),
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	msg, err := a.Generate(ctx, []*schema.Message{schema.UserMessage("2+3?")},
		agent.WithComposeOptions(compose.WithCallbacks(einoadapter.RunScope(nil))))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(msg.Content)
	// Output:
	// done: call_1={"sum":5}
}

func ExampleSchema() {
	s, err := einoadapter.SchemaFromJSON([]byte(`{"type":"object",
		"properties":{"p":{"$ref":"#/definitions/P"}},
		"definitions":{"P":{"type":"string","x-widget":"color"}}}`))
	if err != nil {
		log.Fatal(err)
	}
	b, _ := json.Marshal(s)
	fmt.Println(string(b))
	// Output:
	// {"$defs":{"P":{"type":"string","x-widget":"color"}},"properties":{"p":{"$ref":"#/$defs/P"}},"type":"object"}
}
