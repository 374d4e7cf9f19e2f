package einoadapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	ejs "github.com/eino-contrib/jsonschema"
	"github.com/google/jsonschema-go/jsonschema"
	orderedmap "github.com/wk8/go-ordered-map/v2"
)

// Schema converts one of our JSON schemas to eino's schema type without
// losing a keyword:
//
//   - draft-07 "definitions" become "$defs" (eino's type has no
//     "definitions", so a "$ref" to one would dangle) and every local "$ref"
//     into them is rewritten to match;
//   - keywords eino's type has no field for ("unevaluatedProperties",
//     "additionalItems", "dependencies", "$dynamicAnchor", a draft-07 array
//     "items", vendor extensions...) and values its fields cannot hold (a
//     null "const" or "default", an empty "enum") are kept in Extras, which
//     eino marshals inline, so the JSON a model provider receives is the
//     JSON we started from;
//   - property order is kept.
//
// A nil schema converts to nil.
func Schema(s *jsonschema.Schema) (*ejs.Schema, error) {
	if s == nil {
		return nil, nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("einoadapter: marshaling schema: %w", err)
	}
	return SchemaFromJSON(b)
}

// SchemaFromJSON is like [Schema] for a schema given as JSON text.
func SchemaFromJSON(data []byte) (*ejs.Schema, error) {
	s, err := convert(data)
	if err != nil {
		return nil, fmt.Errorf("einoadapter: converting schema: %w", err)
	}
	return s, nil
}

// object is a JSON object that remembers its key order.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func parseObject(data []byte) (*object, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("want a JSON object, got %v", tok)
	}
	o := &object{vals: map[string]json.RawMessage{}}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		k := tok.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = v
	}
	if _, err := d.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

// Keywords whose values are one subschema, a list of them, or a map of them.
var (
	singleKeys = map[string]bool{"additionalProperties": true, "propertyNames": true, "contains": true,
		"not": true, "if": true, "then": true, "else": true, "contentSchema": true}
	listKeys = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}
	mapKeys  = map[string]bool{"$defs": true, "patternProperties": true, "dependentSchemas": true}
	// scalarKeys are the other keywords eino's Schema has a field for.
	scalarKeys = map[string]bool{"$schema": true, "$id": true, "$anchor": true, "$ref": true, "$dynamicRef": true,
		"$comment": true, "type": true, "enum": true, "const": true, "multipleOf": true, "maximum": true,
		"exclusiveMaximum": true, "minimum": true, "exclusiveMinimum": true, "maxLength": true, "minLength": true,
		"pattern": true, "maxItems": true, "minItems": true, "uniqueItems": true, "maxContains": true,
		"minContains": true, "maxProperties": true, "minProperties": true, "required": true,
		"dependentRequired": true, "format": true, "contentEncoding": true, "contentMediaType": true,
		"title": true, "description": true, "default": true, "deprecated": true, "readOnly": true,
		"writeOnly": true, "examples": true}
)

