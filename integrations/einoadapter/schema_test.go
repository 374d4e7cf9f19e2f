package einoadapter_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	ejs "github.com/eino-contrib/jsonschema"
	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/integrations/einoadapter"
)

// Types whose inferred schemas join the corpus.
type (
	inferAddress struct {
		Street string   `json:"street" jsonschema:"street and number"`
		Zip    string   `json:"zip,omitempty"`
		Tags   []string `json:"tags,omitempty"`
	}
	inferOrder struct {
		ID       int64             `json:"id" jsonschema:"order id"`
		Price    float64           `json:"price"`
		Paid     bool              `json:"paid"`
		Note     *string           `json:"note,omitempty"`
		Ship     inferAddress      `json:"ship"`
		Bill     *inferAddress     `json:"bill,omitempty"`
		Lines    []inferLine       `json:"lines"`
		Attrs    map[string]int    `json:"attrs,omitempty"`
		Matrix   [][]float64       `json:"matrix,omitempty"`
		Raw      []byte            `json:"raw,omitempty"`
		When     time.Time         `json:"when"`
		Labels   map[string]string `json:"labels"`
		Any      any               `json:"any,omitempty"`
		Fixed    [3]int            `json:"fixed"`
		Ignored  string            `json:"-"`
		Embedded                   // fields promoted
	}
	inferLine struct {
		SKU string `json:"sku"`
		Qty uint   `json:"qty"`
	}
	Embedded struct {
		Source string `json:"source"`
	}
)

// hardCorpus holds constructs the MCP corpus lacks: draft-07 definitions
// with $ref, vendor keywords, keywords eino has no field for, values its
// fields cannot hold.
var hardCorpus = map[string]string{
	"definitions": `{"type":"object","properties":{"a":{"$ref":"#/definitions/A"},"definitions":{"$ref":"#/properties/a"}},
		"definitions":{"A":{"type":"object","properties":{"b":{"$ref":"#/definitions/B"}}},"B":{"type":"string","enum":["x","y"]}}}`,
	"unknown keywords": `{"type":"object","x-order":["b","a"],"unevaluatedProperties":false,"$dynamicAnchor":"n",
		"properties":{"a":{"type":"array","items":[{"type":"string"}],"additionalItems":false},
		"b":{"type":["string","null"],"const":null,"default":null,"x-ui":{"widget":"text"}}}}`,
	"everything eino has": `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"urn:x","$comment":"c","title":"T",
		"description":"D","type":"object","required":["n"],"minProperties":1,"maxProperties":9,
		"properties":{"n":{"type":"number","multipleOf":0.5,"minimum":-1,"maximum":1e3,"exclusiveMinimum":-2,"exclusiveMaximum":1001,"default":0,"examples":[1,2]},
		"s":{"type":"string","minLength":1,"maxLength":5,"pattern":"^a","format":"email","contentEncoding":"base64","contentMediaType":"image/png","deprecated":true,"readOnly":true},
		"l":{"type":"array","items":{"type":"integer"},"prefixItems":[{"const":1}],"minItems":1,"maxItems":3,"uniqueItems":true,"contains":{"const":2},"minContains":1,"maxContains":2},
		"o":{"type":"object","additionalProperties":{"type":"string"},"patternProperties":{"^x":{"type":"number"}},"propertyNames":{"maxLength":4},
			"dependentRequired":{"a":["b"]},"dependentSchemas":{"a":{"required":["c"]}}},
		"c":{"anyOf":[{"type":"string"},{"type":"null"}],"oneOf":[{"minLength":1},{"maxLength":0}],"allOf":[true],"not":{"const":"no"}},
		"i":{"if":{"type":"string"},"then":{"minLength":2},"else":false},
		"big":{"type":"integer","default":12345678901234567890,"enum":[1,12345678901234567890]}}}`,
}

type corpusEntry struct {
	name string
	json []byte
}

func corpus(t *testing.T) []corpusEntry {
	t.Helper()
	var out []corpusEntry
	for _, ct := range loadCorpus(t) {
		out = append(out, corpusEntry{"everything/" + ct.Name + "/input", ct.InputSchema})
		if len(ct.OutputSchema) > 0 {
			out = append(out, corpusEntry{"everything/" + ct.Name + "/output", ct.OutputSchema})
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[inferOrder](), reflect.TypeFor[inferAddress](), reflect.TypeFor[map[string][]inferLine]()} {
		s, err := jsonschema.ForType(typ, nil)
		if err != nil {
			t.Fatalf("inferring %v: %v", typ, err)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, corpusEntry{"inferred/" + typ.String(), b})
	}
	names := make([]string, 0, len(hardCorpus))
	for n := range hardCorpus {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, corpusEntry{"hard/" + n, []byte(hardCorpus[n])})
	}
	return out
}

