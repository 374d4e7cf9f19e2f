package mcpadapter_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// TestDefinitionHashStable: pins are persisted (ManagerOptions.Pins, pin
// stores), so the hash of a definition must not change between versions.
// The expected values were computed by the implementation that first
// stored pins; HTML characters, unsorted keys, numbers and every field are
// covered.
func TestDefinitionHashStable(t *testing.T) {
	var in, out any
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"q":{"type":"string","description":"a <b> & c","default":"x"},"n":{"type":"integer","minimum":1.5}},"required":["q"],"$defs":{"z":{"type":"null"}},"x-extra":[1,2,{"b":1,"a":2}]}`), &in); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"r":{"type":"string"}}}`), &out); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool *mcp.Tool
		want string
	}{
		{&mcp.Tool{Name: "search<>", Title: "Search & find", Description: "finds <things>", InputSchema: in, OutputSchema: out,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}, Icons: []mcp.Icon{{Source: "https://x/i.png"}},
			Meta: mcp.Meta{"k": map[string]any{"b": 1, "a": "<"}}},
			"sha256:e297de1efed52d180325d005aab6dc2325042625585e5636a4893229c24dfdef"},
		{&mcp.Tool{Name: "bare"}, "sha256:79ba70ca76018216f216c2eed3e08bfa1ce350343325a262d78e658044a76d5c"},
	} {
		if got := mcpadapter.DefinitionHash(tc.tool); got != tc.want {
			t.Errorf("DefinitionHash(%s) = %s, want %s", tc.tool.Name, got, tc.want)
		}
	}
}

// TestDefinitionHashMatchesStruct: DefinitionHash, written field by field,
// equals the SHA-256 of json.Marshal of the definition struct, the way
// pins were first computed, for definitions with every field set or unset
// and values that need escaping.
func TestDefinitionHashMatchesStruct(t *testing.T) {
	reference := func(tl *mcp.Tool) string {
		canon := func(v any) any {
			if v == nil {
				return nil
			}
			if m, ok := v.(map[string]any); ok {
				if m == nil {
					return nil
				}
				return v
			}
			b, _ := json.Marshal(v)
			var g any
			json.Unmarshal(b, &g)
			return g
		}
		def := struct {
			Name         string               `json:"name"`
			Title        string               `json:"title,omitempty"`
			Description  string               `json:"description,omitempty"`
			InputSchema  any                  `json:"inputSchema,omitempty"`
			OutputSchema any                  `json:"outputSchema,omitempty"`
			Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
			Icons        []mcp.Icon           `json:"icons,omitempty"`
			Meta         any                  `json:"_meta,omitempty"`
		}{tl.Name, tl.Title, tl.Description, canon(tl.InputSchema), canon(tl.OutputSchema), tl.Annotations, tl.Icons, canon(map[string]any(tl.Meta))}
		b, err := json.Marshal(def)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	var schema any
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"q":{"description":"<&>\u2028"}}}`), &schema); err != nil {
		t.Fatal(err)
	}
	yes := true
	for i, tl := range []*mcp.Tool{
		{Name: "bare"},
		{Name: "n<>&", Title: "T\u2028", Description: "d\x01\"", InputSchema: schema},
		{Name: "n", InputSchema: schema, OutputSchema: schema, Annotations: &mcp.ToolAnnotations{}},
		{Name: "n", Annotations: &mcp.ToolAnnotations{Title: "<t>", ReadOnlyHint: true, DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &yes}},
		{Name: "n", Icons: []mcp.Icon{{Source: "https://x/<i>.png", MIMEType: "image/png", Sizes: []string{"48x48"}}}},
		{Name: "n", Meta: mcp.Meta{}},
		{Name: "n", Meta: mcp.Meta{"b": 1.5, "a": []any{"<", nil, map[string]any{"z": true}}}},
		{Name: "n", Meta: mcp.Meta{"int": 3}}, // not decoded JSON: json.Marshal encodes it
		{Name: "n", InputSchema: &jsonschema.Schema{Type: "object", Description: "a Go value, not decoded JSON"}},
		{Name: "n", Title: "t", Description: "d", InputSchema: schema, OutputSchema: schema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}, Icons: []mcp.Icon{{Source: "s"}}, Meta: mcp.Meta{"k": "v"}},
	} {
		if got, want := mcpadapter.DefinitionHash(tl), reference(tl); got != want {
			t.Errorf("%d: DefinitionHash = %s, the struct's = %s", i, got, want)
		}
	}
}
