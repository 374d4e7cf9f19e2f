// Command eino runs agentadapter tools inside an Eino react agent, offline:
// a scripted model asks for two tool calls, a typed local tool answers one,
// the other needs approval, so the agent pauses (an eino interrupt carrying
// the approval ticket), the ticket is approved, and the agent resumes from
// its checkpoint and finishes.
//
//	go run ./eino
package main

import (
	"context"
	"fmt"
	"log"
	"strings"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type addIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

type transferIn struct {
	To     string `json:"to" jsonschema:"recipient"`
	Amount int    `json:"amount" jsonschema:"amount in cents"`
}

func main() {
	ctx := context.Background()
	closed := false
	reg := registry.New()
	reg.MustRegister(
		adapter.MustTool("add", "adds two integers", func(_ context.Context, in addIn) (addOut, error) {
			return addOut{Sum: in.A + in.B}, nil
		}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &closed}}),
		// No hints: destructive and open-world, so the default policy asks for approval.
		adapter.MustTool("transfer", "sends money", func(_ context.Context, in transferIn) (string, error) {
			return fmt.Sprintf("sent %d to %s", in.Amount, in.To), nil
		}, &adapter.ToolOptions{Output: adapter.OutputText}),
	)

	approvals := &approval.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: approvals}})
	defer exec.Close()

	tools, err := einoadapter.Tools(reg, exec, nil)
	if err != nil {
		log.Fatal(err)
	}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: &scripted{},
		ToolsConfig: compose.ToolsNodeConfig{
			Tools: tools,
			// Eino tools built elsewhere get the same error policy.
			ToolCallMiddlewares: []compose.ToolMiddleware{einoadapter.Middleware()},
			// A made-up tool name gives the model not_found instead of
			// ending the run.
			UnknownToolsHandler: einoadapter.UnknownToolsHandler(exec),
		},
	})
	if err != nil {
		log.Fatal(err)
	}

	// react.Agent has no checkpoint store of its own: run its graph inside one.
	g := compose.NewGraph[[]*schema.Message, *schema.Message]()
	ag, opts := agent.ExportGraph()
	must(g.AddGraphNode("agent", ag, opts...))
	must(g.AddEdge(compose.START, "agent"))
	must(g.AddEdge("agent", compose.END))
	runner, err := g.Compile(ctx, compose.WithCheckPointStore(&memStore{m: map[string][]byte{}}))
	if err != nil {
		log.Fatal(err)
	}
	scope := compose.WithCallbacks(einoadapter.RunScope(nil)) // one run scope per run

	_, err = runner.Invoke(ctx, []*schema.Message{schema.UserMessage("add 2 and 3, then pay bob 100")},
		compose.WithCheckPointID("session-1"), scope)
	pending := einoadapter.PendingFromError(err)
	if len(pending) == 0 {
		log.Fatalf("expected the agent to pause for approval, got %v", err)
	}
	for _, p := range pending {
		fmt.Printf("paused: %s wants %s\n", p.Tool, p.Args)
		if err := approvals.Approve(ctx, p.Ticket, "alice"); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("approved ticket by alice\n")
		ctx = compose.Resume(ctx, p.InterruptID)
	}

	out, err := runner.Invoke(ctx, nil, compose.WithCheckPointID("session-1"), scope)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answer:", out.Content)
}

// scripted is an offline model: it asks for the tool calls, then reports
// what the tools returned.
type scripted struct{}

func (*scripted) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	last := in[len(in)-1]
	if last.Role != schema.Tool {
		return schema.AssistantMessage("", []schema.ToolCall{
			{ID: "call_1", Type: "function", Function: schema.FunctionCall{Name: "add", Arguments: `{"a":2,"b":3}`}},
			{ID: "call_2", Type: "function", Function: schema.FunctionCall{Name: "transfer", Arguments: `{"to":"bob","amount":100}`}},
		}), nil
	}
	var parts []string
	for _, m := range in {
		if m.Role == schema.Tool {
			parts = append(parts, m.ToolName+" → "+m.Content)
		}
	}
	return schema.AssistantMessage(strings.Join(parts, "; "), nil), nil
}

func (s *scripted) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m, err := s.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{m}), nil
}

func (s *scripted) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return s, nil }

// memStore is an in-memory checkpoint store.
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memStore) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *memStore) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = b
	return nil
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
