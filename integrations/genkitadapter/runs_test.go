package genkitadapter_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// Run limits hold per agent run: two generations, each making two calls in
// two turns under MaxCalls 1, each get one call through and one refused
// (the model reads run_limit_exceeded); neither spends the other's budget.
func TestRunLimitsPerAgentRun(t *testing.T) {
	ctx := context.Background()
	g := newGenkit(t)
	var ran atomic.Int32
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("add", "Adds two integers.", func(_ context.Context, in addIn) (addOut, error) {
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
	tools, err := genkitadapter.Tools(g, reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for run := range 2 {
		m := defineScripted(t, g, "twice"+string(rune('a'+run)),
			callTool("add", "c1", map[string]any{"a": 1, "b": 2}),
			callTool("add", "c2", map[string]any{"a": 3, "b": 4}),
			echoToolOutputs())
		resp, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("add twice"), ai.WithTools(tools...))
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if got := ran.Load(); got != int32(run+1) {
			t.Errorf("after run %d the tool ran %d times, want %d (one per run)", run, got, run+1)
		}
		out := toolOutputs(m.requests()[2])
		p, _ := out["add"].(map[string]any)
		if e, _ := p["error"].(map[string]any); e["kind"] != string(adapter.KindRunLimitExceeded) {
			t.Errorf("run %d: the second call read %v, want run_limit_exceeded (answer %s)", run, out, resp.Text())
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
