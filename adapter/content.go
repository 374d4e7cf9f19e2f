package adapter

import (
	"encoding/json"
)

// Content is one block of a tool result meant for the model: [*TextContent],
// [*ImageContent], [*AudioContent], [*ResourceLink] or [*EmbeddedResource].
// The set mirrors MCP's content blocks so that results cross MCP unchanged.
type Content interface {
	// ContentType returns the MCP type name: "text", "image", "audio",
	// "resource_link" or "resource".
	ContentType() string
}

// TextContent is text for the model.
type TextContent struct {
	Text        string
	Meta        map[string]any
	Annotations *ContentAnnotations
}

// ImageContent is an image. Data holds the raw bytes (not base64).
type ImageContent struct {
	Data        []byte
	MIMEType    string
	Meta        map[string]any
	Annotations *ContentAnnotations
}

// AudioContent is an audio clip. Data holds the raw bytes (not base64).
type AudioContent struct {
	Data        []byte
	MIMEType    string
	Meta        map[string]any
	Annotations *ContentAnnotations
}

// ResourceLink points to a resource the model or client may fetch.
type ResourceLink struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        *int64
	Meta        map[string]any
	Annotations *ContentAnnotations
}

// EmbeddedResource carries a resource's contents inline.
type EmbeddedResource struct {
	Resource    *ResourceContents
	Meta        map[string]any
	Annotations *ContentAnnotations
}

// ResourceContents is the contents of a resource: Text or Blob (raw bytes).
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
	Meta     map[string]any
}

func (*TextContent) ContentType() string      { return "text" }
func (*ImageContent) ContentType() string     { return "image" }
func (*AudioContent) ContentType() string     { return "audio" }
func (*ResourceLink) ContentType() string     { return "resource_link" }
func (*EmbeddedResource) ContentType() string { return "resource" }

// ContentAnnotations tell a client how to use a content block, as in MCP.
type ContentAnnotations struct {
	// Audience lists who the content is for: "user", "assistant".
	Audience []string
	// Priority runs from 0 (optional) to 1 (required).
	Priority float64
	// LastModified is an ISO 8601 time.
	LastModified string
}

// Result is what a successful tool call returns, on two channels:
// Content for the model and Structured for the program.
type Result struct {
	// Content is what the model reads. For tools with structured output it
	// is the JSON text of Structured (one text block per element when the
	// result is a list).
	Content []Content
	// Structured is the machine-readable result: a JSON object (as a Go
	// value that marshals to one) that matches the tool's output schema.
	// Non-object values are wrapped as {"result": value}. It is nil for tools
	// without structured output.
	Structured any
	// Meta is passed through to MCP's _meta.
	Meta map[string]any

	structJSON []byte // the JSON of Structured, when already encoded
}

// Text returns the concatenated text of the result's text blocks, one per
// line. It is what a text-only framework hands to the model.
func (r *Result) Text() string {
	if r == nil {
		return ""
	}
	n := 0
	var only string
	for _, c := range r.Content {
		if t, ok := c.(*TextContent); ok {
			n++
			only = t.Text
		}
	}
	if n == 1 {
		return only
	}
	var buf []byte
	first := true
	for _, c := range r.Content {
		if t, ok := c.(*TextContent); ok {
			if !first {
				buf = append(buf, '\n')
			}
			first = false
			buf = append(buf, t.Text...)
		}
	}
	return string(buf)
}

// StructuredJSON returns Structured as JSON, or nil when there is none.
func (r *Result) StructuredJSON() (json.RawMessage, error) {
	if r == nil || r.Structured == nil {
		return nil, nil
	}
	if r.structJSON != nil {
		return r.structJSON, nil
	}
	if raw, ok := r.Structured.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(r.Structured)
}

// TextResult returns a result with a single text block.
func TextResult(text string) *Result {
	return &Result{Content: []Content{&TextContent{Text: text}}}
}
