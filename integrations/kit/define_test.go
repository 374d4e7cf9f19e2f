package kit_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestDefine(t *testing.T) {
	type in struct {
		City  string `json:"city"`
		Limit int    `json:"limit,omitempty"`
	}
	spec := adapter.MustTool("weather", "Tells the weather.", func(context.Context, in) (string, error) { return "", nil }, nil)
	open := adapter.MustTool("open", "", func(context.Context, map[string]any) (string, error) { return "", nil }, nil)
	open.InputSchema = &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{}}
	bad := adapter.MustTool("bad", "", func(context.Context, in) (string, error) { return "", nil }, nil)
	var unencodable any = func() {}
	bad.InputSchema = &jsonschema.Schema{Type: "object", Const: &unencodable}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	params := func(s *jsonschema.Schema) string { m, _ := kit.Parameters(s); return js(m) }
	strictOf := func(s *jsonschema.Schema) string { m, _ := kit.Strict(s); return js(m) }

	for _, tt := range []struct {
		name       string
		spec       *adapter.Spec
		strict     bool
		params     string
		wantStrict bool
		issue      kit.Severity // of the first issue; 0: none
	}{
		{"plain", spec, false, params(spec.InputSchema), false, 0},
		{"strict", spec, true, strictOf(spec.InputSchema), true, 0},
		{"cannot be strict", open, true, params(open.InputSchema), false, kit.SeverityError},
		{"does not encode", bad, true, `{"type":"object"}`, false, kit.SeverityError},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, issues := kit.Define(tt.spec, tt.strict)
			if d.Name != tt.spec.Name || d.Description != tt.spec.Description {
				t.Errorf("Define named %q %q, want the spec's", d.Name, d.Description)
			}
			if got := js(d.Parameters); got != tt.params || d.Strict != tt.wantStrict {
				t.Errorf("Define parameters %s (strict %v), want %s (strict %v)", got, d.Strict, tt.params, tt.wantStrict)
			}
			if tt.issue == 0 && len(issues) > 0 || tt.issue != 0 && (len(issues) == 0 || issues[0].Severity != tt.issue) {
				t.Fatalf("Define issues %v, want first of severity %v", issues, tt.issue)
			}
			for _, is := range issues {
				if is.Tool != tt.spec.Name {
					t.Errorf("issue %v does not name the tool", is)
				}
			}
		})
	}
}
