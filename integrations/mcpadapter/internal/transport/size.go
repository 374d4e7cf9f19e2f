package transport

import "github.com/modelcontextprotocol/go-sdk/mcp"

// blockOverhead is the least a content block takes encoded
// ({"type":"text","text":""}): every block counts, empty ones too.
const blockOverhead = 26

// ResultBytes estimates a result's encoded size without encoding it; it
// stops counting once past limit.
func ResultBytes(res *mcp.CallToolResult, limit int) int {
	n := 0
	for _, b := range res.Content {
		n += blockOverhead
		switch b := b.(type) {
		case *mcp.TextContent:
			n += len(b.Text)
		case *mcp.ImageContent:
			n += len(b.Data) + len(b.MIMEType)
		case *mcp.AudioContent:
			n += len(b.Data) + len(b.MIMEType)
		case *mcp.EmbeddedResource:
			if b.Resource != nil {
				n += len(b.Resource.URI) + len(b.Resource.Text) + len(b.Resource.Blob)
			}
		case *mcp.ResourceLink:
			n += len(b.URI) + len(b.Name) + len(b.Description)
		default:
			n += 64
		}
		if n > limit {
			return n
		}
	}
	return n + jsonSize(res.StructuredContent, limit-n)
}

func jsonSize(v any, budget int) int {
	switch v := v.(type) {
	case nil:
		return 4
	case string:
		return len(v) + 2
	case map[string]any:
		n := 2
		for k, e := range v {
			n += len(k) + 4 + jsonSize(e, budget-n)
			if n > budget {
				return n
			}
		}
		return n
	case []any:
		n := 2
		for _, e := range v {
			n += 1 + jsonSize(e, budget-n)
			if n > budget {
				return n
			}
		}
		return n
	default:
		return 8
	}
}