func convert(data []byte) (*ejs.Schema, error) {
	data = bytes.TrimSpace(data)
	switch string(data) {
	case "true":
		s := *ejs.TrueSchema
		return &s, nil
	case "false":
		s := *ejs.FalseSchema
		return &s, nil
	}
	o, err := parseObject(data)
	if err != nil {
		return nil, err
	}
	if err := renameDefinitions(o); err != nil {
		return nil, err
	}
	s := &ejs.Schema{}
	scalars := map[string]json.RawMessage{}
	extras := map[string]json.RawMessage{}
	for _, k := range o.keys {
		v := o.vals[k]
		switch {
		case k == "properties":
			props, err := parseObject(v)
			if err != nil {
				return nil, fmt.Errorf("properties: %w", err)
			}
			s.Properties = orderedmap.New[string, *ejs.Schema]()
			for _, name := range props.keys {
				sub, err := convert(props.vals[name])
				if err != nil {
					return nil, fmt.Errorf("properties/%s: %w", name, err)
				}
				s.Properties.Set(name, sub)
			}
		case k == "items":
			if isArray(v) { // draft-07 tuple form: eino's Items is one schema
				extras[k] = v
				continue
			}
			if s.Items, err = convert(v); err != nil {
				return nil, fmt.Errorf("items: %w", err)
			}
		case singleKeys[k]:
			sub, err := convert(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			setSingle(s, k, sub)
		case listKeys[k]:
			var raws []json.RawMessage
			if err := json.Unmarshal(v, &raws); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			list := make([]*ejs.Schema, len(raws))
			for i, r := range raws {
				if list[i], err = convert(r); err != nil {
					return nil, fmt.Errorf("%s/%d: %w", k, i, err)
				}
			}
			setList(s, k, list)
		case mapKeys[k]:
			m, err := parseObject(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			subs := make(map[string]*ejs.Schema, len(m.keys))
			for _, name := range m.keys {
				if subs[name], err = convert(m.vals[name]); err != nil {
					return nil, fmt.Errorf("%s/%s: %w", k, name, err)
				}
			}
			setMap(s, k, subs)
		case k == "$ref":
			scalars[k] = rewriteRef(v)
		case scalarKeys[k]:
			scalars[k] = v
		default:
			extras[k] = v
		}
	}
	if err := setScalars(s, scalars, extras); err != nil {
		return nil, err
	}
	if len(extras) > 0 {
		s.Extras = make(map[string]any, len(extras))
		for k, v := range extras {
			var x any
			if err := decodeNumbers(v, &x); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			s.Extras[k] = x
		}
	}
	return s, nil
}

// setScalars decodes the scalar keywords into s. A keyword whose value the
// field cannot hold, or which the field would drop on output (omitempty
// fields drop null and empty values), goes to extras instead, unless it is
// a value that means nothing (false, "", an empty "required").
func setScalars(s *ejs.Schema, scalars, extras map[string]json.RawMessage) error {
	if len(scalars) == 0 {
		return nil
	}
	if b, err := json.Marshal(scalars); err == nil && unmarshalSchema(b, s) == nil {
		return keepDropped(s, scalars, extras)
	}
	// Some value does not fit its field: decode one keyword at a time.
	for _, k := range slices.Sorted(mapsKeys(scalars)) {
		one, _ := json.Marshal(map[string]json.RawMessage{k: scalars[k]})
		var probe ejs.Schema
		if unmarshalSchema(one, &probe) != nil {
			extras[k] = scalars[k]
			delete(scalars, k)
		}
	}
	// One decode for all that fit: decoding resets "type" when it is absent.
	b, err := json.Marshal(scalars)
	if err != nil {
		return err
	}
	if err := unmarshalSchema(b, s); err != nil {
		return err
	}
	return keepDropped(s, scalars, extras)
}

// unmarshalSchema decodes into eino's schema type, whose decoder panics on
// some inputs (a null "type").
func unmarshalSchema(data []byte, s *ejs.Schema) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("eino's schema decoder failed: %v", p)
		}
	}()
	return json.Unmarshal(data, s)
}

func keepDropped(s *ejs.Schema, scalars, extras map[string]json.RawMessage) error {
	// Values of any type decode numbers as float64, which rounds big
	// integers: decode them again keeping the number's text.
	for k, dst := range map[string]*any{"default": &s.Default, "const": &s.Const} {
		if v, ok := scalars[k]; ok && *dst != nil {
			if err := decodeNumbers(v, dst); err != nil {
				return err
			}
		}
	}
	for k, dst := range map[string]*[]any{"enum": &s.Enum, "examples": &s.Examples} {
		if v, ok := scalars[k]; ok && *dst != nil {
			if err := decodeNumbers(v, dst); err != nil {
				return err
			}
		}
	}
	// Marshal only the scalar part: clear the subschemas on a copy.
	c := ejs.Schema{Version: s.Version, ID: s.ID, Anchor: s.Anchor, Ref: s.Ref, DynamicRef: s.DynamicRef,
		Comments: s.Comments, Type: s.Type, TypeEnhanced: s.TypeEnhanced, Enum: s.Enum, Const: s.Const,
		MultipleOf: s.MultipleOf, Maximum: s.Maximum, ExclusiveMaximum: s.ExclusiveMaximum, Minimum: s.Minimum,
		ExclusiveMinimum: s.ExclusiveMinimum, MaxLength: s.MaxLength, MinLength: s.MinLength, Pattern: s.Pattern,
		MaxItems: s.MaxItems, MinItems: s.MinItems, UniqueItems: s.UniqueItems, MaxContains: s.MaxContains,
		MinContains: s.MinContains, MaxProperties: s.MaxProperties, MinProperties: s.MinProperties,
		Required: s.Required, DependentRequired: s.DependentRequired, Format: s.Format,
		ContentEncoding: s.ContentEncoding, ContentMediaType: s.ContentMediaType, Title: s.Title,
		Description: s.Description, Default: s.Default, Deprecated: s.Deprecated, ReadOnly: s.ReadOnly,
		WriteOnly: s.WriteOnly, Examples: s.Examples}
	b, err := json.Marshal(&c)
	if err != nil {
		return err
	}
	kept := map[string]json.RawMessage{}
	if string(b) != "true" {
		if err := json.Unmarshal(b, &kept); err != nil {
			return err
		}
	}
	for k, v := range scalars {
		if _, ok := kept[k]; ok || meaningless(k, v) {
			continue
		}
		extras[k] = v
	}
	return nil
}

