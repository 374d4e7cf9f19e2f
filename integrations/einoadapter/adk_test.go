package einoadapter_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
)

// Approval through eino's ADK runner: the interrupt arrives as an event,
// the runner resumes from its checkpoint store.
func TestApprovalADK(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var ran []string
	transfer := adapter.MustRawTool("transfer", "moves money", &adapterObject, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		mu.Lock()
		ran = append(ran, string(args))
		mu.Unlock()
		return adapter.TextResult("sent"), nil
	}, nil)
	deferred := &adapter.Deferred{}
	exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: deferred}})
	defer exec.Close()
	m := newModel(call("c1", "transfer", `{"to":"bob","amount":5}`))
	a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "payer", Description: "pays", Instruction: "pay", Model: m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{mustTool(t, transfer, exec, nil)}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: a, CheckPointStore: &memStore{}})

	drain := func(it *adk.AsyncIterator[*adk.AgentEvent]) (pend []*einoadapter.Pending, last string) {
		for {
			ev, ok := it.Next()
			if !ok {
				return pend, last
			}
			if ev.Err != nil {
				t.Fatalf("event error: %v", ev.Err)
			}
			if ev.Action != nil && ev.Action.Interrupted != nil {
				pend = append(pend, einoadapter.PendingFrom(ev.Action.Interrupted.InterruptContexts)...)
			}
			if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.Message != nil {
				last = ev.Output.MessageOutput.Message.Content
			}
		}
	}
	pend, _ := drain(runner.Query(ctx, "pay bob", adk.WithCheckPointID("cp")))
	if len(pend) != 1 || pend[0].Tool != "transfer" {
		t.Fatalf("pending = %+v", pend)
	}
	if len(ran) != 0 {
		t.Fatal("ran before approval")
	}
	must(t, deferred.Approve(ctx, pend[0].Ticket, "alice"))
	it, err := runner.ResumeWithParams(ctx, "cp", &adk.ResumeParams{Targets: map[string]any{pend[0].InterruptID: nil}})
	if err != nil {
		t.Fatal(err)
	}
	again, last := drain(it)
	if len(again) != 0 || last != "done: c1=sent" {
		t.Errorf("after resume: pending %+v, last message %q", again, last)
	}
	if len(ran) != 1 || ran[0] != `{"amount":5,"to":"bob"}` { // the canonical form
		t.Errorf("ran %q", ran)
	}
}
