package einoadapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"

	ejs "github.com/eino-contrib/jsonschema"
	"github.com/google/jsonschema-go/jsonschema"
	orderedmap "github.com/wk8/go-ordered-map/v2"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Schema converts one of our JSON schemas to eino's schema type without
// losing a keyword: "definitions" become "$defs" with their "$ref"s
// rewritten ([kit.ParseSchema]), property order is kept, and keywords and
// values eino's fields cannot hold (vendor extensions, a draft-07 array
// "items", a null "const"...) go to Extras, which eino marshals inline: a
// model provider receives the JSON we started from. Nil converts to nil.
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

func convert(data []byte) (*ejs.Schema, error) {
	n, err := kit.ParseSchema(data)
	if err != nil {
		return nil, err
	}
	return fromNode(n)
}

// fromNode builds eino's schema from a parsed one: keywords eino has a
// field for go to that field, the others to Extras.
func fromNode(n *kit.SchemaNode) (*ejs.Schema, error) {
	if n.Bool != nil {
		s := *ejs.FalseSchema
		if *n.Bool {
			s = *ejs.TrueSchema
		}
		return &s, nil
	}
	s := &ejs.Schema{}
	scalars := map[string]json.RawMessage{}
	extras := map[string]json.RawMessage{}
	for _, k := range n.Keywords {
		switch {
		case k.Name == "items" && k.Sub == nil: // draft-07 tuple: eino's Items is one schema
			extras[k.Name] = k.Value
		case k.Sub == nil && k.List == nil && k.Map == nil:
			scalars[k.Name] = k.Value // those eino has no field for come back from setScalars
		}
	}
	// Scalars first, while s has no subschemas: setScalars marshals s to
	// see which of them eino would drop.
	if err := setScalars(s, scalars, extras); err != nil {
		return nil, err
	}
	subs := map[string]**ejs.Schema{"additionalProperties": &s.AdditionalProperties, "propertyNames": &s.PropertyNames,
		"contains": &s.Contains, "not": &s.Not, "if": &s.If, "then": &s.Then, "else": &s.Else,
		"contentSchema": &s.ContentSchema, "items": &s.Items}
	lists := map[string]*[]*ejs.Schema{"allOf": &s.AllOf, "anyOf": &s.AnyOf, "oneOf": &s.OneOf, "prefixItems": &s.PrefixItems}
	mapKeys := map[string]*map[string]*ejs.Schema{"$defs": (*map[string]*ejs.Schema)(&s.Definitions),
		"patternProperties": &s.PatternProperties, "dependentSchemas": &s.DependentSchemas}
	for _, k := range n.Keywords {
		var err error
		switch {
		case k.Sub != nil:
			*subs[k.Name], err = fromNode(k.Sub)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k.Name, err)
			}
		case k.List != nil:
			list := make([]*ejs.Schema, len(k.List))
			for i, sub := range k.List {
				if list[i], err = fromNode(sub); err != nil {
					return nil, fmt.Errorf("%s/%d: %w", k.Name, i, err)
				}
			}
			*lists[k.Name] = list
		case k.Name == "properties":
			s.Properties = orderedmap.New[string, *ejs.Schema]()
			for _, p := range k.Map {
				sub, err := fromNode(p.Schema)
				if err != nil {
					return nil, fmt.Errorf("properties/%s: %w", p.Name, err)
				}
				s.Properties.Set(p.Name, sub)
			}
		case k.Map != nil:
			m := make(map[string]*ejs.Schema, len(k.Map))
			for _, p := range k.Map {
				if m[p.Name], err = fromNode(p.Schema); err != nil {
					return nil, fmt.Errorf("%s/%s: %w", k.Name, p.Name, err)
				}
			}
			*mapKeys[k.Name] = m
		}
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

// setScalars decodes the scalar keywords into s (kit.DecodeKeywords); those
// eino's type cannot carry go to extras.
func setScalars(s *ejs.Schema, scalars, extras map[string]json.RawMessage) error {
	rest, err := kit.DecodeKeywords(s, scalars, unmarshalSchema)
	if err != nil {
		return err
	}
	maps.Copy(extras, rest)
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
	return nil
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

func decodeNumbers[T any](data []byte, v *T) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}
