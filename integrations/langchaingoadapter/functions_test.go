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
