package anthropicadapter_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/integrations/anthropicadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type addArgs struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

// scripted is a stand-in for the Messages API: it asks for calls, one a
// turn, then answers with the text of every result it read.
func scripted(steps ...anthropic.BetaToolUseBlockParam) *fakeAPI {
	var read []string
	return startAPI(func(n int, req *anthropic.BetaMessageNewParams) turn {
		for _, r := range results(req) {
			for _, c := range r.Content {
				if c.OfText != nil {
					read = append(read, c.OfText.Text)
				}
			}
		}
		if n < len(steps) {
			return turn{calls: calls(steps[n])}
		}
		return turn{text: "I read: " + strings.Join(read, "; ")}
	})
}

// A tool-runner conversation with the registry's tools, every call through
// the executor, in one run scope.
func ExampleToolset_Run() {
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("add", "Adds two integers.", func(_ context.Context, in addArgs) (int, error) {
		return in.A + in.B, nil
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: new(bool)}}))
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	tools, err := anthropicadapter.Tools(reg, exec, nil)
	if err != nil {
		panic(err)
	}

	api := scripted(use("toolu_1", "add", `{"a":2,"b":3}`), use("toolu_2", "subtract", `{"a":2,"b":3}`))
	defer api.srv.Close()
	client := api.client() // anthropic.NewClient() with ANTHROPIC_API_KEY for the real API
	msg, err := tools.Run(context.Background(), &client.Beta.Messages, anthropic.BetaToolRunnerParams{
		BetaMessageNewParams: anthropic.BetaMessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024,
			Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("What is 2+3?"))}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(msg.Content[0].Text)
	// Output:
	// I read: 5; Error: {"error":{"kind":"not_found","message":"no tool named \"subtract\"","tool":"subtract"}}
}

// A destructive call stops the conversation for approval; once the ticket
// is approved, Resume runs exactly the approved call, once.
func ExampleToolset_Resume() {
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("delete_report", "Deletes a report.", func(_ context.Context, in struct {
		Name string `json:"name"`
	}) (string, error) {
		return "deleted " + in.Name, nil
	}, &adapter.ToolOptions{Output: adapter.OutputText}))
	approvals := &approval.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: approvals}})
	defer exec.Close()
	tools, err := anthropicadapter.Tools(reg, exec, nil)
	if err != nil {
		panic(err)
	}
	api := scripted(use("toolu_1", "delete_report", `{"name":"draft.txt"}`))
	defer api.srv.Close()
	client := api.client()
	ctx := context.Background()
	params := anthropic.BetaToolRunnerParams{BetaMessageNewParams: anthropic.BetaMessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024,
		Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("Delete the draft."))}}}

	_, err = tools.Run(ctx, &client.Beta.Messages, params)
	var held *anthropicadapter.Held
	if !errors.As(err, &held) {
		panic(err)
	}
	for _, c := range held.Calls {
		fmt.Println("held:", c.Tool, c.Args)
		if err := approvals.Approve(ctx, c.Ticket, "operator"); err != nil {
			panic(err)
		}
	}
	msg, err := tools.Resume(ctx, &client.Beta.Messages, params, held)
	if err != nil {
		panic(err)
	}
	fmt.Println(msg.Content[0].Text)
	// Output:
	// held: delete_report {"name":"draft.txt"}
	// I read: deleted draft.txt
}

// The tools in a runner of one's own: every call still goes through the
// executor, but no tool can stop the runner, so a held call reads as its
// approval_pending payload.
func ExampleToolset_BetaTools() {
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("add", "Adds two integers.", func(_ context.Context, in addArgs) (int, error) {
		return in.A + in.B, nil
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: new(bool)}}))
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	tools, err := anthropicadapter.Tools(reg, exec, nil)
	if err != nil {
		panic(err)
	}
	api := scripted(use("toolu_1", "add", `{"a":40,"b":2}`))
	defer api.srv.Close()
	client := api.client()
	ctx, _ := adapter.WithRun(context.Background(), nil) // one run scope for the conversation
	runner := client.Beta.Messages.NewToolRunner(tools.BetaTools(), anthropic.BetaToolRunnerParams{
		BetaMessageNewParams: anthropic.BetaMessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024,
			Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("What is 40+2?"))}},
	})
	msg, err := runner.RunToCompletion(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(msg.Content[0].Text)
	// Output:
	// I read: 42
}
