// Package defhash computes the pin of an MCP tool definition: a SHA-256
// over its name, title, description, canonical schemas, annotations,
// icons and _meta, as mcpadapter.DefinitionHash documents it.
//
//	w, err := defhash.Encode(tool) // the schemas, bounded and canonical
//	pin := w.Hash(tool)            // defhash.Of(tool), encoding once
//
// It is internal to the module.
package defhash

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	canon "github.com/agentadapter/agentadapter/adapter/canonical"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/schema"
)

// Schemas are a definition's schemas as canonical JSON (object keys
// sorted), nil when absent.
type Schemas struct{ In, Out json.RawMessage }

// Encode encodes t's schemas once, for the definition hash and the
// conversion to the spec's schemas.
func Encode(t *mcp.Tool) (Schemas, error) {
	var w Schemas
	in, out := schema.Canonical(t.InputSchema), schema.Canonical(t.OutputSchema)
	// Bounded before anything else reads them: see schema.ErrLimit.
	if err := schema.Check(in); err != nil {
		return w, fmt.Errorf("input schema: %w", err)
	}
	if err := schema.Check(out); err != nil {
		return w, fmt.Errorf("output schema: %w", err)
	}
	var err error
	if w.In, err = schema.CanonicalJSON(in); err != nil {
		return w, fmt.Errorf("input schema: %w", err)
	}
	if w.Out, err = schema.CanonicalJSON(out); err != nil {
		return w, fmt.Errorf("output schema: %w", err)
	}
	return w, nil
}

// Of returns the definition hash of t (mcpadapter.DefinitionHash).
func Of(t *mcp.Tool) string {
	w, err := Encode(t)
	if err != nil {
		// Unreachable for decoded definitions; hash what there is.
		w = Schemas{In: json.RawMessage(fmt.Sprintf("%q", fmt.Sprintf("%#v", t.InputSchema))), Out: json.RawMessage(fmt.Sprintf("%q", fmt.Sprintf("%#v", t.OutputSchema)))}
	}
	return w.Hash(t)
}

// Hash is the definition hash of t (mcpadapter.DefinitionHash), whose
// schemas w encodes: a SHA-256 of
//
//	json.Marshal(struct{
//		Name         string               `json:"name"`
//		Title        string               `json:"title,omitempty"`
//		Description  string               `json:"description,omitempty"`
//		InputSchema  json.RawMessage      `json:"inputSchema,omitempty"`
//		OutputSchema json.RawMessage      `json:"outputSchema,omitempty"`
//		Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
//		Icons        []mcp.Icon           `json:"icons,omitempty"`
//		Meta         any                  `json:"_meta,omitempty"`
//	}{..., canonical(map[string]any(t.Meta))})
//
// written field by field (TestDefinitionHashMatchesStruct holds the two
// equal), as pins have always been computed.
func (w Schemas) Hash(t *mcp.Tool) string {
	b := make([]byte, 0, 64+len(t.Name)+len(t.Title)+len(t.Description)+len(w.In)+len(w.Out))
	b = append(b, `{"name":`...)
	b = canon.AppendString(b, t.Name)
	if t.Title != "" {
		b = append(b, `,"title":`...)
		b = canon.AppendString(b, t.Title)
	}
	if t.Description != "" {
		b = append(b, `,"description":`...)
		b = canon.AppendString(b, t.Description)
	}
	if len(w.In) > 0 {
		b = append(b, `,"inputSchema":`...)
		b = append(b, w.In...)
	}
	if len(w.Out) > 0 {
		b = append(b, `,"outputSchema":`...)
		b = append(b, w.Out...)
	}
	ok := true
	if t.Annotations != nil {
		b, ok = appendMarshal(append(b, `,"annotations":`...), t.Annotations)
	}
	if ok && len(t.Icons) > 0 {
		b, ok = appendMarshal(append(b, `,"icons":`...), t.Icons)
	}
	if ok && t.Meta != nil {
		b = append(b, `,"_meta":`...)
		m, isJSON := schema.AppendJSON(b, map[string]any(t.Meta))
		if isJSON {
			b = m
		} else {
			b, ok = appendMarshal(b, map[string]any(t.Meta))
		}
	}
	if !ok {
		b = []byte(fmt.Sprintf("%#v", t)) // unreachable for decoded definitions
	} else {
		b = append(b, '}')
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// appendMarshal appends json.Marshal(v).
func appendMarshal(b []byte, v any) ([]byte, bool) {
	m, err := json.Marshal(v)
	if err != nil {
		return b, false
	}
	return append(b, m...), true
}