// TestSchemaRoundTrip converts every corpus schema ours → eino → JSON and
// checks the result means the same as the original (with draft-07
// definitions renamed to $defs), and that its $refs still resolve.
func TestSchemaRoundTrip(t *testing.T) {
	extras := map[string]bool{}
	for _, c := range corpus(t) {
		t.Run(c.name, func(t *testing.T) {
			var ours jsonschema.Schema
			if err := json.Unmarshal(c.json, &ours); err != nil {
				t.Fatalf("not a schema jsonschema-go accepts: %v", err)
			}
			oursJSON, err := json.Marshal(&ours)
			if err != nil {
				t.Fatal(err)
			}
			es, err := einoadapter.Schema(&ours)
			if err != nil {
				t.Fatalf("Schema: %v", err)
			}
			got, err := json.Marshal(es)
			if err != nil {
				t.Fatalf("marshaling eino's schema: %v", err)
			}
			want := renameDefinitions(t, decode(t, oursJSON))
			if diff := cmp.Diff(want, normalise(decode(t, got))); diff != "" {
				t.Errorf("round trip changed the schema (-want +got):\n%s\nours: %s\neino: %s", diff, oursJSON, got)
			}
			var back jsonschema.Schema
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("eino's JSON does not parse back: %v", err)
			}
			if _, err := back.Resolve(nil); err != nil {
				t.Errorf("eino's schema does not resolve (dangling $ref?): %v\n%s", err, got)
			}
			collectExtras(es, "", extras)
		})
	}
	// The constructs eino's typed fields cannot hold (kept in Extras).
	var list []string
	for k := range extras {
		list = append(list, k)
	}
	sort.Strings(list)
	t.Logf("kept in eino's Extras: %s", strings.Join(list, ", "))
	wantExtras := []string{"$dynamicAnchor", "additionalItems", "const(null)", "default(null)", "items(array)", "unevaluatedProperties", "x-order", "x-ui"}
	if diff := cmp.Diff(wantExtras, list); diff != "" {
		t.Errorf("keywords in Extras (-want +got):\n%s", diff)
	}
}

