package mcpadapter_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit/kittest"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// The cross-integration golden over MCP: every case's tool, served by the
// export and read back by a client (our import, as a gateway or an agent
// behind MCP would), gives the model exactly the text in
// internal/kittest. An isError result's text is the payload itself.
func TestRenderGolden(t *testing.T) {
	golden, err := kittest.Golden()
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	for _, c := range kittest.Cases() {
		reg.MustRegister(c.Spec)
	}
	ex := newExporter(t, reg, nil, nil)
	cs := exConnect(t, ex, nil, "")
	env := newImportEnv(t, nil)
	if err := env.m.Connect(context.Background(), mcpadapter.Upstream{Name: "ours", Transport: inMemoryTo(t, ex.MCPServer())}); err != nil {
		t.Fatal(err)
	}
	for _, c := range kittest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			want := golden[c.Name]
			raw, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.Spec.Name, Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if raw.IsError {
				if len(raw.Content) != 1 || raw.Content[0].(*mcp.TextContent).Text != want {
					t.Errorf("isError content %+v, want the text %q", raw.Content, want)
				}
				return
			}
			res, aerr := env.call(t, context.Background(), c.Spec.Name, `{}`)
			if aerr != nil {
				t.Fatal(aerr)
			}
			if got := adapter.Render(res, nil); got != want {
				t.Errorf("model reads %q\nwant %q", got, want)
			}
		})
	}
}

// A gateway relays an upstream's result as it was sent: no text block is
// added to content: [] beside structured content (the text fallback is for
// results we make), and the upstream's server info is not passed off as
// ours.
func TestGatewayRelaysResultsAsSent(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v9"}, nil)
	up.AddTool(&mcp.Tool{Name: "weather", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{
				Content:           []mcp.Content{},
				StructuredContent: map[string]any{"temp_c": 21.5},
				Meta: mcp.Meta{
					mcpadapter.MetaKeyServerInfo: map[string]any{"name": "upstream", "version": "v9"},
					"example.com/trace":          "t-1",
				},
			}, nil
		})
	env := newImportEnv(t, nil)
	if err := env.m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Transport: inMemoryTo(t, up)}); err != nil {
		t.Fatal(err)
	}
	// Our own tool with the same shape gets the text fallback.
	env.reg.MustRegister(adapter.MustRawTool("local_weather", "", &jsonschema.Schema{Type: "object"},
		func(context.Context, json.RawMessage) (*adapter.Result, error) {
			return &adapter.Result{Structured: map[string]any{"temp_c": 21.5}}, nil
		}, nil))
	ex := newExporter(t, env.reg, env.exec, nil)
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("protocol "+version, func(t *testing.T) { checkRelay(t, exConnect(t, ex, nil, version)) })
	}
}

func checkRelay(t *testing.T, cs *mcp.ClientSession) {
	relayed, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(relayed.Content) != 0 {
		t.Errorf("relayed content = %+v, want [] as the upstream sent it", relayed.Content)
	}
	if got := exJSON(t, relayed.StructuredContent); got.(map[string]any)["temp_c"] != 21.5 {
		t.Errorf("relayed structured content = %v", got)
	}
	// go-sdk names the serving server itself (protocol 2026-07-28): it must
	// be us, not the upstream.
	if si, ok := relayed.Meta[mcpadapter.MetaKeyServerInfo].(map[string]any); ok && si["name"] != mcpadapter.DefaultServerName {
		t.Errorf("relayed _meta names the upstream as the server: %v", relayed.Meta)
	}
	if relayed.Meta["example.com/trace"] != "t-1" {
		t.Errorf("relayed _meta lost the upstream's other keys: %v", relayed.Meta)
	}

	own, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "local_weather", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(own.Content) != 1 || own.Content[0].(*mcp.TextContent).Text != `{"temp_c":21.5}` {
		t.Errorf("our structured-only result's content = %+v, want its JSON as one text block", own.Content)
	}
}
