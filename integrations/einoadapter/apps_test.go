package einoadapter_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

// The real MCP Apps server from npm (server-system-monitor) imported
// through mcpadapter: einoadapter.Tools leaves out its app-only
// poll-system-stats, and eino's react agent, driven by a model that names
// it anyway, reads not_found (one not_found record) while its model tool
// runs; the same import still lists it to MCP clients.
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
	led := adapter.NewMemoryLedger(0)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: led})
	defer exec.Close()

	tools, err := einoadapter.Tools(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	var offered []string
	for _, tl := range tools {
		info, _ := tl.Info(ctx)
		offered = append(offered, info.Name)
	}
	if !slices.Equal(offered, []string{"get-system-info"}) {
		t.Errorf("einoadapter.Tools offers %v, want get-system-info only", offered)
	}
	var mcpListed []string
	for s := range reg.List(registry.Filter{Target: adapter.TargetMCP}) {
		mcpListed = append(mcpListed, s.Name)
	}
	if !slices.Contains(mcpListed, "poll-system-stats") {
		t.Errorf("the MCP export's listing %v lacks the app-only tool", mcpListed)
	}

	md := newModel(call("c1", "poll-system-stats", `{}`), call("c2", "get-system-info", `{}`))
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: md,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: tools, UnknownToolsHandler: einoadapter.UnknownToolsHandler(exec)},
		MaxStep:          10,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Generate(ctx, userMsg("how busy is this machine?")); err != nil {
		t.Fatal(err)
	}
	for _, ti := range md.tools {
		if ti.Name == "poll-system-stats" {
			t.Error("the model was offered poll-system-stats")
		}
	}
	res := md.toolResults()
	var p adapter.Payload
	if res["c1"] == nil || json.Unmarshal([]byte(res["c1"].Content), &p) != nil || p.Error.Kind != adapter.KindNotFound {
		t.Errorf("the model read %v for poll-system-stats, want the not_found payload", contents(res))
	}
	if res["c2"] == nil || !strings.Contains(toolText(res["c2"]), "hostname") {
		t.Errorf("get-system-info reached the model as %v", contents(res))
	}
	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var recs []string
	for _, r := range led.Records() {
		recs = append(recs, r.Tool+" "+r.Outcome+" "+r.Integration)
	}
	slices.Sort(recs)
	if want := []string{"get-system-info ok eino", "poll-system-stats not_found eino"}; !slices.Equal(recs, want) {
		t.Errorf("ledger = %q, want %q", recs, want)
	}
}