// meaningless reports whether a keyword's value is the same as leaving the
// keyword out.
func meaningless(k string, v json.RawMessage) bool {
	switch strings.TrimSpace(string(v)) {
	case "false":
		return k == "uniqueItems" || k == "deprecated" || k == "readOnly" || k == "writeOnly"
	case `""`:
		return k == "title" || k == "description" || k == "$comment" || k == "format" || k == "pattern" ||
			k == "contentEncoding" || k == "contentMediaType"
	case "[]":
		return k == "required" || k == "examples"
	case "{}":
		return k == "dependentRequired"
	}
	return false
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func decodeNumbers[T any](data []byte, v *T) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

func isArray(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '['
}

func setSingle(s *ejs.Schema, k string, sub *ejs.Schema) {
	switch k {
	case "additionalProperties":
		s.AdditionalProperties = sub
	case "propertyNames":
		s.PropertyNames = sub
	case "contains":
		s.Contains = sub
	case "not":
		s.Not = sub
	case "if":
		s.If = sub
	case "then":
		s.Then = sub
	case "else":
		s.Else = sub
	case "contentSchema":
		s.ContentSchema = sub
	}
}

func setList(s *ejs.Schema, k string, list []*ejs.Schema) {
	switch k {
	case "allOf":
		s.AllOf = list
	case "anyOf":
		s.AnyOf = list
	case "oneOf":
		s.OneOf = list
	case "prefixItems":
		s.PrefixItems = list
	}
}

func setMap(s *ejs.Schema, k string, m map[string]*ejs.Schema) {
	switch k {
	case "$defs":
		s.Definitions = m
	case "patternProperties":
		s.PatternProperties = m
	case "dependentSchemas":
		s.DependentSchemas = m
	}
}

// renameDefinitions moves draft-07 "definitions" into "$defs". A name defined
// in both with different schemas cannot be merged.
func renameDefinitions(o *object) error {
	defs, ok := o.vals["definitions"]
	if !ok {
		return nil
	}
	i := slices.Index(o.keys, "definitions")
	cur, has := o.vals["$defs"]
	if !has {
		o.keys[i] = "$defs"
		o.vals["$defs"] = defs
		delete(o.vals, "definitions")
		return nil
	}
	a, err := parseObject(cur)
	if err != nil {
		return fmt.Errorf("$defs: %w", err)
	}
	b, err := parseObject(defs)
	if err != nil {
		return fmt.Errorf("definitions: %w", err)
	}
	merged := map[string]json.RawMessage{}
	for k, v := range a.vals {
		merged[k] = v
	}
	for k, v := range b.vals {
		if prev, dup := merged[k]; dup && !bytes.Equal(prev, v) {
			return fmt.Errorf("%q is defined differently in both $defs and definitions", k)
		}
		merged[k] = v
	}
	m, err := json.Marshal(merged)
	if err != nil {
		return err
	}
	o.vals["$defs"] = m
	o.keys = slices.Delete(o.keys, i, i+1)
	delete(o.vals, "definitions")
	return nil
}

// rewriteRef rewrites a local JSON pointer through "definitions" to go
// through "$defs". Segments that are property or definition names are left
// alone, so a property called "definitions" keeps its name.
func rewriteRef(v json.RawMessage) json.RawMessage {
	var ref string
	if json.Unmarshal(v, &ref) != nil || !strings.HasPrefix(ref, "#/") {
		return v
	}
	segs := strings.Split(ref[2:], "/")
	name := false // the segment is a name, not a keyword
	changed := false
	for i, seg := range segs {
		if name {
			name = false
			continue
		}
		switch seg {
		case "definitions":
			segs[i] = "$defs"
			changed = true
			name = true
		case "$defs", "properties", "patternProperties", "dependentSchemas":
			name = true
		}
	}
	if !changed {
		return v
	}
	b, _ := json.Marshal("#/" + strings.Join(segs, "/"))
	return b
}
