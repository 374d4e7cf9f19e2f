package langchaingoadapter_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"

	"github.com/agentadapter/agentadapter/adapter"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

// The real MCP Apps server from npm (server-system-monitor) imported
// through mcpadapter: Tools, Definitions and a Dispatcher leave out its
// app-only poll-system-stats. A Dispatcher.Loop whose model names it reads
// not_found (one not_found record) while get-system-info runs; langchaingo's
// own OneShot agent, which answers names it was not given itself, never
// reaches the upstream tool.
func TestAppOnlyToolOfMCPAppsServer(t *testing.T) {
	ctx := context.Background()
	cmd := testpeers.Command(t, "mcp-system-monitor-server", "--stdio")
	reg := registry.New()
	m := mcpadapter.NewManager(reg, nil)
	defer m.Close()
	if err := m.Connect(ctx, mcpadapter.Server{Name: "monitor", Command: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env,
		ConnectTimeout: time.Minute, CallTimeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.Lookup("poll-system-stats"); !ok {
		t.Fatal("poll-system-stats was not imported")
	}
	led := adapter.NewMemoryLedger(0)
	exec := newExecutor(t, reg, &adapter.ExecutorOptions{Ledger: led})

	tools := mustTools(t, reg, exec, nil)
	defs, _ := lca.Definitions(reg, nil)
	d := mustDispatcher(t, reg, exec, nil)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name())
	}
	for _, def := range append(defs, d.Tools()...) {
		names = append(names, def.Function.Name)
	}
	if got := strings.Join(names, ","); got != "get-system-info,get-system-info,get-system-info" {
		t.Errorf("offered tools = %s, want get-system-info only in Tools, Definitions and Dispatcher.Tools", got)
	}

	model := &scriptedModel{turns: []turn{
		callTools(toolCall("c1", "poll-system-stats", `{}`), toolCall("c2", "get-system-info", `{}`)),
		answer("done"),
	}}
	if _, _, err := d.Loop(ctx, model, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "how busy?")}, nil); err != nil {
		t.Fatal(err)
	}
	for _, def := range model.opts[0].Tools {
		if def.Function.Name == "poll-system-stats" {
			t.Error("the model was offered poll-system-stats")
		}
	}
	got := toolResponses(model.requests()[1])
	if p, ok := payload(got["c1"]); !ok || p.Kind != adapter.KindNotFound {
		t.Errorf("the model read %q for poll-system-stats, want the not_found payload", got["c1"])
	}
	if !strings.Contains(got["c2"], "hostname") {
		t.Errorf("get-system-info reached the model as %q", got["c2"])
	}

	// langchaingo's OneShot agent is not given the tool: its executor
	// answers the name itself, and no call reaches the upstream.
	llm := fake.NewFakeLLM([]string{
		"Thought: poll.\nAction: poll-system-stats\nAction Input: {}",
		"Thought: done.\nFinal Answer: no stats",
	})
	agent := agents.NewOneShotAgent(llm, tools, agents.WithMaxIterations(3))
	if out, err := lca.Run(ctx, agents.NewExecutor(agent, agents.WithMaxIterations(3)), "how busy?", nil); err != nil || out != "no stats" {
		t.Errorf("OneShot agent = %q, %v", out, err)
	}

	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var recs []string
	for _, r := range led.Records() {
		recs = append(recs, r.Tool+" "+r.Outcome+" "+r.Integration)
	}
	slices.Sort(recs)
	if want := []string{"get-system-info ok langchaingo", "poll-system-stats not_found langchaingo"}; !slices.Equal(recs, want) {
		t.Errorf("ledger = %q, want %q", recs, want)
	}
}
