package langchaingoadapter_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
)

func jsonMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return m
}

const (
	nestedSchema = `{"type":"object","$defs":{"pt":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x"]}},
		"properties":{"p":{"$ref":"#/$defs/pt","description":"a point"},"e":{"type":"string","enum":["a","b"]},"f":{"enum":[1,2]},
		"o":{"type":"object","properties":{"k":{"type":"string"}}},"n":{"type":["string","null"]}}}`
	nestedStrict = `{"type":"object",
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
	Severity lca.Severity
	Path     string
	Keyword  string
}

func TestStrictSchema(t *testing.T) {
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
			schema: searchSchema,
			want: `{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"limit":{"type":["integer","null"]}},
				"required":["limit","query"],"additionalProperties":false}`,
			issues: []issueKey{{lca.SeverityWarning, "/properties/limit", "default"}},
		},
		{name: "nested objects, refs, enums", schema: nestedSchema, want: nestedStrict},
		{name: "no arguments", schema: noArgsSchema, want: `{"type":"object","properties":{},"required":[],"additionalProperties":false}`},
		{
			name:   "open map",
			schema: `{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}}}`,
			issues: []issueKey{{lca.SeverityError, "/properties/labels", "additionalProperties"}},
		},
		{
			name:   "free-form nested object",
			schema: `{"type":"object","properties":{"meta":{"type":"object"}},"required":["meta"]}`,
			issues: []issueKey{{lca.SeverityError, "/properties/meta", "properties"}},
		},
		{
			name:   "explicitly open root",
			schema: `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}`,
			issues: []issueKey{{lca.SeverityError, "", "additionalProperties"}},
		},
		{
			name:   "allOf and patternProperties",
			schema: `{"type":"object","allOf":[{"required":["a"]}],"patternProperties":{"^x":{"type":"string"}},"properties":{"a":{"type":"string"}}}`,
			issues: []issueKey{{lca.SeverityError, "", "allOf"}, {lca.SeverityError, "", "patternProperties"}},
		},
		{
			name:   "tuple",
			schema: `{"type":"object","properties":{"pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}},"required":["pair"]}`,
			issues: []issueKey{{lca.SeverityError, "/properties/pair", "prefixItems"}},
		},
		{
			name:   "oneOf and dropped keywords",
			schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"v":{"oneOf":[{"type":"string","minLength":1},{"type":"integer"}]},"ids":{"type":"array","items":{"type":"string"},"uniqueItems":true}},"required":["v","ids"]}`,
			want:   `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]},"ids":{"type":"array","items":{"type":"string"}}},"required":["ids","v"],"additionalProperties":false}`,
			issues: []issueKey{
				{lca.SeverityWarning, "", "$schema"},
				{lca.SeverityWarning, "/properties/ids", "uniqueItems"},
				{lca.SeverityWarning, "/properties/v", "oneOf"},
				{lca.SeverityWarning, "/properties/v/anyOf/0", "minLength"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, issues := lca.StrictSchema(mustSchema(t, tt.schema))
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
					t.Errorf("StrictSchema = %v, want nil for a schema that cannot be strict", got)
				}
				return
			}
			if diff := cmp.Diff(jsonMap(t, tt.want), got); diff != "" {
				t.Errorf("strict schema mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefinitions(t *testing.T) {
	mapTool := echoSpec(t, "labels", `{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}}}`)
	reg := newRegistry(t, addSpec(), mapTool, echoSpec(t, "search", searchSchema))

	defs, issues := lca.Definitions(reg, nil)
	if len(issues) != 0 {
		t.Errorf("non-strict Definitions reported issues: %v", issues)
	}
	if len(defs) != 3 {
		t.Fatalf("got %d definitions, want 3", len(defs))
	}
	for _, d := range defs {
		if d.Type != "function" || d.Function == nil || d.Function.Strict {
			t.Errorf("definition %+v: want a non-strict function", d)
			continue
		}
		if _, ok := d.Function.Parameters.(map[string]any); !ok {
			t.Errorf("%s: Parameters is %T, want map[string]any (googleai requires it)", d.Function.Name, d.Function.Parameters)
		}
	}
	// The full schema, not langchaingo's {"__arg1": string}.
	wantSearch := jsonMap(t, searchSchema)
	if diff := cmp.Diff(wantSearch, defs[2].Function.Parameters); diff != "" {
		t.Errorf("search parameters (-want +got):\n%s", diff)
	}

	defs, issues = lca.Definitions(reg, &lca.DefinitionOptions{Strict: true})
	strict := map[string]bool{}
	for _, d := range defs {
		strict[d.Function.Name] = d.Function.Strict
	}
	if diff := cmp.Diff(map[string]bool{"add": true, "labels": false, "search": true}, strict); diff != "" {
		t.Errorf("Strict flags (-want +got):\n%s", diff)
	}
	// labels falls back to its full schema.
	if diff := cmp.Diff(jsonMap(t, `{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}}}`), defs[1].Function.Parameters); diff != "" {
		t.Errorf("labels parameters (-want +got):\n%s", diff)
	}
	var got []string
	for _, is := range issues {
		got = append(got, is.String())
	}
	want := []string{
		"error: tool labels: /properties/labels additionalProperties: a map with open keys cannot be closed",
		"warning: tool search: /properties/limit default: dropped: strict mode does not support defaults (the model sends null for an omitted value; the dispatcher drops that null so the default applies)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("issues (-want +got):\n%s", diff)
	}
}
