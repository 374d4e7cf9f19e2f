package mcpadapter_test

import (
	"context"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// BenchmarkRelayCall is one call of an imported tool through the export,
// from a 2026-07-28 client that declares elicitation, sampling and roots:
// the path on which the import tells the upstream the caller's
// capabilities (callerCapabilities), as the gateway does on every call.
func BenchmarkRelayCall(b *testing.B) {
	up := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "v1"}, nil)
	up.AddTool(&mcp.Tool{Name: "echo", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	ex, _ := relayEnv(b, up, &mcpadapter.ManagerOptions{})
	cs := exConnect(b, ex, &mcp.ClientOptions{
		CreateMessageHandler: relaySample,
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}, "2026-07-28")
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"x": 1}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(context.Background(), params)
		if err != nil || res.IsError {
			b.Fatalf("%v %+v", err, res)
		}
	}
}
