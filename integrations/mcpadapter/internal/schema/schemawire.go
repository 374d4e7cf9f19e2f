package schema

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Wire is the value the export lists for s: its JSON encoding, made once
// here, with "required": [] written back where a level of s has an empty
// (non-nil) Required. jsonschema-go omits an empty Required, so an
// upstream's `"required": []` would otherwise be dropped on the way
// through; schemas pass as they are. It runs when a tool is added, not per
// call: go-sdk re-encodes a tool's *jsonschema.Schema on every tools/call
// it serves over HTTP (to read its x-mcp-header annotations) and on every
// tools/list, and copies a json.RawMessage as it is. s itself is returned
// only when it does not encode (go-sdk then refuses it as it would have).
func Wire(s *jsonschema.Schema) any {
	b, err := json.Marshal(s)
	if err != nil {
		return s
	}
	if !hasEmptyRequired(s) {
		return json.RawMessage(b)
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
// keep jsonschema-go's order (properties in PropertyOrder). It reads b
// once: a deeply nested schema costs no more than a wide one.
func withEmptyRequired(s *jsonschema.Schema, b []byte) ([]byte, error) {
	w := &requiredWriter{dec: json.NewDecoder(bytes.NewReader(b)), need: map[*jsonschema.Schema]bool{}}
	w.mark(s)
	if err := w.schema(s); err != nil {
		return nil, err
	}
	return w.out.Bytes(), nil
}

// requiredWriter copies a schema's JSON from dec to out, writing back the
// empty required lists of the schemas in need.
type requiredWriter struct {
	dec  *json.Decoder
	out  bytes.Buffer
	need map[*jsonschema.Schema]bool // s or a subschema has an empty Required
}

// mark fills w.need for s and its subschemas, visiting each once.
func (w *requiredWriter) mark(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	if n, ok := w.need[s]; ok {
		return n
	}
	w.need[s] = false // a cycle, should one be built in Go, ends here
	n := s.Required != nil && len(s.Required) == 0
	eachSubschema(s, func(sub *jsonschema.Schema) bool {
		n = w.mark(sub) || n
		return false
	})
	w.need[s] = n
	return n
}

// schema copies the value at the decoder, the encoding of s.
func (w *requiredWriter) schema(s *jsonschema.Schema) error {
	if s == nil || !w.need[s] {
		return w.copyValue()
	}
	own := s.Required != nil && len(s.Required) == 0
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		// jsonschema-go writes a schema that is otherwise empty as a boolean.
		switch {
		case own && tok == true:
			w.out.WriteString(`{"required":[]}`)
		case own && tok == false:
			w.out.WriteString(`{"not":true,"required":[]}`)
		default:
			b, err := json.Marshal(tok)
			if err != nil {
				return err
			}
			w.out.Write(b)
		}
		return nil
	}
	maps, lists, values := schemaMaps(s), schemaLists(s), schemaValues(s)
	w.out.WriteByte('{')
	first, hasRequired := true, false
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if !first {
			w.out.WriteByte(',')
		}
		first = false
		k, err := json.Marshal(key)
		if err != nil {
			return err
		}
		w.out.Write(k)
		w.out.WriteByte(':')
		switch m, l, v := maps[key], lists[key], values[key]; {
		case key == "required":
			hasRequired = true
			err = w.copyValue()
		case m != nil:
			err = w.schemaMap(m)
		case l != nil:
			err = w.schemaList(l)
		case v != nil:
			err = w.schema(v)
		default:
			err = w.copyValue()
		}
		if err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil { // '}'
		return err
	}
	if own && !hasRequired {
		if !first {
			w.out.WriteByte(',')
		}
		w.out.WriteString(`"required":[]`)
	}
	w.out.WriteByte('}')
	return nil
}

// schemaMap copies an object of schemas ("properties", "$defs"...).
func (w *requiredWriter) schemaMap(m map[string]*jsonschema.Schema) error {
	if err := w.delim('{'); err != nil {
		return err
	}
	for first := true; w.dec.More(); first = false {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		if !first {
			w.out.WriteByte(',')
		}
		k, err := json.Marshal(name)
		if err != nil {
			return err
		}
		w.out.Write(k)
		w.out.WriteByte(':')
		if err := w.schema(m[name]); err != nil { // nil for "dependencies" lists of names
			return err
		}
	}
	return w.delim('}')
}

// schemaList copies an array of schemas ("allOf", "prefixItems"...).
func (w *requiredWriter) schemaList(l []*jsonschema.Schema) error {
	if err := w.delim('['); err != nil {
		return err
	}
	for i := 0; w.dec.More(); i++ {
		if i > 0 {
			w.out.WriteByte(',')
		}
		var sub *jsonschema.Schema
		if i < len(l) {
			sub = l[i]
		}
		if err := w.schema(sub); err != nil {
			return err
		}
	}
	return w.delim(']')
}

// delim reads the delimiter d and writes it.
func (w *requiredWriter) delim(d json.Delim) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	if tok != d {
		return fmt.Errorf("mcpadapter: schema JSON has %v where %v was expected", tok, d)
	}
	w.out.WriteString(d.String())
	return nil
}

func (w *requiredWriter) copyValue() error {
	var v json.RawMessage
	if err := w.dec.Decode(&v); err != nil {
		return err
	}
	w.out.Write(v)
	return nil
}
