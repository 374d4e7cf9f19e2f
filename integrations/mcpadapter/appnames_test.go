package mcpadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

// appsUpstream is an MCP Apps server: an app-only tool, a tool for the
// model and the app, one for the model alone, and one that is no app's.
func appsUpstream(name string, tools ...string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "v1"}, nil)
	metas := map[string]mcp.Meta{
		"poll":      {"ui": map[string]any{"visibility": []any{"app"}}},
		"info":      {"ui": map[string]any{"resourceUri": "ui://" + name + "/app.html"}},
		"modelonly": {"ui": map[string]any{"resourceUri": "ui://" + name + "/app.html", "visibility": []any{"model"}}},
		"plain":     nil,
	}
	for _, tool := range tools {
		out := name + " " + tool
		srv.AddTool(&mcp.Tool{Name: tool, InputSchema: impSchema(`{"type":"object"}`), Meta: metas[tool]},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}, nil
			})
	}
	return srv
}

// Under Prefix, an app's call of a tool by its upstream name reaches the
// served tool of that name, when exactly one app tool has it; a name two
// servers claim, a tool that is no app's or for the model alone, and one
// the export's filter hides stay not_found. The record names the served
// tool.
func TestAppToolsKeepTheirNames(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, call, want string
		filter           func(*adapter.Spec) bool
	}{
		{name: "app and model tool", call: "info", want: "mon info"},
		{name: "served name", call: "mon_poll", want: "mon poll"},
		{name: "app-only, one server", call: "poll", want: "mon poll", filter: func(s *adapter.Spec) bool { return s.Source.Server == "mon" }},
		{name: "app-only, two servers", call: "poll"},
		{name: "no app's tool", call: "plain"},
		{name: "model only", call: "modelonly"},
		{name: "hidden by the filter", call: "info", filter: func(s *adapter.Spec) bool { return s.Name != "mon_info" }},
		{name: "made up", call: "nosuch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := registry.New()
			m := mcpadapter.NewManager(reg, nil)
			t.Cleanup(func() { m.Close() })
			if err := m.Connect(ctx,
				mcpadapter.Upstream{Name: "mon", Prefix: true, Transport: inMemoryTo(t, appsUpstream("mon", "poll", "info", "modelonly", "plain"))},
				mcpadapter.Upstream{Name: "mon2", Prefix: true, Transport: inMemoryTo(t, appsUpstream("mon2", "poll"))}); err != nil {
				t.Fatal(err)
			}
			led := adapter.NewMemoryLedger(0)
			exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: led})
			t.Cleanup(func() { exec.Close() })
			exp, err := mcpadapter.NewExporter(reg, exec, &mcpadapter.ExportOptions{Filter: registry.Filter{Func: tc.filter}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { exp.Close() })
			st, ct := mcp.NewInMemoryTransports()
			ss, err := exp.MCPServer().Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ss.Close() })
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.call, Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, c := range res.Content {
				if tx, ok := c.(*mcp.TextContent); ok {
					got += tx.Text
				}
			}
			if tc.want == "" {
				if !res.IsError || !strings.Contains(got, `"kind":"not_found"`) {
					t.Errorf("call %s = %q, want not_found", tc.call, got)
				}
				return
			}
			if res.IsError || got != tc.want {
				t.Errorf("call %s = %q (isError %v), want %q", tc.call, got, res.IsError, tc.want)
			}
			if err := exec.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if recs := led.Records(); len(recs) != 1 || recs[0].Tool != "mon_"+strings.TrimPrefix(tc.call, "mon_") || recs[0].Outcome != "ok" {
				t.Errorf("ledger = %+v, want one ok record of the served tool", recs)
			}
		})
	}
}

// The real MCP Apps server under Prefix: the app's poll-system-stats call,
// by its upstream name, reaches monitor_poll-system-stats.
func TestAppToolKeepsItsNameRealServer(t *testing.T) {
	cmd := testpeers.Command(t, "mcp-system-monitor-server", "--stdio")
	reg := registry.New()
	m := mcpadapter.NewManager(reg, nil)
	t.Cleanup(func() { m.Close() })
	if err := m.Connect(context.Background(), mcpadapter.Upstream{Name: "monitor", Prefix: true, Command: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env,
		ConnectTimeout: time.Minute, CallTimeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	exec := adapter.NewExecutor(reg, nil)
	t.Cleanup(func() { exec.Close() })
	p := exportRaw(t, reg, exec)
	listed := rawTools(t, p.call("tools/list", map[string]any{}))
	if listed["monitor_poll-system-stats"] == nil || listed["poll-system-stats"] != nil {
		t.Fatalf("listed %v, want the prefixed name only", keys(listed))
	}
	var res struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
	}
	if err := json.Unmarshal(p.call("tools/call", map[string]any{"name": "poll-system-stats", "arguments": map[string]any{}}), &res); err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.StructuredContent["cpu"] == nil {
		t.Errorf("poll-system-stats under Prefix = %+v, want the upstream's stats", res)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
