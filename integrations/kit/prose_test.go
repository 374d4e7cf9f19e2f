package kit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Schemas shared by the prose, strict and input tests.
const (
	schSearch = `{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"limit":{"type":"integer","default":5}},"required":["query"]}`
	schCount  = `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	schNoArgs = `{"type":"object"}`
	schArg1   = `{"type":"object","properties":{"__arg1":{"type":"string"}},"required":["__arg1"]}`
)

func schemaOf(t testing.TB, s string) *jsonschema.Schema {
	t.Helper()
	var sc jsonschema.Schema
	if err := json.Unmarshal([]byte(s), &sc); err != nil {
		t.Fatalf("bad test schema %s: %v", s, err)
	}
	return &sc
}

type addendsIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

// sumSpec is a typed tool, whose schema lists properties in declaration
// order.
func sumSpec() *adapter.Spec {
	return adapter.MustTool("add", "Adds two integers.", func(_ context.Context, in addendsIn) (int, error) {
		return in.A + in.B, nil
	}, &adapter.ToolOptions{Output: adapter.OutputText})
}

// echoOf is a raw tool with the given input schema.
func echoOf(t testing.TB, name, schemaJSON string) *adapter.Spec {
	t.Helper()
	return adapter.MustRawTool(name, "Echoes its arguments.", schemaOf(t, schemaJSON), func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		return adapter.TextResult(string(args)), nil
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
}

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

func TestDescription(t *testing.T) {
	tests := []struct {
		name string
		spec *adapter.Spec
		want string
	}{
		{"typed", sumSpec(),
			`Adds two integers. Input: a JSON object {"a": integer (first addend), "b": integer (second addend)}`},
		{"nested, optional, arrays", bookingSpec(),
			`Books a hotel room. Input: a JSON object {"city": string (the city to search hotels in), "nights": integer (how many nights), "guests"?: integer (number of guests), "tags"?: string[], "address"?: {"street": string, "zip"?: string}, "currency"?: string}`},
		{"positional string, default, enum", echoOf(t, "search", `{"type":"object","properties":{"query":{"type":"string"},"lang":{"enum":["en","fr"],"default":"en"}},"required":["query"]}`),
			`Echoes its arguments. Input: a JSON object {"lang"?: "en"|"fr" = "en", "query": string}, or just the query as plain text`},
		{"no arguments", echoOf(t, "ping", schNoArgs), `Echoes its arguments. Input: a JSON object {}`},
		{"refs and maps", echoOf(t, "refs", `{"type":"object","$defs":{"pt":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},
			"properties":{"p":{"$ref":"#/$defs/pt"},"labels":{"type":"object","additionalProperties":{"type":"string"}},"any":{}},"required":["p"]}`),
			`Echoes its arguments. Input: a JSON object {"any"?: any, "labels"?: {[key: string]: string}, "p": {"x": number}}`},
		{"recursive ref", echoOf(t, "tree", `{"type":"object","$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"properties":{"root":{"$ref":"#/$defs/node"}}}`),
			`Echoes its arguments. Input: a JSON object {"root"?: {"kids"?: node[]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := kit.Description(tt.spec)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Description mismatch (-want +got):\n%s", diff)
			}
			if line := "Input: a JSON object " + kit.Prose(tt.spec.InputSchema); !strings.Contains(got, line) {
				t.Errorf("Description %q does not contain Prose's %q", got, line)
			}
		})
	}
}

// TestProseIsCompact measures the argument line against the raw schema
// a text agent would otherwise have to read.
func TestProseIsCompact(t *testing.T) {
	for _, spec := range []*adapter.Spec{sumSpec(), bookingSpec(), echoOf(t, "search", schSearch)} {
		raw, err := json.Marshal(spec.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		line := len(kit.Description(spec)) - len(spec.Description) - 1
		t.Logf("%s: argument line %d bytes, raw schema %d bytes (%.0f%%)", spec.Name, line, len(raw), 100*float64(line)/float64(len(raw)))
		if line*10 > len(raw)*8 {
			t.Errorf("%s: argument line is %d bytes, more than 80%% of the %d-byte schema", spec.Name, line, len(raw))
		}
	}
}

func TestProseNil(t *testing.T) {
	if got := kit.Prose(nil); got != "{}" {
		t.Errorf("Prose(nil) = %q, want {}", got)
	}
	if got := kit.NewShape(nil).String(); got != "{}" {
		t.Errorf("NewShape(nil).String() = %q, want {}", got)
	}
}

func ExampleProse() {
	var s jsonschema.Schema
	_ = json.Unmarshal([]byte(`{
		"type": "object",
		"properties": {
			"city": {"type": "string", "description": "The city. Any spelling."},
			"days": {"type": "integer", "default": 3},
			"units": {"enum": ["metric", "imperial"]}
		},
		"required": ["city"]
	}`), &s)
	fmt.Println(kit.Prose(&s))
	// Output:
	// {"city": string (The city), "days"?: integer = 3, "units"?: "metric"|"imperial"}
}

func ExampleDescription() {
	spec := adapter.MustTool("weather", "Gives the forecast", func(_ context.Context, in struct {
		City string `json:"city" jsonschema:"the city"`
	}) (string, error) {
		return "sunny in " + in.City, nil
	}, &adapter.ToolOptions{Output: adapter.OutputText})
	fmt.Println(kit.Description(spec))
	// Output:
	// Gives the forecast. Input: a JSON object {"city": string (the city)}, or just the city as plain text
}
