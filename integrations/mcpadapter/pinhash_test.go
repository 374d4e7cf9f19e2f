package mcpadapter_test

import (
	"encoding/json"
	"testing"

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
