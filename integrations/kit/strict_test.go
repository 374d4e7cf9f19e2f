package kit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

func jsonMapOf(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return m
}

const (
	schNested = `{"type":"object","$defs":{"pt":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x"]}},
		"properties":{"p":{"$ref":"#/$defs/pt","description":"a point"},"e":{"type":"string","enum":["a","b"]},"f":{"enum":[1,2]},
		"o":{"type":"object","properties":{"k":{"type":"string"}}},"n":{"type":["string","null"]}}}`
	schNestedStrict = `{"type":"object",
		"$defs":{"pt":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":["number","null"]}},"required":["x","y"],"additionalProperties":false}},
		"properties":{
			"p":{"anyOf":[{"$ref":"#/$defs/pt"},{"type":"null"}],"description":"a point"},
			"e":{"type":["string","null"],"enum":["a","b",null]},
			"f":{"enum":[1,2,null]},
			"o":{"type":["object","null"],"properties":{"k":{"type":["string","null"]}},"required":["k"],"additionalProperties":false},
			"n":{"type":["string","null"]}},
		"required":["e","f","n","o","p"],"additionalProperties":false}`
)

type issueKey struct {
	Severity kit.Severity
	Path     string
	Keyword  string
}

func TestStrict(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string // "" when the schema cannot be made strict
		issues []issueKey
	}{
		{
			name:   "already strict",
			schema: `{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false}`,
			want:   `{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false}`,
		},
		{
			name:   "optional with default becomes nullable",
			schema: schSearch,
			want: `{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"limit":{"type":["integer","null"]}},
				"required":["limit","query"],"additionalProperties":false}`,
			issues: []issueKey{{kit.SeverityWarning, "/properties/limit", "default"}},
		},
		{name: "nested objects, refs, enums", schema: schNested, want: schNestedStrict},
		{name: "no arguments", schema: schNoArgs, want: `{"type":"object","properties":{},"required":[],"additionalProperties":false}`},
		{
			name:   "open map",
			schema: `{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}}}`,
			issues: []issueKey{{kit.SeverityError, "/properties/labels", "additionalProperties"}},
		},
		{
			name:   "free-form nested object",
			schema: `{"type":"object","properties":{"meta":{"type":"object"}},"required":["meta"]}`,
			issues: []issueKey{{kit.SeverityError, "/properties/meta", "properties"}},
		},
		{
			name:   "explicitly open root",
			schema: `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}`,
			issues: []issueKey{{kit.SeverityError, "", "additionalProperties"}},
		},
		{
			name:   "allOf and patternProperties",
			schema: `{"type":"object","allOf":[{"required":["a"]}],"patternProperties":{"^x":{"type":"string"}},"properties":{"a":{"type":"string"}}}`,
			issues: []issueKey{{kit.SeverityError, "", "allOf"}, {kit.SeverityError, "", "patternProperties"}},
		},
		{
			name:   "tuple",
			schema: `{"type":"object","properties":{"pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}},"required":["pair"]}`,
			issues: []issueKey{{kit.SeverityError, "/properties/pair", "prefixItems"}},
		},
		{
			name:   "oneOf and dropped keywords",
			schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"v":{"oneOf":[{"type":"string","minLength":1},{"type":"integer"}]},"ids":{"type":"array","items":{"type":"string"},"uniqueItems":true}},"required":["v","ids"]}`,
			want:   `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]},"ids":{"type":"array","items":{"type":"string"}}},"required":["ids","v"],"additionalProperties":false}`,
			issues: []issueKey{
				{kit.SeverityWarning, "", "$schema"},
				{kit.SeverityWarning, "/properties/ids", "uniqueItems"},
				{kit.SeverityWarning, "/properties/v", "oneOf"},
				{kit.SeverityWarning, "/properties/v/anyOf/0", "minLength"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, issues := kit.Strict(schemaOf(t, tt.schema))
			var gotKeys []issueKey
			for _, is := range issues {
				gotKeys = append(gotKeys, issueKey{is.Severity, is.Path, is.Keyword})
				if is.Message == "" {
					t.Errorf("issue %+v has no message", is)
				}
			}
			if diff := cmp.Diff(tt.issues, gotKeys); diff != "" {
				t.Errorf("issues mismatch (-want +got):\n%s", diff)
			}
			if tt.want == "" {
				if got != nil {
					t.Errorf("Strict = %v, want nil for a schema that cannot be strict", got)
				}
				return
			}
			if diff := cmp.Diff(jsonMapOf(t, tt.want), got); diff != "" {
				t.Errorf("strict schema mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDropOmittedNulls(t *testing.T) {
	ship := `{"type":"object","properties":{"to":{"type":"object","properties":{"street":{"type":"string"},"zip":{"type":"string"}},"required":["street"]},
		"note":{"type":["string","null"]}},"required":["to"]}`
	tests := []struct {
		name, schema, args, want string
	}{
		{"optional null dropped", schSearch, `{"query":"x","limit":null}`, `{"query":"x"}`},
		{"nested, nullable kept", ship, `{"to":{"street":"Main","zip":null},"note":null}`, `{"note":null,"to":{"street":"Main"}}`},
		{"required null kept", schSearch, `{"query":null,"limit":null}`, `{"query":null}`},
		{"nothing to drop: same bytes", schSearch, `{ "query": "x" }`, `{ "query": "x" }`},
		{"not JSON: as is", schSearch, `{"limit":null`, `{"limit":null`},
		{"through a ref", `{"type":"object","$defs":{"o":{"type":"object","properties":{"k":{"type":"string"}}}},"properties":{"o":{"$ref":"#/$defs/o"}}}`,
			`{"o":{"k":null}}`, `{"o":{}}`},
		{"array items", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"k":{"type":"integer"}}}}}}`,
			`{"l":[{"k":null},{"k":1}]}`, `{"l":[{},{"k":1}]}`},
		{"undeclared key kept", schSearch, `{"query":"x","other":null}`, `{"query":"x","other":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := kit.DropOmittedNulls(json.RawMessage(tt.args), schemaOf(t, tt.schema))
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("DropOmittedNulls(%s) mismatch (-want +got):\n%s", tt.args, diff)
			}
		})
	}
	if got := kit.DropOmittedNulls(json.RawMessage(`{"a":null}`), nil); string(got) != `{"a":null}` {
		t.Errorf("DropOmittedNulls with a nil schema = %s, want the arguments as is", got)
	}
}

func TestIssueString(t *testing.T) {
	is := kit.Issue{Tool: "t", Severity: kit.SeverityError, Keyword: "allOf", Message: "not supported"}
	if got, want := is.String(), "error: tool t: / allOf: not supported"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := kit.Severity(7).String(); got != "Severity(7)" {
		t.Errorf("Severity(7).String() = %q", got)
	}
}

func ExampleStrict() {
	var s jsonschema.Schema
	_ = json.Unmarshal([]byte(`{
		"type": "object",
		"properties": {
			"city": {"type": "string", "minLength": 1},
			"days": {"type": "integer", "default": 3}
		},
		"required": ["city"]
	}`), &s)
	params, issues := kit.Strict(&s)
	b, _ := json.Marshal(params)
	fmt.Println(string(b))
	for _, is := range issues {
		fmt.Println(is.Severity, is.Path, is.Keyword)
	}
	// A strict model sends null for the days it leaves out; the executor
	// should see them omitted, so that the default applies.
	fmt.Println(string(kit.DropOmittedNulls(json.RawMessage(`{"city":"Oslo","days":null}`), &s)))
	// Output:
	// {"additionalProperties":false,"properties":{"city":{"type":"string"},"days":{"type":["integer","null"]}},"required":["city","days"],"type":"object"}
	// warning /properties/city minLength
	// warning /properties/days default
	// {"city":"Oslo"}
}

// FuzzSchema feeds arbitrary input schemas (an MCP server's are untrusted)
// to Prose, Strict, ParseInput and DropOmittedNulls: no panic, no hang,
// and a strict schema, when one is produced, closes every object it
// declares.
func FuzzSchema(f *testing.F) {
	for _, seed := range []string{
		schSearch, schCount, schNoArgs, schArg1, schNested,
		`{"type":"object","properties":{"r":{"$ref":"#"}}}`,
		`{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"object","properties":{"k":{"enum":[1,"a",null]}}}}}}`,
		`{"type":"object","properties":{"v":{"oneOf":[{"type":"string"},{"anyOf":[{"type":"integer"}]}]},"t":{"type":["array","null"],"items":{"type":"object"}}}}`,
	} {
		f.Add(seed, `{"x":null}`)
	}
	f.Fuzz(func(t *testing.T, schemaJSON, input string) {
		var s jsonschema.Schema
		if json.Unmarshal([]byte(schemaJSON), &s) != nil {
			return
		}
		s.Type, s.Types = "object", nil // specs' input schemas are objects
		if _, err := adapter.NewRawTool("t", "d", &s, func(context.Context, json.RawMessage) (*adapter.Result, error) {
			return nil, nil
		}, nil); err != nil {
			return // not a schema the adapter accepts ($ref loops among them)
		}
		_ = kit.Prose(&s)
		if m, _ := kit.Strict(&s); m != nil {
			checkClosed(t, m, schemaJSON)
		}
		if args, err := kit.ParseInput(input, kit.NewShape(&s)); err == nil {
			_ = kit.DropOmittedNulls(args, &s)
		}
	})
}

// checkClosed asserts that every object schema in m lists all its
// properties as required and sets additionalProperties false.
func checkClosed(t *testing.T, v any, src string) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		if props, ok := v["properties"].(map[string]any); ok {
			if v["additionalProperties"] != false {
				t.Fatalf("strict schema of %s has an open object: %v", src, v)
			}
			req, _ := v["required"].([]any)
			if len(req) != len(props) {
				t.Fatalf("strict schema of %s: required %v does not list all of %v", src, req, props)
			}
			for _, p := range props {
				checkClosed(t, p, src)
			}
		}
		// Only schema positions: unknown keywords hold data, not schemas.
		for _, kw := range []string{"items", "additionalProperties", "not", "if", "then", "else"} {
			checkClosed(t, v[kw], src)
		}
		for _, kw := range []string{"anyOf", "allOf", "oneOf"} {
			if list, ok := v[kw].([]any); ok {
				for _, sub := range list {
					checkClosed(t, sub, src)
				}
			}
		}
		for _, kw := range []string{"$defs", "definitions"} {
			if defs, ok := v[kw].(map[string]any); ok {
				for _, sub := range defs {
					checkClosed(t, sub, src)
				}
			}
		}
	}
}
