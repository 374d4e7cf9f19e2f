package langchaingoadapter_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms/fake"

	"github.com/agentadapter/agentadapter/adapter"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
)

// Run limits hold per agent run: two runs of the same agent, each trying
// two calls under MaxCalls 1, each get one call through and one refused;
// neither run spends the other's budget.
func TestRunLimitsPerAgentRun(t *testing.T) {
	var ran atomic.Int32
	spec := adapter.MustTool("add", "Adds two integers.", func(_ context.Context, in addIn) (addOut, error) {
		ran.Add(1)
		return addOut{Sum: in.A + in.B}, nil
	}, nil)
	reg := newRegistry(t, spec)
	var mu sync.Mutex
	perRun := map[string]int{}
	hook := func(next adapter.Invoker) adapter.Invoker {
		return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
			mu.Lock()
			perRun[c.RunID]++
			mu.Unlock()
			return next(ctx, c)
		}
	}
	exec := newExecutor(t, reg, &adapter.ExecutorOptions{Limits: adapter.Limits{MaxCalls: 1}, Hooks: []adapter.Hook{hook}})
	tools := mustTools(t, reg, exec, nil)
	for run := range 2 {
		llm := fake.NewFakeLLM([]string{
			"Action: add\nAction Input: {\"a\": 1, \"b\": 2}",
			"Action: add\nAction Input: {\"a\": 3, \"b\": 4}",
			"Final Answer: done",
		})
		agent := agents.NewOneShotAgent(llm, tools, agents.WithMaxIterations(4))
		if _, err := lca.Run(context.Background(), agents.NewExecutor(agent, agents.WithMaxIterations(4)), "add twice", nil); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if got := ran.Load(); got != int32(run+1) {
			t.Errorf("after run %d the tool ran %d times, want %d (one per run)", run, got, run+1)
		}
	}
	if len(perRun) != 2 {
		t.Errorf("calls by run id = %v, want two runs", perRun)
	}
	for id, n := range perRun {
		if id == "" || n != 2 {
			t.Errorf("run %q made %d calls, want 2", id, n)
		}
	}
}
