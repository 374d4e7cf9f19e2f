package langchaingoadapter_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
)

type bookingIn struct {
	City     string   `json:"city" jsonschema:"the city to search hotels in"`
	Nights   int      `json:"nights" jsonschema:"how many nights"`
	Guests   *int     `json:"guests,omitempty" jsonschema:"number of guests. Defaults to one"`
	Tags     []string `json:"tags,omitempty"`
	Address  *address `json:"address,omitempty"`
	Currency string   `json:"currency,omitempty"`
}

type address struct {
	Street string `json:"street"`
	Zip    string `json:"zip,omitempty"`
}

func bookingSpec() *adapter.Spec {
	return adapter.MustTool("book", "Books a hotel room.", func(context.Context, bookingIn) (string, error) { return "ok", nil },
		&adapter.ToolOptions{Output: adapter.OutputText})
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		name string
		spec *adapter.Spec
		want string
	}{
		{"typed", addSpec(),
			`Adds two integers. Input: a JSON object {"a": integer (first addend), "b": integer (second addend)}`},
		{"nested, optional, arrays", bookingSpec(),
			`Books a hotel room. Input: a JSON object {"city": string (the city to search hotels in), "nights": integer (how many nights), "guests"?: integer (number of guests), "tags"?: string[], "address"?: {"street": string, "zip"?: string}, "currency"?: string}`},
		{"positional string, default, enum", echoSpec(t, "search", `{"type":"object","properties":{"query":{"type":"string"},"lang":{"enum":["en","fr"],"default":"en"}},"required":["query"]}`),
			`Echoes its arguments. Input: a JSON object {"lang"?: "en"|"fr" = "en", "query": string}, or just the query as plain text`},
		{"no arguments", echoSpec(t, "ping", noArgsSchema), `Echoes its arguments. Input: a JSON object {}`},
		{"refs and maps", echoSpec(t, "refs", `{"type":"object","$defs":{"pt":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},
			"properties":{"p":{"$ref":"#/$defs/pt"},"labels":{"type":"object","additionalProperties":{"type":"string"}},"any":{}},"required":["p"]}`),
			`Echoes its arguments. Input: a JSON object {"any"?: any, "labels"?: {[key: string]: string}, "p": {"x": number}}`},
		{"recursive ref", echoSpec(t, "tree", `{"type":"object","$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"properties":{"root":{"$ref":"#/$defs/node"}}}`),
			`Echoes its arguments. Input: a JSON object {"root"?: {"kids"?: node[]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lca.Describe(tt.spec)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Describe mismatch (-want +got):\n%s", diff)
			}
			tl, err := lca.NewTool(tt.spec, newExecutor(t, nil, nil), nil)
			if err != nil {
				t.Fatal(err)
			}
			if tl.Description() != got {
				t.Errorf("Tool.Description() = %q, want Describe's %q", tl.Description(), got)
			}
		})
	}
}

// TestDescribeIsCompact measures the argument line against the raw schema
// a text agent would otherwise have to read.
func TestDescribeIsCompact(t *testing.T) {
	for _, spec := range []*adapter.Spec{addSpec(), bookingSpec(), echoSpec(t, "search", searchSchema)} {
		raw, err := json.Marshal(spec.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		line := len(lca.Describe(spec)) - len(spec.Description) - 1
		t.Logf("%s: argument line %d bytes, raw schema %d bytes (%.0f%%)", spec.Name, line, len(raw), 100*float64(line)/float64(len(raw)))
		if line*10 > len(raw)*8 {
			t.Errorf("%s: argument line is %d bytes, more than 80%% of the %d-byte schema", spec.Name, line, len(raw))
		}
	}
}
