package schema

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemaSeeds are schemas as servers send them, and the edges of the
// conversion: wrong types, nulls, booleans, keys in other cases.
var schemaSeeds = []string{
	`{"type":"object"}`,
	`{"type":"object","properties":{"a":{"type":"integer","description":"first addend"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`,
	`{"type":"object","$defs":{"point":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"]}},"properties":{"from":{"$ref":"#/$defs/point"},"to":{"$ref":"#/$defs/point"}}}`,
	`{"type":["object","null"],"title":"T","$schema":"https://json-schema.org/draft/2020-12/schema","$id":"x","$comment":"c","$anchor":"a","$dynamicAnchor":"d","$dynamicRef":"#d"}`,
	`{"type":"object","properties":{"s":{"type":"string","minLength":1,"maxLength":3.0,"pattern":"^a","format":"email","enum":["a","b",null,1,{"k":[1]}],"const":null,"default":"a<b>&","examples":[1,"x"]}}}`,
	`{"type":"object","properties":{"n":{"type":"number","minimum":-1.5,"maximum":1e300,"exclusiveMinimum":0,"exclusiveMaximum":10,"multipleOf":0.5}}}`,
	`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"},"prefixItems":[true,false],"minItems":0,"maxItems":2147483647,"uniqueItems":true,"contains":{"const":1},"minContains":1,"maxContains":2,"unevaluatedItems":false,"additionalItems":true}}}`,
	`{"type":"object","properties":{"t":{"items":[{"type":"string"},false]}},"patternProperties":{"^x-":{"type":"string"}},"propertyNames":{"pattern":"^[a-z]"},"unevaluatedProperties":false,"minProperties":1,"maxProperties":9,"dependentRequired":{"a":["b"]},"dependentSchemas":{"a":{"required":["c"]}}}`,
	`{"type":"object","allOf":[{"required":["a"]}],"anyOf":[true],"oneOf":[{"not":{"type":"null"}}],"if":{"required":["a"]},"then":{"required":["b"]},"else":false,"readOnly":true,"writeOnly":false,"deprecated":true,"contentEncoding":"base64","contentMediaType":"image/png","contentSchema":{"type":"string"}}`,
	`{"type":"object","x-vendor":{"b":[1,2,{"c":null}]},"$vocabulary":{"https://x":true},"definitions":{"d":{"type":"integer"}}}`,
	// The slow path: UnmarshalJSON decides.
	`{"type":"object","dependencies":{"a":["b"],"c":{"required":["d"]}}}`,
	`{"type":"object","Description":"folded onto description"}`,
	`{"type":"object","TYPE":"string"}`,
	`{"type":"object","ſtuff":1}`,
	`{"type":"object","properties":{"a":null}}`,
	`{"type":"object","items":null}`,
	`{"type":"object","not":null}`,
	`{"type":"object","minLength":1.5}`,
	`{"type":"object","minLength":1e12}`,
	`{"type":"object","minLength":-3000000000}`,
	`{"type":"object","minLength":"3"}`,
	`{"type":"object","minimum":"0"}`,
	`{"type":7}`,
	`{"type":["object",1]}`,
	`{"type":null}`,
	`{"type":"object","required":["a",2]}`,
	`{"type":"object","required":"a"}`,
	`{"type":"object","enum":"a"}`,
	`{"type":"object","description":5}`,
	`{"type":"object","properties":[]}`,
	`{"type":"object","properties":{"a":1}}`,
	`{"type":"object","allOf":{}}`,
	`{"type":"object","$vocabulary":{"a":1}}`,
	`{"type":"object","dependentRequired":{"a":"b"}}`,
	`{"type":"object","dependentRequired":{"a":[1]}}`,
	`{"type":"object","readOnly":"yes"}`,
	`{"type":"object","properties":{}, "required":[], "enum":[], "allOf":[], "type":[]}`,
	`true`, `false`, `null`, `[]`, `"object"`, `3`,
}

