package einoadapter

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
)

// resultText is what a text tool hands the model: the result's text. A
// result with no text at all but other content (an image from a tool not
// declared multimodal) is described rather than dropped in silence.
func resultText(r *adapter.Result) string {
	if t := r.Text(); t != "" || len(r.Content) == 0 {
		return t
	}
	var b strings.Builder
	for i, c := range r.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch c := c.(type) {
		case *adapter.ImageContent:
			fmt.Fprintf(&b, "[image %s, %d bytes]", c.MIMEType, len(c.Data))
		case *adapter.AudioContent:
			fmt.Fprintf(&b, "[audio %s, %d bytes]", c.MIMEType, len(c.Data))
		case *adapter.ResourceLink:
			fmt.Fprintf(&b, "[resource %s %s]", c.Name, c.URI)
		case *adapter.EmbeddedResource:
			if c.Resource != nil {
				if c.Resource.Text != "" {
					b.WriteString(c.Resource.Text)
				} else {
					fmt.Fprintf(&b, "[resource %s, %d bytes]", c.Resource.URI, len(c.Resource.Blob))
				}
			}
		default:
			fmt.Fprintf(&b, "[%s]", c.ContentType())
		}
	}
	return b.String()
}

// toolResult converts a result's content to eino's multimodal parts:
// text → text, image → image, audio → audio, an embedded text resource →
// text, an embedded blob → file (base64), a resource link → file (URL).
// Metadata (names, URIs, annotations) goes in each part's Extra.
func toolResult(r *adapter.Result) *schema.ToolResult {
	out := &schema.ToolResult{Parts: make([]schema.ToolOutputPart, 0, len(r.Content))}
	for _, c := range r.Content {
		switch c := c.(type) {
		case *adapter.TextContent:
			out.Parts = append(out.Parts, schema.ToolOutputPart{Type: schema.ToolPartTypeText, Text: c.Text, Extra: extra(c.Meta, c.Annotations, nil)})
		case *adapter.ImageContent:
			out.Parts = append(out.Parts, schema.ToolOutputPart{Type: schema.ToolPartTypeImage,
				Image: &schema.ToolOutputImage{MessagePartCommon: data(c.Data, c.MIMEType)}, Extra: extra(c.Meta, c.Annotations, nil)})
		case *adapter.AudioContent:
			out.Parts = append(out.Parts, schema.ToolOutputPart{Type: schema.ToolPartTypeAudio,
				Audio: &schema.ToolOutputAudio{MessagePartCommon: data(c.Data, c.MIMEType)}, Extra: extra(c.Meta, c.Annotations, nil)})
		case *adapter.ResourceLink:
			uri := c.URI
			out.Parts = append(out.Parts, schema.ToolOutputPart{Type: schema.ToolPartTypeFile,
				File:  &schema.ToolOutputFile{MessagePartCommon: schema.MessagePartCommon{URL: &uri, MIMEType: c.MIMEType}},
				Extra: extra(c.Meta, c.Annotations, map[string]any{"uri": c.URI, "name": c.Name, "title": c.Title, "description": c.Description})})
		case *adapter.EmbeddedResource:
			rc := c.Resource
			if rc == nil {
				continue
			}
			ex := extra(c.Meta, c.Annotations, map[string]any{"uri": rc.URI})
			if rc.Blob == nil {
				out.Parts = append(out.Parts, schema.ToolOutputPart{Type: schema.ToolPartTypeText, Text: rc.Text, Extra: ex})
				continue
			}
			out.Parts = append(out.Parts, schema.ToolOutputPart{Type: schema.ToolPartTypeFile,
				File: &schema.ToolOutputFile{MessagePartCommon: data(rc.Blob, rc.MIMEType)}, Extra: ex})
		}
	}
	return out
}

func data(b []byte, mime string) schema.MessagePartCommon {
	s := base64.StdEncoding.EncodeToString(b)
	return schema.MessagePartCommon{Base64Data: &s, MIMEType: mime}
}

func extra(meta map[string]any, a *adapter.ContentAnnotations, more map[string]any) map[string]any {
	var m map[string]any
	set := func(k string, v any) {
		if m == nil {
			m = map[string]any{}
		}
		m[k] = v
	}
	for k, v := range more {
		if s, ok := v.(string); ok && s == "" {
			continue
		}
		set(k, v)
	}
	if len(meta) > 0 {
		set("_meta", meta)
	}
	if a != nil {
		set("annotations", a)
	}
	return m
}
