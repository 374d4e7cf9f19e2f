package schema

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// From converts a wire schema, as JSON decoding leaves it
// (map[string]any and friends), into the *jsonschema.Schema that
// jsonschema-go's UnmarshalJSON makes of its encoding b (canonical JSON of
// v; nil for no schema), without decoding b: decoding it (twice per level, for each level of
// nesting) was most of an import's CPU. Keywords are set directly; a
// schema with anything unusual anywhere (a keyword of the wrong type,
// "dependencies", a null where a schema goes, a key that differs from a
// keyword only in case) is decoded by UnmarshalJSON instead.
// TestSchemaFromMatchesUnmarshal and FuzzSchemaFrom hold the two to the
// same result.
func From(v any, b json.RawMessage) (*jsonschema.Schema, error) {
	if b == nil {
		return nil, nil // no schema
	}
	if s, ok := fastSchema(v); ok {
		return s, nil
	}
	var s jsonschema.Schema
	if err := s.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return &s, nil
}

// schemaKeywords are the JSON names UnmarshalJSON decodes into fields;
// other keys go to Extra.
var schemaKeywords = func() map[string]bool {
	m := map[string]bool{"type": true, "items": true, "dependencies": true}
	t := reflect.TypeFor[jsonschema.Schema]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			m[name] = true
		}
	}
	return m
}()

// foldedKeywords are schemaKeywords in lower case: encoding/json matches
// field names case-insensitively.
var foldedKeywords = func() map[string]bool {
	m := map[string]bool{}
	for k := range schemaKeywords {
		m[strings.ToLower(k)] = true
	}
	return m
}()

// fastSchema converts v directly, reporting false when a level needs
// UnmarshalJSON.
func fastSchema(v any) (*jsonschema.Schema, bool) {
	switch v := v.(type) {
	case bool:
		if v {
			return &jsonschema.Schema{}, true
		}
		return &jsonschema.Schema{Not: &jsonschema.Schema{}}, true
	case map[string]any:
		s := &jsonschema.Schema{}
		for k, x := range v {
			if !setKeyword(s, k, x) {
				return nil, false
			}
		}
		return s, true
	}
	return nil, false
}