// checkSchemaFrom holds From to what jsonschema-go's UnmarshalJSON
// makes of the canonical encoding of the same decoded value.
func checkSchemaFrom(t *testing.T, text string) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return
	}
	b, err := CanonicalJSON(v)
	if err != nil {
		t.Fatalf("%s: encoding: %v", text, err)
	}
	got, gerr := From(v, b)
	if b == nil {
		if got != nil || gerr != nil {
			t.Errorf("%s: From = %v, %v; want no schema", text, got, gerr)
		}
		return
	}
	var want jsonschema.Schema
	werr := want.UnmarshalJSON(b)
	if (gerr != nil) != (werr != nil) {
		t.Fatalf("%s: From error %v, UnmarshalJSON error %v", text, gerr, werr)
	}
	if werr != nil {
		return
	}
	if !reflect.DeepEqual(got, &want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(&want)
		t.Fatalf("%s:\nschemaFrom    %s\nUnmarshalJSON %s\n%#v\n%#v", text, gj, wj, got, &want)
	}
}

func TestSchemaFromMatchesUnmarshal(t *testing.T) {
	for _, s := range schemaSeeds {
		checkSchemaFrom(t, s)
	}
	// Random schemas: keywords (and near-keywords) with values of every
	// JSON type, nested.
	r := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		b, _ := json.Marshal(randomSchema(r, 0))
		checkSchemaFrom(t, string(b))
	}
}

func FuzzSchemaFrom(f *testing.F) {
	for _, s := range schemaSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkSchemaFrom(t, s) })
}

var randomKeys = func() []string {
	var ks []string
	for k := range schemaKeywords {
		ks = append(ks, k)
	}
	ks = append(ks, "x-extra", "Title", "PROPERTIES", "unknown", "$ref")
	return ks
}()

// randomSchema returns a random decoded schema: mostly keywords with
// values of the right type, sometimes of another.
func randomSchema(r *rand.Rand, depth int) any {
	switch r.IntN(12) {
	case 0:
		return r.IntN(2) == 0
	case 1:
		if depth > 0 {
			return nil
		}
	}
	m := map[string]any{}
	for range r.IntN(5) {
		k := randomKeys[r.IntN(len(randomKeys))]
		m[k] = randomValue(r, k, depth)
	}
	return m
}

func randomValue(r *rand.Rand, k string, depth int) any {
	if r.IntN(8) == 0 || depth > 3 {
		return randomJSON(r, 0)
	}
	switch k {
	case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas", "dependencies":
		m := map[string]any{}
		for i := range r.IntN(3) {
			m[fmt.Sprint("p", i)] = randomSchema(r, depth+1)
		}
		return m
	case "allOf", "anyOf", "oneOf", "prefixItems", "items":
		var l []any
		for range r.IntN(3) {
			l = append(l, randomSchema(r, depth+1))
		}
		if k == "items" && r.IntN(2) == 0 {
			return randomSchema(r, depth+1)
		}
		return l
	case "not", "if", "then", "else", "additionalItems", "contains", "unevaluatedItems",
		"additionalProperties", "propertyNames", "unevaluatedProperties", "contentSchema":
		return randomSchema(r, depth+1)
	case "type":
		types := []any{"object", "string", "integer", "null"}
		if r.IntN(2) == 0 {
			return types[r.IntN(len(types))]
		}
		return types[:r.IntN(len(types))]
	case "required":
		return []any{"a", "b"}[:r.IntN(3)]
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains":
		return []any{0.0, 3.0, 2.5, -1.0, 1e10, 2147483647.0, -2147483648.0}[r.IntN(7)]
	case "minimum", "maximum", "multipleOf", "exclusiveMinimum", "exclusiveMaximum":
		return r.NormFloat64() * 100
	case "$vocabulary":
		return map[string]any{"https://v": r.IntN(2) == 0}
	case "dependentRequired":
		return map[string]any{"a": []any{"b"}}
	case "deprecated", "readOnly", "writeOnly", "uniqueItems":
		return r.IntN(2) == 0
	}
	if strings.HasPrefix(k, "$") || k == "title" || k == "description" || k == "pattern" || k == "format" {
		return "s<&>"
	}
	return randomJSON(r, 0)
}

func randomJSON(r *rand.Rand, depth int) any {
	switch r.IntN(7) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return float64(r.IntN(100)) / 4
	case 3:
		return "v"
	case 4:
		if depth < 2 {
			return []any{randomJSON(r, depth+1)}
		}
	case 5:
		if depth < 2 {
			return map[string]any{"k": randomJSON(r, depth+1)}
		}
	}
	return "w"
}
