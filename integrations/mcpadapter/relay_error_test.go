package mcpadapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// failingUpstream is a go-sdk server of 2026-07-28, served statelessly over
// streamable HTTP, whose tool "fail" reports an error with isError and
// blocks, and "bare" with isError and no block.
func failingUpstream(t *testing.T, blocks []mcp.Content) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "failing", Version: "v1"}, nil)
	obj := &jsonschema.Schema{Type: "object"}
	s.AddTool(&mcp.Tool{Name: "fail", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: blocks}, nil
	})
	s.AddTool(&mcp.Tool{Name: "bare", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{}}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRelayToolError: an imported tool's isError result reaches the
// export's MCP caller as the upstream sent it: isError and the upstream's
// blocks, unchanged (not the model payload of a tool_error wrapping their
// text, JSON in JSON when the upstream is itself an export), with
// _meta["agentadapter/error"] naming the kind; a framework's caller still
// gets the typed tool_error. At both eras of the caller.
func TestRelayToolError(t *testing.T) {
	blocks := []mcp.Content{
		&mcp.TextContent{Text: `{"error":{"kind":"tool_error","message":"boom"}}`},
		&mcp.TextContent{Text: "boom"},
		&mcp.ImageContent{MIMEType: "image/png", Data: []byte("png")},
	}
	want, _ := json.Marshal(blocks)
	ex := hostileGateway(t, failingUpstream(t, blocks))
	for _, era := range callerEras {
		t.Run(era.name, func(t *testing.T) {
			cs := era.connect(t, ex, nil)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(res.Content)
			if !res.IsError || string(got) != string(want) {
				t.Errorf("result isError %v, content %s; want isError and the upstream's %s", res.IsError, got, want)
			}
			if m, _ := res.Meta[mcpadapter.MetaKeyError].(map[string]any); m["kind"] != string(adapter.KindToolError) {
				t.Errorf("_meta %v, want %s naming tool_error", res.Meta, mcpadapter.MetaKeyError)
			}
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bare", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := json.Marshal(res.Content); !res.IsError || string(got) != "[]" {
				t.Errorf("bare: isError %v, content %s; want isError and no block, as sent", res.IsError, got)
			}
		})
	}
}
