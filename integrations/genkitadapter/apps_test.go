package genkitadapter_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

// The real MCP Apps server from npm (server-system-monitor) imported
// through mcpadapter: genkitadapter.Tools and DefineTools leave out its
// app-only poll-system-stats, and genkit.Generate, driven by a model that
// names it anyway, reads not_found (one not_found record) while its model
// tool runs.
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
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: led})
	defer exec.Close()

	g := newGenkit(t)
	tools, err := genkitadapter.Tools(g, reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	g2 := newGenkit(t)
	defined, err := genkitadapter.DefineTools(g2, reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for what, refs := range map[string][]ai.ToolRef{"Tools": tools, "DefineTools": defined} {
		var names []string
		for _, r := range refs {
			names = append(names, r.Name())
		}
		if !slices.Equal(names, []string{"get-system-info"}) {
			t.Errorf("genkitadapter.%s offers %v, want get-system-info only", what, names)
		}
	}
	if genkit.LookupTool(g2, "poll-system-stats") != nil {
		t.Error("DefineTools registered poll-system-stats with genkit, where a model can name it")
	}

	md := defineScripted(t, g, "monitor",
		callTools(&ai.ToolRequest{Name: "poll-system-stats", Ref: "c1", Input: map[string]any{}},
			&ai.ToolRequest{Name: "get-system-info", Ref: "c2", Input: map[string]any{}}),
		echoToolOutputs())
	resp, err := genkit.Generate(ctx, g, ai.WithModel(md), ai.WithPrompt("how busy is this machine?"), ai.WithTools(tools...),
		ai.WithMiddleware(genkitadapter.UnknownToolsMiddleware(exec)))
	if err != nil {
		t.Fatal(err)
	}
	for _, td := range md.requests()[0].Tools {
		if td.Name == "poll-system-stats" {
			t.Error("the model was offered poll-system-stats")
		}
	}
	var answered []string
	for _, msg := range resp.History() {
		for _, p := range msg.Content {
			if p.IsToolResponse() {
				out, _ := normalize(p.ToolResponse.Output).(map[string]any)
				if e, ok := out["error"].(map[string]any); ok {
					answered = append(answered, p.ToolResponse.Ref+"="+e["kind"].(string))
				} else if _, ok := out["hostname"]; ok {
					answered = append(answered, p.ToolResponse.Ref+"=info")
				} else {
					answered = append(answered, p.ToolResponse.Ref+"=other")
				}
			}
		}
	}
	slices.Sort(answered)
	if got, want := strings.Join(answered, " "), "c1=not_found c2=info"; got != want {
		t.Errorf("the model read %s, want %s", got, want)
	}
	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var recs []string
	for _, r := range led.Records() {
		recs = append(recs, r.Tool+" "+r.Outcome+" "+r.Integration)
	}
	slices.Sort(recs)
	if want := []string{"get-system-info ok genkit", "poll-system-stats not_found genkit"}; !slices.Equal(recs, want) {
		t.Errorf("ledger = %q, want %q", recs, want)
	}
}
