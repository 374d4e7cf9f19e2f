package mcpadapter

import (
	"bytes"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
)

// wireSchema is the value the export lists for s: s itself, or, when a
// level of s has an empty (non-nil) Required, its JSON with "required": []
// written back. jsonschema-go omits an empty Required, so an upstream's
// `"required": []` would otherwise be dropped on the way through; schemas
// pass as they are. It runs when a tool is added, not per call.
func wireSchema(s *jsonschema.Schema) any {
	if !hasEmptyRequired(s) {
		return s
	}
	b, err := json.Marshal(s)
	if err != nil {
		return s // go-sdk refuses it as it would have
	}
	out, err := withEmptyRequired(s, b)
	if err != nil {
		return s
	}
	return json.RawMessage(out)
}

// hasEmptyRequired reports whether s or any of its subschemas has an empty,
// non-nil Required.
func hasEmptyRequired(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	if s.Required != nil && len(s.Required) == 0 {
		return true
	}
	return eachSubschema(s, hasEmptyRequired)
}

// eachSubschema calls f with every subschema of s, stopping when f
// returns true; it reports whether one did.
func eachSubschema(s *jsonschema.Schema, f func(sub *jsonschema.Schema) bool) bool {
	for _, m := range []map[string]*jsonschema.Schema{s.Defs, s.Definitions, s.Properties, s.PatternProperties, s.DependentSchemas, s.DependencySchemas} {
		for _, sub := range m {
			if f(sub) {
				return true
			}
		}
	}
	for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems, s.ItemsArray} {
		for _, sub := range l {
			if f(sub) {
				return true
			}
		}
	}
	for _, sub := range []*jsonschema.Schema{s.Items, s.Not, s.If, s.Then, s.Else, s.AdditionalItems, s.Contains,
		s.UnevaluatedItems, s.AdditionalProperties, s.PropertyNames, s.UnevaluatedProperties, s.ContentSchema} {
		if sub != nil && f(sub) {
			return true
		}
	}
	return false
}

// The keywords that hold subschemas, by shape, for withEmptyRequired; they
// list the fields eachSubschema visits.
func schemaMaps(s *jsonschema.Schema) map[string]map[string]*jsonschema.Schema {
	return map[string]map[string]*jsonschema.Schema{
		"$defs": s.Defs, "definitions": s.Definitions, "properties": s.Properties,
		"patternProperties": s.PatternProperties, "dependentSchemas": s.DependentSchemas,
		"dependencies": s.DependencySchemas,
	}
}

func schemaLists(s *jsonschema.Schema) map[string][]*jsonschema.Schema {
	return map[string][]*jsonschema.Schema{
		"allOf": s.AllOf, "anyOf": s.AnyOf, "oneOf": s.OneOf, "prefixItems": s.PrefixItems,
		"items": s.ItemsArray,
	}
}

func schemaValues(s *jsonschema.Schema) map[string]*jsonschema.Schema {
	return map[string]*jsonschema.Schema{
		"items": s.Items, "not": s.Not, "if": s.If, "then": s.Then, "else": s.Else,
		"additionalItems": s.AdditionalItems, "contains": s.Contains,
		"unevaluatedItems": s.UnevaluatedItems, "additionalProperties": s.AdditionalProperties,
		"propertyNames": s.PropertyNames, "unevaluatedProperties": s.UnevaluatedProperties,
		"contentSchema": s.ContentSchema,
	}
}

// withEmptyRequired rewrites b, jsonschema-go's encoding of s, adding
// "required": [] to each object whose schema has an empty Required. Keys
// keep jsonschema-go's order (properties in PropertyOrder); only the levels
// that need it are decoded.
func withEmptyRequired(s *jsonschema.Schema, b []byte) ([]byte, error) {
	if !hasEmptyRequired(s) {
		return b, nil
	}
	var out bytes.Buffer
	hasRequired := false
	err := eachMember(b, &out, func(key string, v []byte) ([]byte, error) {
		if key == "required" {
			hasRequired = true
			return v, nil
		}
		if m := schemaMaps(s)[key]; m != nil {
			return eachMemberBytes(v, func(name string, v []byte) ([]byte, error) {
				return withEmptyRequired(m[name], v)
			})
		}
		if l := schemaLists(s)[key]; l != nil && len(v) > 0 && v[0] == '[' {
			return eachElement(v, l, withEmptyRequired)
		}
		if sub := schemaValues(s)[key]; sub != nil {
			return withEmptyRequired(sub, v)
		}
		return v, nil
	})
	if err != nil {
		return nil, err
	}
	if hasRequired || s.Required == nil || len(s.Required) > 0 {
		return out.Bytes(), nil
	}
	// jsonschema-go writes a schema that is otherwise empty as a boolean.
	switch b := bytes.TrimSpace(out.Bytes()); {
	case string(b) == "true" || string(b) == "{}":
		return []byte(`{"required":[]}`), nil
	case string(b) == "false":
		return []byte(`{"not":true,"required":[]}`), nil
	case len(b) > 2 && b[len(b)-1] == '}':
		return append(b[:len(b)-1:len(b)-1], `,"required":[]}`...), nil
	}
	return out.Bytes(), nil
}

func eachMemberBytes(b []byte, f func(key string, v []byte) ([]byte, error)) ([]byte, error) {
	var out bytes.Buffer
	if err := eachMember(b, &out, f); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// eachMember writes the object b to out, each member's value replaced by
// f's. A b that is not an object (a boolean schema) is written as is.
func eachMember(b []byte, out *bytes.Buffer, f func(key string, v []byte) ([]byte, error)) error {
	var members []struct {
		Key   string
		Value json.RawMessage
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		out.Write(b)
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		members = append(members, struct {
			Key   string
			Value json.RawMessage
		}{key, v})
	}
	out.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			out.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return err
		}
		v, err := f(m.Key, m.Value)
		if err != nil {
			return err
		}
		out.Write(k)
		out.WriteByte(':')
		out.Write(v)
	}
	out.WriteByte('}')
	return nil
}

// eachElement rewrites the array b, element i by f(l[i], element).
func eachElement(b []byte, l []*jsonschema.Schema, f func(*jsonschema.Schema, []byte) ([]byte, error)) ([]byte, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(b, &elems); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			out.WriteByte(',')
		}
		var sub *jsonschema.Schema
		if i < len(l) {
			sub = l[i]
		}
		v, err := f(sub, e)
		if err != nil {
			return nil, err
		}
		out.Write(v)
	}
	out.WriteByte(']')
	return out.Bytes(), nil
}