// setKeyword sets keyword k of s to x, reporting false when the slow path
// must decide.
func setKeyword(s *jsonschema.Schema, k string, x any) bool {
	var ok bool
	switch k {
	case "$id":
		s.ID, ok = x.(string)
	case "$schema":
		s.Schema, ok = x.(string)
	case "$ref":
		s.Ref, ok = x.(string)
	case "$comment":
		s.Comment, ok = x.(string)
	case "$anchor":
		s.Anchor, ok = x.(string)
	case "$dynamicAnchor":
		s.DynamicAnchor, ok = x.(string)
	case "$dynamicRef":
		s.DynamicRef, ok = x.(string)
	case "title":
		s.Title, ok = x.(string)
	case "description":
		s.Description, ok = x.(string)
	case "pattern":
		s.Pattern, ok = x.(string)
	case "format":
		s.Format, ok = x.(string)
	case "contentEncoding":
		s.ContentEncoding, ok = x.(string)
	case "contentMediaType":
		s.ContentMediaType, ok = x.(string)
	case "deprecated":
		s.Deprecated, ok = x.(bool)
	case "readOnly":
		s.ReadOnly, ok = x.(bool)
	case "writeOnly":
		s.WriteOnly, ok = x.(bool)
	case "uniqueItems":
		s.UniqueItems, ok = x.(bool)
	case "type":
		switch t := x.(type) {
		case string:
			s.Type, ok = t, true
		case []any:
			s.Types, ok = stringList(t)
		}
	case "required":
		if l, isList := x.([]any); isList {
			s.Required, ok = stringList(l)
		}
	case "enum":
		if l, isList := x.([]any); isList {
			s.Enum, ok = copyJSON(l).([]any), true
		}
	case "examples":
		if l, isList := x.([]any); isList {
			s.Examples, ok = copyJSON(l).([]any), true
		}
	case "const":
		c := copyJSON(x)
		s.Const, ok = &c, true
	case "default":
		b, err := json.Marshal(x)
		s.Default, ok = b, err == nil
	case "multipleOf":
		s.MultipleOf, ok = number(x)
	case "minimum":
		s.Minimum, ok = number(x)
	case "maximum":
		s.Maximum, ok = number(x)
	case "exclusiveMinimum":
		s.ExclusiveMinimum, ok = number(x)
	case "exclusiveMaximum":
		s.ExclusiveMaximum, ok = number(x)
	case "minLength":
		s.MinLength, ok = integer(x)
	case "maxLength":
		s.MaxLength, ok = integer(x)
	case "minItems":
		s.MinItems, ok = integer(x)
	case "maxItems":
		s.MaxItems, ok = integer(x)
	case "minProperties":
		s.MinProperties, ok = integer(x)
	case "maxProperties":
		s.MaxProperties, ok = integer(x)
	case "minContains":
		s.MinContains, ok = integer(x)
	case "maxContains":
		s.MaxContains, ok = integer(x)
	case "$defs":
		s.Defs, ok = schemaMap(x)
	case "definitions":
		s.Definitions, ok = schemaMap(x)
	case "properties":
		s.Properties, ok = schemaMap(x)
	case "patternProperties":
		s.PatternProperties, ok = schemaMap(x)
	case "dependentSchemas":
		s.DependentSchemas, ok = schemaMap(x)
	case "allOf":
		s.AllOf, ok = schemaList(x)
	case "anyOf":
		s.AnyOf, ok = schemaList(x)
	case "oneOf":
		s.OneOf, ok = schemaList(x)
	case "prefixItems":
		s.PrefixItems, ok = schemaList(x)
	case "items":
		if _, isList := x.([]any); isList {
			s.ItemsArray, ok = schemaList(x)
		} else {
			s.Items, ok = schemaValue(x)
		}
	case "not":
		s.Not, ok = schemaValue(x)
	case "if":
		s.If, ok = schemaValue(x)
	case "then":
		s.Then, ok = schemaValue(x)
	case "else":
		s.Else, ok = schemaValue(x)
	case "additionalItems":
		s.AdditionalItems, ok = schemaValue(x)
	case "contains":
		s.Contains, ok = schemaValue(x)
	case "unevaluatedItems":
		s.UnevaluatedItems, ok = schemaValue(x)
	case "additionalProperties":
		s.AdditionalProperties, ok = schemaValue(x)
	case "propertyNames":
		s.PropertyNames, ok = schemaValue(x)
	case "unevaluatedProperties":
		s.UnevaluatedProperties, ok = schemaValue(x)
	case "contentSchema":
		s.ContentSchema, ok = schemaValue(x)
	case "$vocabulary":
		if m, isMap := x.(map[string]any); isMap {
			s.Vocabulary, ok = make(map[string]bool, len(m)), true
			for name, b := range m {
				if s.Vocabulary[name], ok = b.(bool); !ok {
					break
				}
			}
		}
	case "dependentRequired":
		if m, isMap := x.(map[string]any); isMap {
			s.DependentRequired, ok = make(map[string][]string, len(m)), true
			for name, l := range m {
				list, isList := l.([]any)
				if !isList {
					return false
				}
				if s.DependentRequired[name], ok = stringList(list); !ok {
					break
				}
			}
		}
	default:
		if schemaKeywords[k] || !isASCII(k) || foldedKeywords[strings.ToLower(k)] {
			return false // "dependencies", or a key encoding/json would fold onto a keyword
		}
		if s.Extra == nil {
			s.Extra = map[string]any{}
		}
		s.Extra[k], ok = copyJSON(x), true
	}
	return ok
}

func schemaValue(x any) (*jsonschema.Schema, bool) {
	if x == nil {
		return nil, false
	}
	return fastSchema(x)
}

func schemaMap(x any) (map[string]*jsonschema.Schema, bool) {
	m, ok := x.(map[string]any)
	if !ok {
		return nil, false
	}
	out := make(map[string]*jsonschema.Schema, len(m))
	for k, v := range m {
		if out[k], ok = schemaValue(v); !ok {
			return nil, false
		}
	}
	return out, true
}

func schemaList(x any) ([]*jsonschema.Schema, bool) {
	l, ok := x.([]any)
	if !ok {
		return nil, false
	}
	out := make([]*jsonschema.Schema, len(l))
	for i, v := range l {
		if out[i], ok = schemaValue(v); !ok {
			return nil, false
		}
	}
	return out, true
}

func stringList(l []any) ([]string, bool) {
	out := make([]string, len(l))
	for i, v := range l {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

func number(x any) (*float64, bool) {
	f, ok := x.(float64)
	if !ok {
		return nil, false
	}
	return &f, true
}

// integer is a count keyword (minLength, ...): jsonschema-go takes an
// integral number in the int32 range.
func integer(x any) (*int, bool) {
	f, ok := x.(float64)
	if !ok || f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return nil, false
	}
	i := int(f)
	return &i, true
}

// copyJSON deep-copies a decoded JSON value: the wire value stays with the
// go-sdk session (which may cache it), the copy with the spec.
func copyJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = copyJSON(x)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = copyJSON(x)
		}
		return l
	}
	return v
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
