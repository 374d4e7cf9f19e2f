package genkitadapter_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// exampleModel stands in for a real model: it calls the named tool once,
// then answers with what the tool returned.
func exampleModel(g *genkit.Genkit, name, tool string, input any) ai.Model {
	return genkit.DefineModel(g, "example/"+name, &ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true}},
		func(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			last := req.Messages[len(req.Messages)-1]
			msg := ai.NewMessage(ai.RoleModel, nil, ai.NewToolRequestPart(&ai.ToolRequest{Name: tool, Ref: "call-1", Input: input}))
			if last.Role == ai.RoleTool {
				msg = ai.NewModelTextMessage(fmt.Sprintf("the tool said %v", last.Content[0].ToolResponse.Output))
			}
			return &ai.ModelResponse{Request: req, Message: msg}, nil
		})
}

func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := genkit.Init(ctx)
	signal.Reset(os.Interrupt, syscall.SIGTERM) // genkit.Init captured Ctrl-C

	reg := registry.New()
	reg.MustRegister(adapter.MustTool("add", "Adds two integers.", func(_ context.Context, in struct{ A, B int }) (int, error) {
		return in.A + in.B, nil
	}, nil))
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	tools, err := genkitadapter.Tools(g, reg, exec, nil)
	if err != nil {
		log.Fatal(err)
	}

	model := exampleModel(g, "adder", "add", map[string]any{"A": 2, "B": 3})
	resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt("What is 2+3?"), ai.WithTools(tools...))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text())
	// Output: the tool said 5
}

// A call that needs approval interrupts the generation; Resume approves it
// and runs it.
func ExampleResume() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := genkit.Init(ctx)
	signal.Reset(os.Interrupt, syscall.SIGTERM)

	deferred := &adapter.Deferred{}
	exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{
		Approval: adapter.ApprovalOptions{Port: deferred}, // destructive tools need approval
	})
	defer exec.Close()
	spec := adapter.MustTool("delete_file", "Deletes a file.", func(_ context.Context, in struct {
		Path string `json:"path"`
	}) (string, error) {
		return "deleted " + in.Path, nil
	}, &adapter.ToolOptions{Output: adapter.OutputText})
	tool, err := genkitadapter.NewTool(spec, exec, nil)
	if err != nil {
		log.Fatal(err)
	}
	opts := []ai.GenerateOption{ai.WithModel(exampleModel(g, "deleter", "delete_file", map[string]any{"path": "/tmp/x"})), ai.WithTools(tool)}

	resp, err := genkit.Generate(ctx, g, append(opts, ai.WithPrompt("Delete /tmp/x"))...)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.FinishReason)
	resp, err = genkitadapter.Resume(ctx, g, resp, func(ctx context.Context, a *genkitadapter.Approval) error {
		fmt.Printf("approving %s %s\n", a.Tool, a.Args)
		return deferred.Approve(ctx, a.Ticket, "alice")
	}, opts...)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text())
	// Output:
	// interrupted
	// approving delete_file {"path":"/tmp/x"}
	// the tool said deleted /tmp/x
}
