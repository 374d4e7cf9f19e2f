package adapter

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter/internal/rendertext"
	"github.com/agentadapter/agentadapter/adapter/internal/typed"
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
	// Text is the text.
	Text string
	// Meta is passed through as MCP's _meta; Annotations as MCP's
	// annotations (the same in every block type).
	Meta        map[string]any
	Annotations *ContentAnnotations
}

// ImageContent is an image. Data holds the raw bytes (not base64).
type ImageContent struct {
	// Data is the image's raw bytes; MIMEType its type (image/png).
	Data        []byte
	MIMEType    string
	Meta        map[string]any
	Annotations *ContentAnnotations
}

// AudioContent is an audio clip. Data holds the raw bytes (not base64).
type AudioContent struct {
	// Data is the clip's raw bytes; MIMEType its type (audio/wav).
	Data        []byte
	MIMEType    string
	Meta        map[string]any
	Annotations *ContentAnnotations
}

// ResourceLink points to a resource the model or client may fetch.
type ResourceLink struct {
	// URI locates the resource; Name, Title and Description describe it;
	// MIMEType and Size (bytes, nil when unknown) are what it holds.
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
	// Resource is the resource's contents.
	Resource    *ResourceContents
	Meta        map[string]any
	Annotations *ContentAnnotations
}

// ResourceContents is the contents of a resource: Text or Blob (raw bytes).
type ResourceContents struct {
	// URI names the resource and MIMEType its type; Text holds a text
	// resource, Blob (raw bytes, non-nil) a binary one.
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
	// Content is what the model reads (see [Render] for how each block
	// reads). For typed tools it follows the output rules of the package
	// documentation: a string as itself, one block per list element, JSON
	// otherwise, no block for nil or an empty list.
	Content []Content
	// Structured is the machine-readable result: a JSON object (as a Go
	// value that marshals to one) that matches the tool's output schema.
	// Non-object values are wrapped as {"result": value}. It is nil for tools
	// without structured output. To change it (a redacting guard, say),
	// assign a new value: values edited in place may still be sent in their
	// original encoding.
	Structured any
	// Meta is passed through to MCP's _meta.
	Meta map[string]any

	// structJSON is the JSON of structOf, kept by typed tools so that the
	// value is encoded once. It serves only while Structured still holds
	// structOf: a guard that replaces Structured gets its new value encoded.
	structJSON []byte
	structOf   any
	// validFor is the output schema structOf matches by construction (see
	// NewTool), or nil.
	validFor *jsonschema.Schema
}

// cachedJSON returns the kept encoding of Structured, or nil when there is
// none or Structured was replaced since. Values edited in place are not
// detected: results are treated as immutable once returned.
func (r *Result) cachedJSON() []byte {
	if r.structJSON == nil || !typed.SameValue(r.Structured, r.structOf) {
		return nil
	}
	return r.structJSON
}

// Text returns what a model reads of the result: Render(r, nil).
func (r *Result) Text() string { return Render(r, nil) }

// StructuredJSON returns Structured as JSON, or nil when there is none.
func (r *Result) StructuredJSON() (json.RawMessage, error) {
	if r == nil || r.Structured == nil {
		return nil, nil
	}
	if b := r.cachedJSON(); b != nil {
		return b, nil
	}
	if raw, ok := r.Structured.(json.RawMessage); ok {
		return raw, nil
	}
	return rendertext.MarshalNoEscape(r.Structured)
}

// TextResult returns a result with a single text block.
func TextResult(text string) *Result {
	return textResult(text)
}

// oneText is a result with one text block, in one allocation where three
// separate ones would do.
type oneText struct {
	r Result
	c [1]Content
	t TextContent
}

func textResult(text string) *Result {
	o := &oneText{t: TextContent{Text: text}}
	o.c[0] = &o.t
	o.r.Content = o.c[:]
	return &o.r
}
