package wire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCompleteTemplatesZero: the results withComplete copies from its
// templates have every exported field zero or an empty slice of no
// capacity (a copy shares nothing another can write), and encode with resultType "complete", as a fresh decoding
// does; one costs one allocation (it cost 8 when each was decoded).
func TestCompleteTemplatesZero(t *testing.T) {
	for _, c := range []struct {
		name string
		v    any
	}{
		{"tools/call", withComplete[mcp.CallToolResult]()},
		{"prompts/get", withComplete[mcp.GetPromptResult]()},
		{"resources/read", withComplete[mcp.ReadResourceResult]()},
	} {
		rv := reflect.ValueOf(c.v).Elem()
		for i := range rv.NumField() {
			f, fv := rv.Type().Field(i), rv.Field(i)
			emptySlice := fv.Kind() == reflect.Slice && fv.Cap() == 0 // an append copies
			if f.IsExported() && !fv.IsZero() && !emptySlice {
				t.Errorf("%s: template field %s is %v, want zero", c.name, f.Name, fv)
			}
		}
		b, err := json.Marshal(c.v)
		if err != nil || !strings.Contains(string(b), `"resultType":"complete"`) {
			t.Errorf("%s: encodes as %s (%v), want resultType complete", c.name, b, err)
		}
	}
	a, b := withComplete[mcp.CallToolResult](), withComplete[mcp.CallToolResult]()
	a.Content = append(a.Content, &mcp.TextContent{Text: "a"})
	if a == b || len(b.Content) != 0 {
		t.Error("two results share their content")
	}
	if n := testing.AllocsPerRun(100, func() { _ = withComplete[mcp.CallToolResult]() }); n > 1 {
		t.Errorf("withComplete allocates %v times, want 1", n)
	}
}
