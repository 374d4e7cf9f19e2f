package schema

import (
	"errors"
	"fmt"
	"strings"
)

// ErrLimit is mcpadapter.ErrSchemaLimit: an imported schema is nested too
// deep, holds too many schemas or would cost too much to encode on each
// listing (the bounds below).
var ErrLimit = errors.New("mcpadapter: schema over the import limit")

const (
	// maxSchemaDepth bounds schema nesting: the top schema is at depth 1,
	// each subschema (a property, items, an anyOf branch, a $defs entry,
	// ...) one deeper.
	maxSchemaDepth = 64
	// maxSchemaCount bounds the schemas in one, the top one included.
	maxSchemaCount = 512
	// maxSchemaWork bounds a schema's encoded size weighted by depth.
	maxSchemaWork = 512 << 10
)

// schemaBound measures one schema against the import limits, stopping as
// soon as one is passed, so a hostile schema costs no more than the limit.
type schemaBound struct {
	deepest, count, work int
}

// Check reports whether v, a wire schema as JSON decoding leaves it
// (map[string]any, []any, string, float64, bool, nil), is within the
// import limits.
func Check(v any) error {
	_, err := measureSchema(v)
	return err
}

// measureSchema measures v as far as the limits allow.
func measureSchema(v any) (schemaBound, error) {
	var b schemaBound
	if v == nil {
		return b, nil
	}
	err := b.schema(v, 1)
	return b, err
}

func (b *schemaBound) schema(v any, depth int) error {
	nodes := 1
	if v == nil || v == false {
		nodes = 2 // jsonschema-go holds false (and a null) as {"not": {}}
	}
	if b.deepest = max(b.deepest, depth+nodes-1); b.deepest > maxSchemaDepth {
		return fmt.Errorf("%w: nested more than %d schemas deep", ErrLimit, maxSchemaDepth)
	}
	if b.count += nodes; b.count > maxSchemaCount {
		return fmt.Errorf("%w: more than %d schemas", ErrLimit, maxSchemaCount)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return b.data(v, depth) // true, false, or not a schema (refused later)
	}
	if err := b.add(2, depth); err != nil {
		return err
	}
	for k, x := range m {
		if err := b.add(len(k)+4, depth); err != nil {
			return err
		}
		var err error
		switch subschemas(k) {
		case kindSchema:
			err = b.schema(x, depth+1)
		case kindMap:
			err = b.each(x, depth, false)
		case kindList:
			err = b.each(x, depth, true)
		case kindItems:
			if _, isList := x.([]any); isList {
				err = b.each(x, depth, true)
			} else {
				err = b.schema(x, depth+1)
			}
		default:
			err = b.data(x, depth)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// each measures the subschemas of a map (or list) of schemas one deeper
// than depth; a value of another shape is data (UnmarshalJSON decides
// later whether it is a schema at all).
func (b *schemaBound) each(x any, depth int, list bool) error {
	switch x := x.(type) {
	case map[string]any:
		if list {
			break
		}
		if err := b.add(2, depth); err != nil {
			return err
		}
		for k, sub := range x {
			if err := b.add(len(k)+4, depth); err != nil {
				return err
			}
			if err := b.schema(sub, depth+1); err != nil {
				return err
			}
		}
		return nil
	case []any:
		if !list {
			break
		}
		if err := b.add(2, depth); err != nil {
			return err
		}
		for _, sub := range x {
			if err := b.schema(sub, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return b.data(x, depth)
}

// data measures a value that is not a schema (an enum, a default, an
// unknown keyword's value), which every enclosing schema re-reads.
func (b *schemaBound) data(v any, depth int) error {
	switch v := v.(type) {
	case map[string]any:
		if err := b.add(2, depth); err != nil {
			return err
		}
		for k, x := range v {
			if err := b.add(len(k)+4, depth); err != nil {
				return err
			}
			if err := b.data(x, depth); err != nil {
				return err
			}
		}
		return nil
	case []any:
		if err := b.add(2, depth); err != nil {
			return err
		}
		for _, x := range v {
			if err := b.data(x, depth); err != nil {
				return err
			}
		}
		return nil
	case string:
		return b.add(len(v)+3, depth)
	}
	return b.add(8, depth) // a number, true, false or null, and its comma
}

// add counts n encoded bytes inside depth schemas.
func (b *schemaBound) add(n, depth int) error {
	b.work += n * depth
	if b.work > maxSchemaWork {
		return fmt.Errorf("%w: listing it would encode more than %d bytes (its size times its depth)", ErrLimit, maxSchemaWork)
	}
	return nil
}

// subschemaKind is what a keyword's value holds.
type subschemaKind int

const (
	kindData   subschemaKind = iota
	kindSchema               // not, if, additionalProperties, ...
	kindMap                  // properties, $defs, ...
	kindList                 // allOf, anyOf, ...
	kindItems                // items (a schema, or a list of them before 2020-12)
)

// subschemas classifies keyword k as UnmarshalJSON reads it: encoding/json
// matches field names case-insensitively, with Unicode simple folding ('ſ'
// is 's', the Kelvin sign 'k'), so "PROPERTIES" nests schemas too.
func subschemas(k string) subschemaKind {
	if kind, ok := subschemaKeywords[k]; ok {
		return kind
	}
	return subschemaKeywords[strings.Map(foldRune, k)]
}

func foldRune(r rune) rune {
	switch r {
	case 'ſ':
		return 's'
	case '\u212a': // Kelvin sign
		return 'k'
	}
	if 'A' <= r && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

// subschemaKeywords are the keywords whose values are schemas, exactly as
// spelled and in folded form ("$defs" → "$defs", "dependentSchemas" →
// "dependentschemas").
var subschemaKeywords = func() map[string]subschemaKind {
	m := map[string]subschemaKind{}
	for k, kind := range map[string]subschemaKind{
		"not": kindSchema, "if": kindSchema, "then": kindSchema, "else": kindSchema,
		"additionalItems": kindSchema, "contains": kindSchema, "unevaluatedItems": kindSchema,
		"additionalProperties": kindSchema, "propertyNames": kindSchema,
		"unevaluatedProperties": kindSchema, "contentSchema": kindSchema,
		"$defs": kindMap, "definitions": kindMap, "properties": kindMap,
		"patternProperties": kindMap, "dependentSchemas": kindMap,
		"dependencies": kindMap, // a schema or a string list per name: each is measured as a schema
		"allOf":        kindList, "anyOf": kindList, "oneOf": kindList, "prefixItems": kindList,
		"items": kindItems,
	} {
		m[k] = kind
		m[strings.Map(foldRune, k)] = kind
	}
	return m
}()
