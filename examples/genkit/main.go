// Command genkit runs agentadapter tools inside a Genkit flow, offline: a
// scripted model stands in for a real one. It shows a local typed tool, a
// tool imported from an in-process MCP server, a failing call the model
// reads and recovers from, and a call held for approval, approved and
// resumed.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type addIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

type divideIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type divideOut struct {
	Quotient float64 `json:"quotient"`
}

type refundIn struct {
	Order  string `json:"order"`
	Amount int    `json:"amount"`
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := genkit.Init(ctx)
	// genkit.Init captures SIGINT and SIGTERM for good; give Ctrl-C back.
	signal.Reset(os.Interrupt, syscall.SIGTERM)

	reg := registry.New()

	// A local typed tool, and one that needs approval (it is destructive).
	reg.MustRegister(
		adapter.MustTool("add", "Adds two integers.", func(_ context.Context, in addIn) (addOut, error) {
			return addOut{Sum: in.A + in.B}, nil
		}, nil),
		adapter.MustTool("refund", "Refunds an order.", func(_ context.Context, in refundIn) (string, error) {
			return fmt.Sprintf("refunded %d on %s", in.Amount, in.Order), nil
		}, &adapter.ToolOptions{Output: adapter.OutputText}),
	)

	// A tool imported from an MCP server running in this process.
	server := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "divide", Description: "Divides a by b."}, func(_ context.Context, _ *mcp.CallToolRequest, in divideIn) (*mcp.CallToolResult, divideOut, error) {
		if in.B == 0 {
			return nil, divideOut{}, errors.New("division by zero")
		}
		return nil, divideOut{Quotient: in.A / in.B}, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	manager := mcpadapter.NewManager(reg, nil)
	defer manager.Close()
	if err := manager.Connect(ctx, mcpadapter.Upstream{Name: "calc", Transport: ct, Trust: true}); err != nil { // our own server
		log.Fatal(err)
	}

	deferred := &approval.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
		Approval: adapter.ApprovalOptions{Port: deferred, Tools: map[string]adapter.ApprovalPolicy{
			"add": adapter.ApproveNever, "divide": adapter.ApproveNever,
		}},
	})
	defer exec.Close()
	tools, err := genkitadapter.DefineTools(g, reg, exec, nil)
	if err != nil {
		log.Fatal(err)
	}

	model := scriptedModel(g)
	flow := genkit.DefineFlow(g, "support", func(ctx context.Context, question string) (string, error) {
		// UnknownTools: a made-up tool name gives the model not_found
		// instead of ending the generation.
		opts := []ai.GenerateOption{ai.WithModel(model), ai.WithTools(tools...), ai.WithMiddleware(genkitadapter.UnknownToolsMiddleware(exec))}
		resp, err := genkit.Generate(ctx, g, append(opts, ai.WithPrompt(question))...)
		for err == nil && resp.FinishReason == ai.FinishReasonInterrupted {
			resp, err = genkitadapter.Resume(ctx, g, resp, func(ctx context.Context, a *genkitadapter.Approval) error {
				fmt.Printf("approval asked: %s %s (ticket %s) -> approved\n", a.Tool, a.Args, a.Ticket)
				return deferred.Approve(ctx, a.Ticket, "support-lead")
			}, opts...)
		}
		if err != nil {
			return "", err
		}
		return resp.Text(), nil
	})
	answer, err := flow.Run(ctx, "Add 2 and 3, divide 1 by 0, then refund order A-17.")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answer:", answer)
}

// scriptedModel plays a fixed conversation, printing what it reads.
func scriptedModel(g *genkit.Genkit) ai.Model {
	script := []*ai.ToolRequest{
		{Name: "add", Ref: "c1", Input: map[string]any{"a": 2, "b": 3}},
		{Name: "divide", Ref: "c2", Input: map[string]any{"a": 1, "b": 0}},
		{Name: "refund", Ref: "c3", Input: map[string]any{"order": "A-17", "amount": 40}},
	}
	turn := 0
	return genkit.DefineModel(g, "example/scripted", &ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true}},
		func(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			if last := req.Messages[len(req.Messages)-1]; last.Role == ai.RoleTool {
				for _, p := range last.Content {
					out, _ := json.Marshal(p.ToolResponse.Output)
					fmt.Printf("model reads %s: %s\n", p.ToolResponse.Name, out)
				}
			}
			var msg *ai.Message
			if turn < len(script) {
				msg = ai.NewMessage(ai.RoleModel, nil, ai.NewToolRequestPart(script[turn]))
			} else {
				msg = ai.NewModelTextMessage("2+3 is 5, 1/0 is undefined, and order A-17 is refunded.")
			}
			turn++
			return &ai.ModelResponse{Request: req, Message: msg}, nil
		})
}
