package einoadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

type forecastIn struct {
	City string `json:"city" jsonschema:"city name"`
	Days int    `json:"days,omitempty" jsonschema:"how many days"`
}
type forecastOut struct {
	City  string   `json:"city"`
	Temps []string `json:"temps"`
}

// (b) A tool imported from an in-process MCP server runs inside both agent
// loops, as does its remote failure (an isError result).
func TestImportedMCPTool(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "forecast", Description: "forecast for a city"},
		func(_ context.Context, _ *mcp.CallToolRequest, in forecastIn) (*mcp.CallToolResult, forecastOut, error) {
			if in.City == "Atlantis" {
				return nil, forecastOut{}, fmt.Errorf("no station in %s", in.City)
			}
			out := forecastOut{City: in.City}
			for i := range max(in.Days, 1) {
				out.Temps = append(out.Temps, fmt.Sprintf("%d°C", 20+i))
			}
			return nil, out, nil
		})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()

	reg := registry.New()
	m := mcpadapter.NewManager(reg, nil)
	if err := m.Connect(ctx, mcpadapter.Server{Name: "remote", Transport: ct}); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	spec, ok := reg.Lookup("forecast")
	if !ok {
		t.Fatal("forecast was not imported")
	}
	if spec.Source.Server != "remote" {
		t.Errorf("imported spec source = %+v", spec.Source)
	}
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	tools, err := einoadapter.Tools(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 {
		t.Fatalf("Tools gave %d tools", len(tools))
	}
	info, _ := tools[0].Info(ctx)
	if info.Extra[einoadapter.ExtraSource] != "mcp:remote" {
		t.Errorf("Extra source = %v", info.Extra[einoadapter.ExtraSource])
	}
	js, _ := info.ToJSONSchema()
	if p, _ := js.Properties.Get("city"); p == nil || p.Description != "city name" || p.Type != "string" {
		t.Errorf("imported schema lost the city property: %+v", p)
	}
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			md := newModel(call("c1", "forecast", `{"city":"Oslo","days":2}`), call("c2", "forecast", `{"city":"Atlantis"}`))
			run := f.build(t, setup{model: md, tools: []tool.BaseTool{tools[0]}})
			out, err := run(ctx, userMsg("weather?"))
			if err != nil {
				t.Fatal(err)
			}
			res := md.toolResults()
			var got forecastOut
			if res["c1"] == nil || json.Unmarshal([]byte(res["c1"].Content), &got) != nil || got.City != "Oslo" || len(got.Temps) != 2 {
				t.Errorf("remote result reached the model as %v", contents(res))
			}
			var p adapter.Payload
			if res["c2"] == nil || json.Unmarshal([]byte(res["c2"].Content), &p) != nil || p.Error.Kind != adapter.KindToolError || !strings.Contains(p.Error.Message, "no station in Atlantis") {
				t.Errorf("remote failure reached the model as %v", contents(res))
			}
			if !strings.HasPrefix(out.Content, "done: ") {
				t.Errorf("answer = %q", out.Content)
			}
		})
	}
}

// Real peer: tools of @modelcontextprotocol/server-everything, imported over
// stdio, run in a react agent; its image reaches the model as an image part.
func TestEverythingServer(t *testing.T) {
	cmd := testpeers.Command(t, "mcp-server-everything", "stdio")
	ctx := context.Background()
	reg := registry.New()
	m := mcpadapter.NewManager(reg, nil)
	err := m.Connect(ctx, mcpadapter.Server{Name: "everything", Command: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env,
		Allow: []string{"echo", "get-tiny-image", "get-sum"}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	tools, err := einoadapter.Tools(reg, exec, &einoadapter.Options{
		Multimodal: func(s *adapter.Spec) bool { return s.Source.RemoteName == "get-tiny-image" },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 3 {
		t.Fatalf("imported %d tools", len(tools))
	}
	md := newModel(
		call("c1", "echo", `{"message":"hi"}`),
		call("c2", "get-tiny-image", `{}`),
		call("c3", "get-sum", `{"a":2,"b":"x"}`),
	)
	run := buildReact(t, setup{model: md, tools: tools})
	if _, err := run(ctx, userMsg("go")); err != nil {
		t.Fatal(err)
	}
	res := md.toolResults()
	if got := toolText(res["c1"]); !strings.Contains(got, "hi") {
		t.Errorf("echo reached the model as %q", got)
	}
	var image bool
	for _, p := range res["c2"].UserInputMultiContent {
		if p.Type == schema.ChatMessagePartTypeImageURL && p.Image != nil && p.Image.Base64Data != nil && p.Image.MIMEType == "image/png" && len(*p.Image.Base64Data) > 20 {
			image = true
		}
	}
	if !image {
		t.Errorf("the server's image did not reach the model as an image part: %+v", res["c2"].UserInputMultiContent)
	}
	var p adapter.Payload
	if json.Unmarshal([]byte(toolText(res["c3"])), &p) != nil || p.Error.Kind != adapter.KindArgsInvalid {
		t.Errorf("bad arguments reached the model as %q, want args_invalid", toolText(res["c3"]))
	}
}
