package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/integrations/einoadapter"
)

// runEino asks the question through an Eino react agent. The approval
// becomes an eino interrupt; the agent resumes from its checkpoint once the
// ticket is approved.
func runEino(ctx context.Context, e *env) (string, error) {
	tools, err := einoadapter.Tools(e.reg, e.exec, nil)
	if err != nil {
		return "", err
	}
	chat, err := einoChatModel(ctx, e)
	if err != nil {
		return "", err
	}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: chat,
		// A made-up tool name gives the model not_found instead of ending the run.
		ToolsConfig: compose.ToolsNodeConfig{Tools: tools, UnknownToolsHandler: einoadapter.UnknownToolsHandler(e.exec)},
		MaxStep:     20,
	})
	if err != nil {
		return "", err
	}
	// react.Agent keeps no checkpoints itself: run its graph inside one that does.
	g := compose.NewGraph[[]*schema.Message, *schema.Message]()
	ag, opts := agent.ExportGraph()
	if err := g.AddGraphNode("agent", ag, opts...); err != nil {
		return "", err
	}
	if err := g.AddEdge(compose.START, "agent"); err != nil {
		return "", err
	}
	if err := g.AddEdge("agent", compose.END); err != nil {
		return "", err
	}
	runner, err := g.Compile(ctx, compose.WithCheckPointStore(&checkpoints{m: map[string][]byte{}}))
	if err != nil {
		return "", err
	}
	scope := compose.WithCallbacks(einoadapter.RunScope(nil))
	in := []*schema.Message{schema.UserMessage(question)}
	// A real model may ask for several approvals in turn.
	for range 5 {
		out, err := runner.Invoke(ctx, in, compose.WithCheckPointID("quickstart"), scope)
		pending := einoadapter.PendingFromError(err)
		if len(pending) == 0 {
			if err != nil {
				return "", err
			}
			return out.Content, nil
		}
		for _, p := range pending {
			if err := e.approve(ctx, p.Ticket, p.Tool, p.Args); err != nil {
				return "", err
			}
			ctx = compose.Resume(ctx, p.InterruptID)
		}
		in = nil // resume from the checkpoint
	}
	return "", fmt.Errorf("the agent kept pausing")
}

// einoChatModel returns the scripted model, or, with a provider configured,
// eino-ext's OpenAI chat model.
func einoChatModel(ctx context.Context, e *env) (model.ToolCallingChatModel, error) {
	if e.llm == nil {
		return &einoModel{steps: script("eino")}, nil
	}
	return einoopenai.NewChatModel(ctx, &einoopenai.ChatModelConfig{
		APIKey:  e.llm.key,
		BaseURL: e.llm.baseURL,
		Model:   e.llm.model,
		Timeout: time.Minute,
	})
}

// einoModel is a scripted eino chat model: one tool call per turn, then an
// answer quoting what the tools returned.
type einoModel struct {
	mu    sync.Mutex
	steps []step
	n     int
}

func (m *einoModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n < len(m.steps) {
		s := m.steps[m.n]
		m.n++
		return schema.AssistantMessage("", []schema.ToolCall{{
			ID: fmt.Sprintf("call_%d", m.n), Type: "function",
			Function: schema.FunctionCall{Name: s.tool, Arguments: s.args},
		}}), nil
	}
	var read []string
	for _, msg := range in {
		if msg.Role == schema.Tool {
			read = append(read, msg.ToolName+"="+msg.Content)
		}
	}
	return schema.AssistantMessage("I read: "+strings.Join(read, "; "), nil), nil
}

func (m *einoModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *einoModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

// checkpoints is an in-memory eino checkpoint store.
type checkpoints struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *checkpoints) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *checkpoints) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = b
	return nil
}
