package argcheck

import (
	"math"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// Flat is a fast check of the commonest tool schema: an object whose
// properties are strings, integers, numbers or booleans, some required,
// perhaps no others allowed. jsonschema-go validates such a schema with a
// reflective walk that formats every schema it enters (tens of
// allocations per call); Flat answers from a table. It only ever says
// "valid": an instance it does not call valid is validated by
// jsonschema-go as before, so errors and their messages are unchanged.
type Flat struct {
	props    map[string]string // property → "string", "integer", "number", "boolean"
	required []string
	closed   bool // additionalProperties: false
}

// NewFlat returns the Flat check of s, or nil when s is anything more
// than such an object (any other keyword that validates, a $ref, a
// nested schema, a default).
func NewFlat(s *jsonschema.Schema) *Flat {
	if s == nil || s.Type != "object" {
		return nil
	}
	f := &Flat{props: make(map[string]string, len(s.Properties)), required: s.Required}
	switch ap := s.AdditionalProperties; {
	case ap == nil:
	case isFalse(ap):
		f.closed = true
	case onlyAnnotations(ap, false): // true: any other property is allowed
	default:
		return nil
	}
	for name, p := range s.Properties {
		if p == nil {
			return nil
		}
		switch p.Type {
		case "string", "integer", "number", "boolean":
		default:
			return nil
		}
		if !onlyAnnotations(p, true) {
			return nil
		}
		f.props[name] = p.Type
	}
	top := *s
	top.Type, top.Properties, top.Required, top.AdditionalProperties = "", nil, nil, nil
	top.Schema = "" // the dialect: both of jsonschema-go's agree on these keywords
	if !onlyAnnotations(&top, false) {
		return nil
	}
	return f
}

// isFalse reports whether s is jsonschema-go's false schema, {"not": {}}.
func isFalse(s *jsonschema.Schema) bool {
	if s.Not == nil || !onlyAnnotations(s.Not, false) {
		return false
	}
	t := *s
	t.Not = nil
	return onlyAnnotations(&t, false)
}

// Validate is rs.Validate(v) (rs resolved from the schema of f), skipped
// when f calls v valid; a nil f always validates with rs.
func (f *Flat) Validate(rs *jsonschema.Resolved, v any) error {
	if f.Valid(v) {
		return nil
	}
	return rs.Validate(v)
}

// onlyAnnotations reports whether s holds nothing that validates: only
// title, description, $comment, examples, deprecated, readOnly,
// writeOnly, unknown keywords (Extra) and the property order, and, with
// typed, its type.
func onlyAnnotations(s *jsonschema.Schema, typed bool) bool {
	t := *s
	t.Title, t.Description, t.Comment, t.Examples = "", "", "", nil
	t.Deprecated, t.ReadOnly, t.WriteOnly, t.Extra, t.PropertyOrder = false, false, false, nil, nil
	if typed {
		t.Type = ""
	}
	return reflect.DeepEqual(t, jsonschema.Schema{})
}

// Valid reports whether v (a generic JSON value, as encoding/json decodes
// into any) certainly satisfies the schema; false means "validate it
// fully", not "invalid". A nil *Flat calls nothing valid.
func (f *Flat) Valid(v any) bool {
	if f == nil {
		return false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, r := range f.required {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	for k, pv := range m {
		t, ok := f.props[k]
		if !ok {
			if f.closed {
				return false
			}
			continue
		}
		switch t {
		case "string":
			if _, ok := pv.(string); !ok {
				return false
			}
		case "boolean":
			if _, ok := pv.(bool); !ok {
				return false
			}
		case "number":
			if x, ok := pv.(float64); !ok || math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		case "integer":
			x, ok := pv.(float64)
			if !ok {
				return false
			}
			if _, frac := math.Modf(x); frac != 0 {
				return false
			}
		}
	}
	return true
}
