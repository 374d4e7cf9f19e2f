package argcheck

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func resolved(t *testing.T, s *jsonschema.Schema) *jsonschema.Resolved {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ResolveSchema(s, b)
	if err != nil {
		t.Fatal(err)
	}
	return r.RS
}

// TestFlatMatchesJSONSchema: on random flat object schemas (string,
// integer, number and boolean properties, some required, additional
// properties allowed or not) and random JSON instances, Flat says valid
// exactly when jsonschema-go does — so using it to skip jsonschema-go
// never lets an invalid instance through, nor sends a valid one to the
// slow path more than it must.
func TestFlatMatchesJSONSchema(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	types := []string{"string", "integer", "number", "boolean"}
	names := []string{"a", "b", "text", "n", "é"}
	values := []string{`"x"`, `""`, `1`, `1.5`, `-0`, `1e3`, `9007199254740993`, `true`, `false`, `null`, `[]`, `{}`, `[1]`, `{"a":1}`}
	var flat, valid int
	for i := range 400 {
		s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, Description: "d"}
		for _, n := range names {
			if rng.IntN(2) == 0 {
				s.Properties[n] = &jsonschema.Schema{Type: types[rng.IntN(len(types))], Description: "p", Extra: map[string]any{"x-mcp-header": "H"}}
				if rng.IntN(2) == 0 {
					s.Required = append(s.Required, n)
				}
			}
		}
		switch rng.IntN(3) {
		case 0:
			s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
		case 1:
			s.AdditionalProperties = &jsonschema.Schema{}
		}
		f := NewFlat(resolved(t, s).Schema())
		if f == nil {
			t.Fatalf("schema %d: no Flat check for a flat schema", i)
		}
		rs := resolved(t, s)
		for range 40 {
			var b []byte
			b = append(b, '{')
			for j, n := range names {
				if rng.IntN(2) == 0 {
					continue
				}
				if len(b) > 1 {
					b = append(b, ',')
				}
				b = fmt.Appendf(b, "%q:%s", n, values[(j+rng.IntN(len(values)))%len(values)])
			}
			if rng.IntN(4) == 0 {
				if len(b) > 1 {
					b = append(b, ',')
				}
				b = append(b, `"other":1`...)
			}
			b = append(b, '}')
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			want := rs.Validate(v) == nil
			if got := f.Valid(v); got != want {
				sb, _ := json.Marshal(s)
				t.Fatalf("schema %s, instance %s: Flat says %v, jsonschema-go %v", sb, b, got, want)
			}
			flat++
			if want {
				valid++
			}
		}
	}
	if valid < flat/10 || valid > flat*9/10 {
		t.Errorf("%d of %d instances valid: the test exercises one side only", valid, flat)
	}
	// Not a map: never valid for Flat.
	f := NewFlat(&jsonschema.Schema{Type: "object"})
	for _, v := range []any{nil, "x", 1.0, []any{}} {
		if f.Valid(v) {
			t.Errorf("Flat calls %v valid for an object schema", v)
		}
	}
}

// TestFlatRefuses: a schema with anything that validates beyond the flat
// shape gets no Flat check (jsonschema-go validates it).
func TestFlatRefuses(t *testing.T) {
	one, ptr := 1, func(f float64) *float64 { return &f }
	str := func(s *jsonschema.Schema) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"a": s}}
	}
	for i, s := range []*jsonschema.Schema{
		nil, {Type: "string"}, {Types: []string{"object"}},
		str(&jsonschema.Schema{Type: "string", MinLength: &one}), str(&jsonschema.Schema{Type: "string", Pattern: "x"}),
		str(&jsonschema.Schema{Type: "string", Format: "email"}), str(&jsonschema.Schema{Type: "string", Enum: []any{"x"}}),
		str(&jsonschema.Schema{Type: "integer", Minimum: ptr(0)}), str(&jsonschema.Schema{Type: "array"}),
		str(&jsonschema.Schema{Type: "object"}), str(&jsonschema.Schema{Types: []string{"string", "null"}}),
		str(&jsonschema.Schema{Type: "string", Default: json.RawMessage(`"x"`)}), str(&jsonschema.Schema{Ref: "#/$defs/x"}), str(nil),
		{Type: "object", MinProperties: &one}, {Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "string"}},
		{Type: "object", PatternProperties: map[string]*jsonschema.Schema{"x": {}}}, {Type: "object", AllOf: []*jsonschema.Schema{{}}},
		{Type: "object", Not: &jsonschema.Schema{}}, {Type: "object", Defs: map[string]*jsonschema.Schema{"x": {}}},
		{Type: "object", DependentRequired: map[string][]string{"a": {"b"}}}, {Type: "object", UnevaluatedProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}},
	} {
		if NewFlat(s) != nil {
			b, _ := json.Marshal(s)
			t.Errorf("schema %d %s: a Flat check", i, b)
		}
	}
}
