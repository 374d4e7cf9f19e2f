package mcpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit/kittest"
	"github.com/agentadapter/agentadapter/registry"
)

// TestKit: the export, called by an MCP client session (a session is an
// agent run), gives the client's model what every integration gives it.
// An isError result's text is what the model reads; a protocol error
// aborts the run.
func TestKit(t *testing.T) {
	var last *mcp.ClientSession
	run := func(ctx context.Context, cs *mcp.ClientSession, calls []kittest.Call) ([]string, error) {
		var read []string
		for _, c := range calls {
			var args map[string]any
			if err := json.Unmarshal([]byte(c.Args), &args); err != nil {
				return read, err
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: args})
			if err != nil {
				return read, err
			}
			text, err := modelReads(res)
			if err != nil {
				return read, err
			}
			read = append(read, text)
		}
		return read, nil
	}
	kittest.Run(t, kittest.Harness{
		Run: func(ctx context.Context, reg *registry.Registry, exec *adapter.Executor, calls []kittest.Call) ([]string, error) {
			last = exConnect(t, newExporter(t, reg, exec, nil), nil, "")
			return run(ctx, last, calls)
		},
		// A client retries an approved call in its session: the ticket is
		// bound to the session's caller.
		Resume: func(ctx context.Context, _ *registry.Registry, _ *adapter.Executor, calls []kittest.Call) ([]string, error) {
			return run(ctx, last, calls)
		},
	})
}

// modelReads is the text a client's model reads of res: an error's text as
// sent, a result's content and structured content as adapter.Render shows
// them.
func modelReads(res *mcp.CallToolResult) (string, error) {
	if res.IsError {
		if len(res.Content) != 1 {
			return "", fmt.Errorf("isError result with %d content blocks", len(res.Content))
		}
		t, ok := res.Content[0].(*mcp.TextContent)
		if !ok {
			return "", fmt.Errorf("isError result with a %T", res.Content[0])
		}
		return t.Text, nil
	}
	out := &adapter.Result{Structured: res.StructuredContent}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			out.Content = append(out.Content, &adapter.TextContent{Text: c.Text})
		case *mcp.ImageContent:
			out.Content = append(out.Content, &adapter.ImageContent{Data: c.Data, MIMEType: c.MIMEType})
		case *mcp.AudioContent:
			out.Content = append(out.Content, &adapter.AudioContent{Data: c.Data, MIMEType: c.MIMEType})
		case *mcp.EmbeddedResource:
			r := c.Resource
			out.Content = append(out.Content, &adapter.EmbeddedResource{Resource: &adapter.ResourceContents{URI: r.URI, MIMEType: r.MIMEType, Text: r.Text, Blob: r.Blob}})
		case *mcp.ResourceLink:
			out.Content = append(out.Content, &adapter.ResourceLink{URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description, MIMEType: c.MIMEType, Size: c.Size})
		default:
			return "", fmt.Errorf("content %T", c)
		}
	}
	return adapter.Render(out, nil), nil
}
