package langchaingoadapter_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit/kittest"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// TestKit: a function-calling model driven by Dispatcher.Loop gives the
// model what every integration gives it.
func TestKit(t *testing.T) {
	kittest.Run(t, kittest.Harness{Run: func(ctx context.Context, reg *registry.Registry, exec *adapter.Executor, calls []kittest.Call) ([]string, error) {
		d, err := lca.NewDispatcher(reg, exec, nil)
		if err != nil {
			return nil, err
		}
		m := &scriptedModel{}
		for i, c := range calls {
			m.turns = append(m.turns, callTools(toolCall(fmt.Sprint("call_", i), c.Tool, c.Args)))
		}
		m.turns = append(m.turns, answer("done"))
		msgs, _, err := d.Loop(ctx, m, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "go")}, nil)
		if err != nil {
			return nil, err
		}
		byID := toolResponses(msgs)
		read := make([]string, 0, len(calls))
		for i := range calls {
			if r, ok := byID[fmt.Sprint("call_", i)]; ok {
				read = append(read, r)
			}
		}
		return read, nil
	}})
}
