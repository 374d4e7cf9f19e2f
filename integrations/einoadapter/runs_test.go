package einoadapter_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// Run limits hold per agent run: two runs of a react agent, each making two
// calls in two steps under MaxCalls 1, each get one call through and one
// refused (the model reads run_limit_exceeded); neither spends the other's
// budget.
func TestRunLimitsPerAgentRun(t *testing.T) {
	ctx := context.Background()
	var ran atomic.Int32
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("add", "adds", func(_ context.Context, in addIn) (addOut, error) {
		ran.Add(1)
		return addOut{Sum: in.A + in.B}, nil
	}, nil))
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
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Limits: adapter.Limits{MaxCalls: 1}, Hooks: []adapter.Hook{hook}})
	defer exec.Close()
	tools, err := einoadapter.Tools(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for run := range 2 {
		m := &stepModel{steps: [][]schema.ToolCall{{call("c1", "add", `{"a":1,"b":2}`)}, {call("c2", "add", `{"a":3,"b":4}`)}}}
		a, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: m, ToolsConfig: compose.ToolsNodeConfig{Tools: tools}, MaxStep: 10})
		if err != nil {
			t.Fatal(err)
		}
		out, err := a.Generate(ctx, userMsg("add twice"), agent.WithComposeOptions(compose.WithCallbacks(einoadapter.RunScope(nil))))
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if got := ran.Load(); got != int32(run+1) {
			t.Errorf("after run %d the tool ran %d times, want %d (one per run)", run, got, run+1)
		}
		if !strings.Contains(out.Content, `c1={"sum":3}`) || !strings.Contains(out.Content, `c2={"error":{"kind":"run_limit_exceeded"`) {
			t.Errorf("run %d: the model read %s, want the first call's sum and run_limit_exceeded for the second", run, out.Content)
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
