package wire

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
)

// ContentToMCP converts result content to MCP content blocks, losing nothing.
func ContentToMCP(cs []adapter.Content) []mcp.Content {
	if cs == nil {
		return nil
	}
	out := make([]mcp.Content, 0, len(cs))
	for _, c := range cs {
		switch c := c.(type) {
		case *adapter.TextContent:
			out = append(out, &mcp.TextContent{Text: c.Text, Meta: c.Meta, Annotations: annotationsToMCP(c.Annotations)})
		case *adapter.ImageContent:
			out = append(out, &mcp.ImageContent{Data: c.Data, MIMEType: c.MIMEType, Meta: c.Meta, Annotations: annotationsToMCP(c.Annotations)})
		case *adapter.AudioContent:
			out = append(out, &mcp.AudioContent{Data: c.Data, MIMEType: c.MIMEType, Meta: c.Meta, Annotations: annotationsToMCP(c.Annotations)})
		case *adapter.ResourceLink:
			out = append(out, &mcp.ResourceLink{URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description,
				MIMEType: c.MIMEType, Size: c.Size, Meta: c.Meta, Annotations: annotationsToMCP(c.Annotations)})
		case *adapter.EmbeddedResource:
			out = append(out, &mcp.EmbeddedResource{Resource: resourceToMCP(c.Resource), Meta: c.Meta, Annotations: annotationsToMCP(c.Annotations)})
		}
	}
	return out
}

// ContentFromMCP converts MCP content blocks to result content. Blocks that
// cannot appear in a tool result (tool use, tool results) are dropped.
func ContentFromMCP(cs []mcp.Content) []adapter.Content {
	if cs == nil {
		return nil
	}
	out := make([]adapter.Content, 0, len(cs))
	for _, c := range cs {
		switch c := c.(type) {
		case *mcp.TextContent:
			out = append(out, &adapter.TextContent{Text: c.Text, Meta: c.Meta, Annotations: annotationsFromMCP(c.Annotations)})
		case *mcp.ImageContent:
			out = append(out, &adapter.ImageContent{Data: c.Data, MIMEType: c.MIMEType, Meta: c.Meta, Annotations: annotationsFromMCP(c.Annotations)})
		case *mcp.AudioContent:
			out = append(out, &adapter.AudioContent{Data: c.Data, MIMEType: c.MIMEType, Meta: c.Meta, Annotations: annotationsFromMCP(c.Annotations)})
		case *mcp.ResourceLink:
			out = append(out, &adapter.ResourceLink{URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description,
				MIMEType: c.MIMEType, Size: c.Size, Meta: c.Meta, Annotations: annotationsFromMCP(c.Annotations)})
		case *mcp.EmbeddedResource:
			out = append(out, &adapter.EmbeddedResource{Resource: resourceFromMCP(c.Resource), Meta: c.Meta, Annotations: annotationsFromMCP(c.Annotations)})
		}
	}
	return out
}

func resourceToMCP(r *adapter.ResourceContents) *mcp.ResourceContents {
	if r == nil {
		return nil
	}
	return &mcp.ResourceContents{URI: r.URI, MIMEType: r.MIMEType, Text: r.Text, Blob: r.Blob, Meta: r.Meta}
}

func resourceFromMCP(r *mcp.ResourceContents) *adapter.ResourceContents {
	if r == nil {
		return nil
	}
	return &adapter.ResourceContents{URI: r.URI, MIMEType: r.MIMEType, Text: r.Text, Blob: r.Blob, Meta: r.Meta}
}

func annotationsToMCP(a *adapter.ContentAnnotations) *mcp.Annotations {
	if a == nil {
		return nil
	}
	m := &mcp.Annotations{Priority: a.Priority, LastModified: a.LastModified}
	for _, r := range a.Audience {
		m.Audience = append(m.Audience, mcp.Role(r))
	}
	return m
}

func annotationsFromMCP(a *mcp.Annotations) *adapter.ContentAnnotations {
	if a == nil {
		return nil
	}
	c := &adapter.ContentAnnotations{Priority: a.Priority, LastModified: a.LastModified}
	for _, r := range a.Audience {
		c.Audience = append(c.Audience, string(r))
	}
	return c
}

// ToolAnnotationsToMCP maps spec annotations to MCP tool annotations.
func ToolAnnotationsToMCP(title string, a adapter.Annotations) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: a.ReadOnly, DestructiveHint: a.Destructive, IdempotentHint: a.Idempotent, OpenWorldHint: a.OpenWorld}
}

// ToolAnnotationsFromMCP maps MCP tool annotations to spec annotations.
func ToolAnnotationsFromMCP(a *mcp.ToolAnnotations) adapter.Annotations {
	if a == nil {
		return adapter.Annotations{}
	}
	return adapter.Annotations{ReadOnly: a.ReadOnlyHint, Destructive: a.DestructiveHint, Idempotent: a.IdempotentHint, OpenWorld: a.OpenWorldHint}
}
