package mcpadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// TestMissingCapabilityRelayed: a 2026-07-28 upstream's
// MissingRequiredClientCapabilityError (-32021) for the capabilities the
// import told it (the export's caller's) reaches that caller as the same
// protocol error, data included, not as an isError tool result; a caller
// that declares the capability is served; a hostile upstream's huge
// message and data are bounded. Before, the import's tool_error became an
// isError result (the draft suite's server-stateless through serve).
func TestMissingCapabilityRelayed(t *testing.T) {
	ctx := context.Background()
	up := primUpstream(t, "up", "hello")
	need, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}})
	mcp.AddTool(up, &mcp.Tool{Name: "needs_sampling"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
			return nil, nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: "sampling required", Data: need}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sampled"}}}, nil, nil
	})
	mcp.AddTool(up, &mcp.Tool{Name: "hostile"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: strings.Repeat("é", 100000),
			Data: json.RawMessage(`{"pad":"` + strings.Repeat("x", 100000) + `"}`)}
	})
	f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil, nil, "")
	if v := f.client.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("the caller negotiated %s, want 2026-07-28", v)
	}

	res, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: "needs_sampling", Arguments: map[string]any{}})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != mcp.CodeMissingRequiredClientCapabilities {
		t.Fatalf("needs_sampling without sampling: %+v, %v; want a -32021 protocol error", res, err)
	}
	var data mcp.MissingRequiredClientCapabilityData
	if err := json.Unmarshal(we.Data, &data); err != nil || data.RequiredCapabilities == nil || data.RequiredCapabilities.Sampling == nil {
		t.Errorf("-32021 data %s does not name sampling (%v)", we.Data, err)
	}

	_, err = f.client.CallTool(ctx, &mcp.CallToolParams{Name: "hostile", Arguments: map[string]any{}})
	if !errors.As(err, &we) || we.Code != mcp.CodeMissingRequiredClientCapabilities {
		t.Fatalf("hostile: %v; want -32021", err)
	}
	if len(we.Message) > 1024 || len(we.Data) > 4096 {
		t.Errorf("hostile upstream's error relayed unbounded: message %d bytes, data %d bytes", len(we.Message), len(we.Data))
	}

	// A caller that declares sampling is served.
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.exp.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	sampler, err := mcp.NewClient(&mcp.Implementation{Name: "sampler", Version: "v1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "x"}, Model: "m", Role: "assistant"}, nil
		},
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sampler.Close() })
	res, err = sampler.CallTool(ctx, &mcp.CallToolParams{Name: "needs_sampling", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("needs_sampling from a caller with sampling: %+v, %v", res, err)
	}
}
