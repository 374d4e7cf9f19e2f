package adapter

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// wireResult is the stored form of a Result: content blocks tagged with
// their MCP type, binary data as base64 (encoding/json's []byte form).
type wireResult struct {
	Content    []wireContent   `json:"content"`
	Structured json.RawMessage `json:"structured,omitempty"`
	Meta       map[string]any  `json:"meta,omitempty"`
}

type wireContent struct {
	Type        string              `json:"type"`
	Text        string              `json:"text,omitempty"`
	Data        []byte              `json:"data,omitempty"`
	MIMEType    string              `json:"mimeType,omitempty"`
	URI         string              `json:"uri,omitempty"`
	Name        string              `json:"name,omitempty"`
	Title       string              `json:"title,omitempty"`
	Description string              `json:"description,omitempty"`
	Size        *int64              `json:"size,omitempty"`
	Resource    *ResourceContents   `json:"resource,omitempty"`
	Meta        map[string]any      `json:"meta,omitempty"`
	Annotations *ContentAnnotations `json:"annotations,omitempty"`
}

// MarshalResult encodes a result for a store (a shared cache, say);
// [UnmarshalResult] reads it back. Structured and Meta come back as generic
// JSON values (maps, slices, float64), as any JSON round trip gives them.
func MarshalResult(r *Result) ([]byte, error) {
	w := wireResult{Meta: r.Meta, Content: make([]wireContent, 0, len(r.Content))}
	s, err := r.StructuredJSON()
	if err != nil {
		return nil, fmt.Errorf("adapter: encoding structured result: %w", err)
	}
	w.Structured = s
	for _, c := range r.Content {
		var wc wireContent
		switch c := c.(type) {
		case *TextContent:
			wc = wireContent{Text: c.Text, Meta: c.Meta, Annotations: c.Annotations}
		case *ImageContent:
			wc = wireContent{Data: c.Data, MIMEType: c.MIMEType, Meta: c.Meta, Annotations: c.Annotations}
		case *AudioContent:
			wc = wireContent{Data: c.Data, MIMEType: c.MIMEType, Meta: c.Meta, Annotations: c.Annotations}
		case *ResourceLink:
			wc = wireContent{URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description, MIMEType: c.MIMEType, Size: c.Size, Meta: c.Meta, Annotations: c.Annotations}
		case *EmbeddedResource:
			wc = wireContent{Resource: c.Resource, Meta: c.Meta, Annotations: c.Annotations}
		default:
			return nil, fmt.Errorf("adapter: cannot encode content of type %T", c)
		}
		wc.Type = c.ContentType()
		w.Content = append(w.Content, wc)
	}
	return json.Marshal(&w)
}

// UnmarshalResult decodes a result encoded by [MarshalResult].
func UnmarshalResult(b []byte) (*Result, error) {
	var w wireResult
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("adapter: decoding result: %w", err)
	}
	r := &Result{Meta: w.Meta, Content: make([]Content, 0, len(w.Content))}
	if len(w.Structured) > 0 {
		var v any
		if err := json.Unmarshal(w.Structured, &v); err != nil {
			return nil, fmt.Errorf("adapter: decoding structured result: %w", err)
		}
		r.Structured = v
	}
	for _, c := range w.Content {
		switch c.Type {
		case "text":
			r.Content = append(r.Content, &TextContent{Text: c.Text, Meta: c.Meta, Annotations: c.Annotations})
		case "image":
			r.Content = append(r.Content, &ImageContent{Data: c.Data, MIMEType: c.MIMEType, Meta: c.Meta, Annotations: c.Annotations})
		case "audio":
			r.Content = append(r.Content, &AudioContent{Data: c.Data, MIMEType: c.MIMEType, Meta: c.Meta, Annotations: c.Annotations})
		case "resource_link":
			r.Content = append(r.Content, &ResourceLink{URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description, MIMEType: c.MIMEType, Size: c.Size, Meta: c.Meta, Annotations: c.Annotations})
		case "resource":
			r.Content = append(r.Content, &EmbeddedResource{Resource: c.Resource, Meta: c.Meta, Annotations: c.Annotations})
		default:
			return nil, fmt.Errorf("adapter: decoding result: unknown content type %.40q", c.Type)
		}
	}
	return r, nil
}

// ResultHash returns the hex SHA-256 of a result's [MarshalResult]
// encoding: what [ledger.Record.ResultHash] holds.
func ResultHash(r *Result) string {
	bp := hashBufs.Get().(*[]byte)
	defer hashBufs.Put(bp)
	b, ok := appendResult((*bp)[:0], r)
	if !ok {
		var err error
		if b, err = MarshalResult(r); err != nil {
			return ""
		}
	} else if cap(b) <= maxPooledHashBuf {
		*bp = b
	}
	return sha256Hex(b)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	return string(h[:])
}
