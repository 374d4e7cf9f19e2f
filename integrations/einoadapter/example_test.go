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

// A call held for approval interrupts the graph; approve its ticket and
// resume from the checkpoint: the resumed call presents the ticket, so
// exactly the approved arguments run, once. The react agent takes no
// checkpoint store, so its graph runs as a node of one compiled with a
// store (with adk, pass Pending's InterruptID in ResumeParams.Targets).
func ExamplePendingFromError() {
	deferred := &adapter.Deferred{}
	exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: deferred}})
	defer exec.Close()
	type payIn struct {
		To     string `json:"to"`
		Amount int    `json:"amount"`
	}
	// A tool that is not read-only: the executor's approval port holds its calls.
	pay := adapter.MustTool("pay", "pays someone", func(_ context.Context, in payIn) (string, error) {
		return fmt.Sprintf("paid %s %d", in.To, in.Amount), nil
	}, nil)
	payTool, err := einoadapter.Tool(pay, exec, nil)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	a, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: newModel(call("call_1", "pay", `{"to":"bob","amount":5}`)),
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{payTool}},
	})
	if err != nil {
		log.Fatal(err)
	}
	g := compose.NewGraph[[]*schema.Message, *schema.Message]()
	ag, addOpts := a.ExportGraph()
	if err := errors.Join(g.AddGraphNode("agent", ag, addOpts...), g.AddEdge(compose.START, "agent"), g.AddEdge("agent", compose.END)); err != nil {
		log.Fatal(err)
	}
	r, err := g.Compile(ctx, compose.WithCheckPointStore(&memStore{}))
	if err != nil {
		log.Fatal(err)
	}

	_, err = r.Invoke(ctx, []*schema.Message{schema.UserMessage("pay bob 5")}, compose.WithCheckPointID("run-1"))
	for _, p := range einoadapter.PendingFromError(err) {
		fmt.Println("held:", p.Tool, p.Args)
		if err := deferred.Approve(ctx, p.Ticket, "alice"); err != nil {
			log.Fatal(err)
		}
		msg, err := r.Invoke(compose.Resume(ctx, p.InterruptID), nil, compose.WithCheckPointID("run-1"))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(msg.Content)
	}
	// Output:
	// held: pay {"to":"bob","amount":5}
	// done: call_1=paid bob 5
}
