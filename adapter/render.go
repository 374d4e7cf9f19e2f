package adapter

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/agentadapter/agentadapter/adapter/internal/rendertext"
)

// DefaultMaxInlineText bounds the text of an embedded resource that
// [Render] places in a model's text when RenderOptions.MaxInlineText is
// zero.
const DefaultMaxInlineText = 16 << 10

// RenderOptions configure [Render] and [RenderParts]. The zero value is the
// default policy.
type RenderOptions struct {
	// MaxInlineText bounds, in bytes, the text of an embedded text resource
	// placed in the model's text; longer text is cut at a character
	// boundary and the cut is said. Zero means DefaultMaxInlineText; a
	// negative value describes embedded resources without their text.
	MaxInlineText int
}

func (o *RenderOptions) maxInline() int {
	if o == nil || o.MaxInlineText == 0 {
		return DefaultMaxInlineText
	}
	return max(o.MaxInlineText, 0)
}

// Render returns what a model reads of a tool result, for every integration
// alike: this function is the only place that decides it. opts may be nil.
//
// The policy, block by block, blocks separated by a newline:
//   - text: the text itself;
//   - image, audio: a short description, "[image (image/png, 1234 bytes)]"
//     (frameworks that take media get them as parts: see [RenderParts]);
//   - resource link: "[resource link <uri> (<name>, <MIME type>, <size>)]",
//     then ": <description>" if it has one;
//   - embedded text resource: "[resource <uri> (<MIME type>, <size>)]", a
//     newline, and the text up to RenderOptions.MaxInlineText;
//   - embedded binary resource: its description only. Raw bytes, and
//     base64 of them, never reach a model's text.
//
// A result with no content blocks but structured content reads as the
// structured content's JSON; one with neither reads as "". JSON is never
// HTML-escaped: a model reads <, > and & as themselves.
func Render(r *Result, opts *RenderOptions) string {
	if r == nil {
		return ""
	}
	if len(r.Content) == 0 {
		return structuredText(r)
	}
	if len(r.Content) == 1 {
		if t, ok := r.Content[0].(*TextContent); ok {
			return t.Text // the common case, without a copy
		}
	}
	var b strings.Builder
	for i, c := range r.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		renderBlock(&b, c, opts)
	}
	return b.String()
}

// structuredText is the model's text of a result made of structured content
// only.
func structuredText(r *Result) string {
	if r.Structured == nil {
		return ""
	}
	if b := r.cachedJSON(); b != nil {
		return string(b)
	}
	if raw, ok := r.Structured.(json.RawMessage); ok {
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			return buf.String()
		}
		return string(raw)
	}
	b, err := rendertext.MarshalNoEscape(r.Structured)
	if err != nil {
		return `{"error":{"kind":"tool_error","message":"the structured result does not encode as JSON"}}`
	}
	return string(b)
}

// MediaKind names the kind of a media [Part].
type MediaKind string

const (
	MediaImage MediaKind = "image"
	MediaAudio MediaKind = "audio"
)

// Part is one piece of a tool result as a multimodal model receives it:
// text, or media (an image or audio clip).
type Part struct {
	// Text is the part's text; empty for media parts.
	Text string
	// Media is set for image and audio parts, nil for text parts.
	Media *Media
	// Content is the block the part was made from.
	Content Content
}

// Media is an image or audio clip for a model that takes media. Data holds
// the raw bytes: a framework puts them in its own media field (base64 or a
// data URL, as its message type wants), never in the model's text.
type Media struct {
	// Kind is MediaImage or MediaAudio.
	Kind MediaKind
	// MIMEType is the media's type, such as image/png.
	MIMEType string
	// Data is the raw bytes.
	Data []byte
}

// RenderParts returns a result as parts, for frameworks whose tool messages
// carry media (eino's multimodal tool results, genkit's tool response
// content): images and audio become media parts; every other block becomes
// a text part whose text is exactly what [Render] writes for it. A result
// with no content blocks is one text part holding its structured content's
// JSON (none if it has neither). opts may be nil.
func RenderParts(r *Result, opts *RenderOptions) []Part {
	if r == nil {
		return nil
	}
	if len(r.Content) == 0 {
		if t := structuredText(r); t != "" {
			return []Part{{Text: t}}
		}
		return nil
	}
	parts := make([]Part, 0, len(r.Content))
	var b strings.Builder
	for _, c := range r.Content {
		switch c := c.(type) {
		case *ImageContent:
			parts = append(parts, Part{Media: &Media{Kind: MediaImage, MIMEType: c.MIMEType, Data: c.Data}, Content: c})
		case *AudioContent:
			parts = append(parts, Part{Media: &Media{Kind: MediaAudio, MIMEType: c.MIMEType, Data: c.Data}, Content: c})
		case *TextContent:
			parts = append(parts, Part{Text: c.Text, Content: c})
		default:
			b.Reset()
			renderBlock(&b, c, opts)
			parts = append(parts, Part{Text: b.String(), Content: c})
		}
	}
	return parts
}

// PartsText joins the text parts of parts as [Render] joins blocks, leaving
// media out: the text a multimodal model reads beside the media.
func PartsText(parts []Part) string {
	var b strings.Builder
	first := true
	for _, p := range parts {
		if p.Media != nil {
			continue
		}
		if !first {
			b.WriteByte('\n')
		}
		first = false
		b.WriteString(p.Text)
	}
	return b.String()
}

func renderBlock(b *strings.Builder, c Content, opts *RenderOptions) {
	switch c := c.(type) {
	case *TextContent:
		b.WriteString(c.Text)
	case *ImageContent:
		rendertext.Describe(b, "image", "", c.MIMEType, int64(len(c.Data)), "")
	case *AudioContent:
		rendertext.Describe(b, "audio", "", c.MIMEType, int64(len(c.Data)), "")
	case *ResourceLink:
		name := c.Title
		if name == "" {
			name = c.Name
		}
		var size int64 = -1
		if c.Size != nil {
			size = *c.Size
		}
		b.WriteString("[resource link ")
		b.WriteString(c.URI)
		rendertext.Details(b, name, c.MIMEType, size, "")
		b.WriteByte(']')
		if d := strings.TrimSpace(c.Description); d != "" {
			b.WriteString(": ")
			b.WriteString(d)
		}
	case *EmbeddedResource:
		rc := c.Resource
		if rc == nil {
			b.WriteString("[resource]")
			return
		}
		if rc.Blob != nil {
			rendertext.Describe(b, "resource", rc.URI, rc.MIMEType, int64(len(rc.Blob)), "binary, not shown")
			return
		}
		limit := opts.maxInline()
		if limit == 0 {
			rendertext.Describe(b, "resource", rc.URI, rc.MIMEType, int64(len(rc.Text)), "text, not shown")
			return
		}
		rendertext.Describe(b, "resource", rc.URI, rc.MIMEType, int64(len(rc.Text)), "")
		b.WriteByte('\n')
		rendertext.Cut(b, rc.Text, limit)
	default:
		b.WriteString("[")
		b.WriteString(c.ContentType())
		b.WriteString("]")
	}
}
