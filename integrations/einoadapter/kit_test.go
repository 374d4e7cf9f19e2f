package einoadapter_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
	"github.com/agentadapter/agentadapter/integrations/kit/kittest"
	"github.com/agentadapter/agentadapter/registry"
)

// TestKit: eino's react agent, with the tools of Tools, the unknown-tools
// handler and a run scope per Generate, gives the model what every
// integration gives it. A held call interrupts the run.
func TestKit(t *testing.T) {
	kittest.Run(t, kittest.Harness{
		Run: func(ctx context.Context, reg *registry.Registry, exec *adapter.Executor, calls []kittest.Call) ([]string, error) {
			tools, err := einoadapter.Tools(reg, exec, nil)
			if err != nil {
				return nil, err
			}
			m := &stepByStep{calls: calls}
			a, err := react.NewAgent(ctx, &react.AgentConfig{
				ToolCallingModel: m,
				ToolsConfig:      compose.ToolsNodeConfig{Tools: tools, UnknownToolsHandler: einoadapter.UnknownToolsHandler(exec)},
				MaxStep:          2*len(calls) + 2,
			})
			if err != nil {
				return nil, err
			}
			if _, err := a.Generate(ctx, userMsg("go"), agent.WithComposeOptions(compose.WithCallbacks(einoadapter.RunScope(nil)))); err != nil {
				return nil, err
			}
			return m.read, nil
		},
		Held: func(err error) (string, bool) {
			if p := einoadapter.PendingFromError(err); len(p) == 1 {
				return p[0].Ticket, true
			}
			return "", false
		},
	})
}

// stepByStep asks for one call a turn, in order, and records the text of
// each tool message it reads.
type stepByStep struct {
	mu    sync.Mutex
	calls []kittest.Call
	next  int
	read  []string
}

func (m *stepByStep) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if last := in[len(in)-1]; last.Role == schema.Tool {
		m.read = append(m.read, toolText(last))
	}
	if m.next == len(m.calls) {
		return schema.AssistantMessage("done", nil), nil
	}
	c := m.calls[m.next]
	m.next++
	return schema.AssistantMessage("", []schema.ToolCall{call(fmt.Sprint("call_", m.next), c.Tool, c.Args)}), nil
}

func (m *stepByStep) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *stepByStep) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }
