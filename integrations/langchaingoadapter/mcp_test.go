package langchaingoadapter_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/kit"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type mulIn struct {
	X int `json:"x" jsonschema:"a factor"`
	Y int `json:"y" jsonschema:"another factor"`
}

type mulOut struct {
	Product int `json:"product"`
}

// mcpRegistry serves two tools from an in-process go-sdk server and imports
// them, with the local add and fail tools, into one registry.
func mcpRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "v1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "multiply", Description: "Multiplies two integers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in mulIn) (*mcp.CallToolResult, mulOut, error) {
			return nil, mulOut{Product: in.X * in.Y}, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "explode", Description: "Always fails on the server."},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Why string `json:"why"`
		}) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("remote failure: " + in.Why)
		})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })

	reg := newRegistry(t, addSpec(), failSpec())
	m := mcpadapter.NewManager(reg, nil)
	t.Cleanup(func() { m.Close() })
	if err := m.Connect(ctx, mcpadapter.Server{Name: "remote", Transport: ct}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"multiply", "explode"} {
		s, ok := reg.Lookup(name)
		if !ok || s.Source.Server != "remote" {
			t.Fatalf("%s not imported from the MCP server (found %v)", name, ok)
		}
	}
	return reg
}

func mcpCases() []agentCase {
	return append(localCases(),
		agentCase{name: "tool imported from MCP", tool: "multiply", input: `{"x": 6, "y": 7}`, want: `{"product":42}`},
		agentCase{name: "failing MCP tool", tool: "explode", input: `{"why": "boom"}`,
			want: `{"error":{"kind":"tool_error","message":"remote failure: boom","tool":"explode"}}`},
	)
}

func TestOneShotAgentMCP(t *testing.T)         { runOneShot(t, mcpRegistry(t), mcpCases()) }
func TestOpenAIFunctionsAgentMCP(t *testing.T) { runFunctionsAgent(t, mcpRegistry(t), mcpCases()) }
func TestDispatcherLoopMCP(t *testing.T)       { runLoop(t, mcpRegistry(t), mcpCases()) }

// TestMCPDefinitions: an imported tool is defined with the server's full
// schema, and that schema converts to strict mode without issues.
func TestMCPDefinitions(t *testing.T) {
	reg := mcpRegistry(t)
	spec, _ := reg.Lookup("multiply")
	def, issues := lca.Definition(spec, true)
	if len(issues) != 0 || !def.Function.Strict {
		t.Fatalf("multiply: strict = %v, issues %v", def.Function.Strict, issues)
	}
	want := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"x": map[string]any{"type": "integer", "description": "a factor"},
			"y": map[string]any{"type": "integer", "description": "another factor"},
		},
		"required":             []any{"x", "y"},
		"additionalProperties": false,
	}
	if diff := cmp.Diff(want, def.Function.Parameters); diff != "" {
		t.Errorf("multiply parameters (-want +got):\n%s", diff)
	}
	if got, want := kit.Description(spec), `Multiplies two integers. Input: a JSON object {"x": integer (a factor), "y": integer (another factor)}`; got != want {
		t.Errorf("kit.Description = %q, want %q", got, want)
	}
}