// TestSchemaTypedFields checks that what eino can represent lands in its
// typed fields (not only in Extras), so that eino code reading the schema
// sees it.
func TestSchemaTypedFields(t *testing.T) {
	es, err := einoadapter.SchemaFromJSON([]byte(hardCorpus["definitions"]))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := es.Properties.Get("a")
	if a == nil || a.Ref != "#/$defs/A" {
		t.Errorf("properties.a.$ref = %+v, want #/$defs/A", a)
	}
	d, _ := es.Properties.Get("definitions")
	if d == nil || d.Ref != "#/properties/a" {
		t.Errorf("a property named definitions changed its $ref: %+v", d)
	}
	b := es.Definitions["A"]
	if b == nil || b.Properties == nil {
		t.Fatalf("$defs.A missing: %+v", es.Definitions)
	}
	bb, _ := b.Properties.Get("b")
	if bb == nil || bb.Ref != "#/$defs/B" {
		t.Errorf("$defs.A.properties.b.$ref = %+v", bb)
	}
	if got := es.Definitions["B"]; got == nil || !slices.Equal(got.Enum, []any{"x", "y"}) || got.Type != "string" {
		t.Errorf("$defs.B = %+v", got)
	}

	// jsonschema-go will not marshal both, but JSON from elsewhere may hold both.
	both, err := einoadapter.SchemaFromJSON([]byte(`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"b":{"$ref":"#/definitions/B"}},
		"$defs":{"A":{"type":"integer"}},"definitions":{"B":{"type":"boolean","default":true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(both); string(got) != `{"$defs":{"A":{"type":"integer"},"B":{"default":true,"type":"boolean"}},"properties":{"a":{"$ref":"#/$defs/A"},"b":{"$ref":"#/$defs/B"}},"type":"object"}` {
		t.Errorf("$defs and definitions merged into %s", got)
	}

	ev, err := einoadapter.SchemaFromJSON([]byte(hardCorpus["everything eino has"]))
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Extras) != 0 {
		t.Errorf("top-level Extras = %v, want none", ev.Extras)
	}
	s, _ := ev.Properties.Get("s")
	if s.Format != "email" || s.Pattern != "^a" || *s.MaxLength != 5 || !s.Deprecated || len(s.Extras) != 0 {
		t.Errorf("properties.s = %+v", s)
	}
	keys := []string{}
	for p := ev.Properties.Oldest(); p != nil; p = p.Next() {
		keys = append(keys, p.Key)
	}
	if diff := cmp.Diff([]string{"n", "s", "l", "o", "c", "i", "big"}, keys); diff != "" {
		t.Errorf("property order (-want +got):\n%s", diff)
	}
	big, _ := ev.Properties.Get("big")
	if got := big.Default; got != json.Number("12345678901234567890") {
		t.Errorf("a big default became %v (%T)", got, got)
	}
}

func TestSchemaErrors(t *testing.T) {
	for name, in := range map[string]string{
		"not json":             `{"type":`,
		"not an object":        `[1]`,
		"bad properties":       `{"properties":[]}`,
		"conflicting $defs":    `{"$defs":{"A":{"type":"string"}},"definitions":{"A":{"type":"integer"}}}`,
		"bad subschema in all": `{"allOf":[3]}`,
	} {
		if _, err := einoadapter.SchemaFromJSON([]byte(in)); err == nil {
			t.Errorf("%s: SchemaFromJSON(%s) succeeded", name, in)
		}
	}
	if s, err := einoadapter.Schema(nil); s != nil || err != nil {
		t.Errorf("Schema(nil) = %v, %v", s, err)
	}
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// renameDefinitions is the test's own model of the one rewrite Schema
// makes: definitions move into $defs and local $refs follow.
func renameDefinitions(t *testing.T, v any) any {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, sub := range v {
			if k == "properties" || k == "patternProperties" || k == "$defs" || k == "definitions" || k == "dependentSchemas" {
				m := map[string]any{}
				for name, s := range sub.(map[string]any) {
					m[name] = renameDefinitions(t, s)
				}
				if k == "definitions" {
					k = "$defs"
					if prev, ok := out[k].(map[string]any); ok {
						for n, s := range prev {
							m[n] = s
						}
					}
				} else if k == "$defs" {
					if prev, ok := out[k].(map[string]any); ok {
						for n, s := range prev {
							m[n] = s
						}
					}
				}
				out[k] = m
				continue
			}
			if k == "$ref" {
				if s, ok := sub.(string); ok && strings.HasPrefix(s, "#/definitions/") {
					sub = "#/$defs/" + strings.TrimPrefix(s, "#/definitions/")
				}
			}
			out[k] = renameDefinitions(t, sub)
		}
		return normalise(out)
	case []any:
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = renameDefinitions(t, s)
		}
		return out
	}
	return v
}

// normalise drops keywords whose value means the same as their absence.
func normalise(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, sub := range v {
			if b, ok := sub.(bool); ok && !b && (k == "uniqueItems" || k == "deprecated" || k == "readOnly" || k == "writeOnly") {
				continue
			}
			if l, ok := sub.([]any); ok && len(l) == 0 && k == "required" {
				continue
			}
			out[k] = normalise(sub)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = normalise(s)
		}
		return out
	}
	return v
}

// collectExtras records the keywords found in Extras anywhere in s.
func collectExtras(s *ejs.Schema, _ string, into map[string]bool) {
	if s == nil {
		return
	}
	for k, v := range s.Extras {
		switch {
		case v == nil:
			into[k+"(null)"] = true
		case k == "items":
			into["items(array)"] = true
		default:
			into[k] = true
		}
	}
	subs := []*ejs.Schema{s.Items, s.AdditionalProperties, s.PropertyNames, s.Contains, s.Not, s.If, s.Then, s.Else, s.ContentSchema}
	subs = append(subs, s.AllOf...)
	subs = append(subs, s.AnyOf...)
	subs = append(subs, s.OneOf...)
	subs = append(subs, s.PrefixItems...)
	for _, m := range []map[string]*ejs.Schema{s.Definitions, s.PatternProperties, s.DependentSchemas} {
		for _, sub := range m {
			subs = append(subs, sub)
		}
	}
	if s.Properties != nil {
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			subs = append(subs, p.Value)
		}
	}
	for _, sub := range subs {
		collectExtras(sub, "", into)
	}
}
