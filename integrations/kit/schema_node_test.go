package kit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// flatten writes a node back as generic JSON, so that a test can compare
// what the parser kept with what it should have.
func flatten(t *testing.T, n *kit.SchemaNode) any {
	t.Helper()
	if n.Bool != nil {
		return *n.Bool
	}
	m := map[string]any{}
	var order []string
	for _, k := range n.Keywords {
		order = append(order, k.Name)
		switch {
		case k.Sub != nil:
			m[k.Name] = flatten(t, k.Sub)
		case k.List != nil:
			var l []any
			for _, s := range k.List {
				l = append(l, flatten(t, s))
			}
			m[k.Name] = l
		case k.Map != nil:
			sub := map[string]any{}
			var names []string
			for _, p := range k.Map {
				names = append(names, p.Name)
				sub[p.Name] = flatten(t, p.Schema)
			}
			sub["(order)"] = strings.Join(names, ",")
			m[k.Name] = sub
		default:
			var v any
			if err := json.Unmarshal(k.Value, &v); err != nil {
				t.Fatalf("%s: value %s is not JSON: %v", k.Name, k.Value, err)
			}
			m[k.Name] = v
		}
	}
	m["(order)"] = strings.Join(order, ",")
	return m
}

func TestParseSchema(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"boolean", `true`, `true`},
		{"order kept", `{"type":"object","properties":{"b":{},"a":false},"required":["b"]}`,
			`{"(order)":"type,properties,required","type":"object","required":["b"],
			  "properties":{"(order)":"b,a","b":{"(order)":""},"a":false}}`},
		{"definitions become $defs", `{"properties":{"a":{"$ref":"#/definitions/A"},"definitions":{"$ref":"#/properties/definitions"}},
			"definitions":{"A":{"$ref":"#/definitions/B"},"B":{"type":"string"}}}`,
			`{"(order)":"properties,$defs",
			  "properties":{"(order)":"a,definitions","a":{"(order)":"$ref","$ref":"#/$defs/A"},"definitions":{"(order)":"$ref","$ref":"#/properties/definitions"}},
			  "$defs":{"(order)":"A,B","A":{"(order)":"$ref","$ref":"#/$defs/B"},"B":{"(order)":"type","type":"string"}}}`},
		{"definitions merge into $defs", `{"$defs":{"A":{"type":"string"}},"definitions":{"A":{"type":"string"},"B":true}}`,
			`{"(order)":"$defs","$defs":{"(order)":"A,B","A":{"(order)":"type","type":"string"},"B":true}}`},
		{"tuple items and unknown keywords stay JSON", `{"items":[{"type":"string"}],"x-ui":{"definitions":{}},"dependencies":{"a":["b"]}}`,
			`{"(order)":"items,x-ui,dependencies","items":[{"type":"string"}],"x-ui":{"definitions":{}},"dependencies":{"a":["b"]}}`},
		{"subschemas everywhere", `{"allOf":[{"not":{"$ref":"#/definitions/X"}}],"items":{"if":true,"then":false}}`,
			`{"(order)":"allOf,items","allOf":[{"(order)":"not","not":{"(order)":"$ref","$ref":"#/$defs/X"}}],
			  "items":{"(order)":"if,then","if":true,"then":false}}`},
	} {
		n, err := kit.ParseSchema([]byte(tc.in))
		if err != nil {
			t.Errorf("%s: ParseSchema(%s): %v", tc.name, tc.in, err)
			continue
		}
		var want any
		if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(flatten(t, n))
		var g any
		json.Unmarshal(got, &g)
		if d := cmp.Diff(want, g); d != "" {
			t.Errorf("%s: ParseSchema(%s) (-want +got):\n%s", tc.name, tc.in, d)
		}
	}
}

func TestParseSchemaErrors(t *testing.T) {
	for name, tc := range map[string]struct{ in, path string }{
		"not json":             {`{"type":`, ""},
		"not an object":        {`[1]`, ""},
		"bad properties":       {`{"properties":[]}`, "properties: "},
		"bad property":         {`{"properties":{"a":3}}`, "properties/a: "},
		"conflicting $defs":    {`{"$defs":{"A":{"type":"string"}},"definitions":{"A":{"type":"integer"}}}`, `"A" is defined differently`},
		"bad subschema in all": {`{"allOf":[3]}`, "allOf/0: "},
		"bad single":           {`{"not":"x"}`, "not: "},
	} {
		_, err := kit.ParseSchema([]byte(tc.in))
		if err == nil {
			t.Errorf("%s: ParseSchema(%s) succeeded", name, tc.in)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.path) {
			t.Errorf("%s: ParseSchema(%s) = %q, want it to start with %q", name, tc.in, err, tc.path)
		}
	}
}

func TestVacuous(t *testing.T) {
	for _, tc := range []struct {
		kw, v string
		want  bool
	}{
		{"readOnly", "false", true}, {"readOnly", "true", false}, {"description", `""`, true},
		{"description", `"x"`, false}, {"required", "[]", true}, {"enum", "[]", false},
		{"dependentRequired", "{}", true}, {"default", "false", false}, {"const", `""`, false},
	} {
		if got := kit.Vacuous(tc.kw, json.RawMessage(tc.v)); got != tc.want {
			t.Errorf("Vacuous(%s, %s) = %v, want %v", tc.kw, tc.v, got, tc.want)
		}
	}
}
