package wire

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
)

// ResultFromMCP converts a CallToolResult, mapping isError to a tool error
// that carries the server's content, its cause isError.
func ResultFromMCP(res *mcp.CallToolResult, isError error) (*adapter.Result, error) {
	content := ContentFromMCP(res.Content)
	if res.IsError {
		var texts []string
		for _, b := range content {
			if t, ok := b.(*adapter.TextContent); ok {
				texts = append(texts, t.Text)
			}
		}
		msg := strings.Join(texts, "\n")
		if msg == "" {
			msg = "the tool reported an error"
		}
		return nil, &adapter.Error{Kind: adapter.KindToolError, Message: msg, Content: content, Err: isError}
	}
	r := &adapter.Result{Content: content, Meta: res.Meta}
	if res.StructuredContent != nil {
		r.Structured = res.StructuredContent
	}
	return r, nil
}
