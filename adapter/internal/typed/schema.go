package typed

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	numberType        = reflect.TypeFor[json.Number]()

	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// ImplementsMarshaler reports whether t marshals itself (time.Time and the
// like), so that its Go shape says nothing about its JSON shape.
func ImplementsMarshaler(t reflect.Type) bool {
	return t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonMarshalerType) ||
		t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)
}

// IsByteSlice reports whether encoding/json writes t as a base64 string.
func IsByteSlice(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 &&
		!t.Elem().Implements(jsonMarshalerType) && !t.Elem().Implements(textMarshalerType) &&
		!reflect.PointerTo(t.Elem()).Implements(jsonMarshalerType) && !reflect.PointerTo(t.Elem()).Implements(textMarshalerType)
}

// SchemaOptions returns user's inference options with schemas for the types
// reachable from roots whose JSON differs from what jsonschema-go infers
// from their Go shape: byte slices (a base64 string, not an array of
// integers), encoding.TextMarshaler types (a string), json.RawMessage (any
// JSON) and maps below the roots (null when nil, and integer keys, which
// encoding/json writes as strings but jsonschema-go rejects). Types the user
// maps are left alone. Without this, such a type would fail every call's
// output validation instead of describing its JSON.
func SchemaOptions(user *jsonschema.ForOptions, roots ...reflect.Type) *jsonschema.ForOptions {
	o := &jsonschema.ForOptions{}
	if user != nil {
		*o = *user
	}
	ts := make(map[reflect.Type]*jsonschema.Schema, len(o.TypeSchemas))
	for k, v := range o.TypeSchemas {
		ts[k] = v
	}
	o.TypeSchemas = ts
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, root bool)
	walk = func(t reflect.Type, root bool) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if seen[t] {
			return
		}
		seen[t] = true
		if _, ok := ts[t]; ok {
			return
		}
		switch {
		case t == rawMessageType:
			ts[t] = &jsonschema.Schema{}
			return
		case IsByteSlice(t) && !ImplementsMarshaler(t):
			ts[t] = &jsonschema.Schema{Types: []string{"null", "string"}, ContentEncoding: "base64"}
			return
		case t.Implements(textMarshalerType) && !t.Implements(jsonMarshalerType) && !reflect.PointerTo(t).Implements(jsonMarshalerType):
			ts[t] = &jsonschema.Schema{Type: "string"}
			return
		}
		switch t.Kind() {
		case reflect.Struct:
			for _, f := range reflect.VisibleFields(t) {
				if f.IsExported() || f.Anonymous {
					walk(f.Type, false)
				}
			}
		case reflect.Slice, reflect.Array:
			walk(t.Elem(), false)
		case reflect.Map:
			walk(t.Elem(), false)
			if root || ImplementsMarshaler(t) {
				return // the root's shape is decided by the output rules
			}
			k := t.Key()
			intKey := IsIntegerKind(k.Kind()) && !k.Implements(textMarshalerType)
			if k.Kind() != reflect.String && !intKey && !k.Implements(textMarshalerType) {
				return // let inference report the bad key
			}
			es, err := jsonschema.ForType(t.Elem(), o)
			if err != nil {
				return // likewise for the element
			}
			ms := &jsonschema.Schema{Types: []string{"null", "object"}, AdditionalProperties: es}
			if intKey {
				ms.PropertyNames = &jsonschema.Schema{Type: "string", Pattern: `^-?[0-9]+$`}
			}
			ts[t] = ms
		}
	}
	for _, t := range roots {
		walk(t, true)
	}
	return o
}

func ObjectSchemaFor(t reflect.Type, opts *jsonschema.ForOptions) (*jsonschema.Schema, error) {
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	s, err := jsonschema.ForType(base, SchemaOptions(opts, base))
	if err != nil {
		return nil, fmt.Errorf("no schema for %v: %w", t, err)
	}
	if base.Kind() == reflect.Struct && len(s.Properties) == 0 {
		return nil, fmt.Errorf("%v has no exported fields, so its JSON is always {}", t)
	}
	return s, nil
}

// WrappedSchemaFor returns {"type":"object","properties":{"result":S},"required":["result"]}
// for a non-object type; named struct element types of lists and maps move
// to $defs and are referenced from there.
func WrappedSchemaFor(t reflect.Type, opts *jsonschema.ForOptions) (*jsonschema.Schema, error) {
	inner, defs, err := ValueSchemaFor(t, SchemaOptions(opts, t))
	if err != nil {
		return nil, err
	}
	return &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{"result": inner},
		Required:             []string{"result"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		Defs:                 defs,
	}, nil
}

// OptionalSchemaFor returns the wrapped schema of a pointer type: the
// pointed-to value or null ({"anyOf": [{"type": "null"}, {"$ref": ...}]}
// for a named struct, {"type": ["null", ...]} otherwise).
func OptionalSchemaFor(t reflect.Type, opts *jsonschema.ForOptions) (*jsonschema.Schema, error) {
	o := SchemaOptions(opts, t)
	inner, defs, err := elemSchemaFor(t, o)
	if err != nil {
		return nil, err
	}
	if inner.Ref == "" && len(inner.AnyOf) == 0 && inner.Type != "" && inner.Type != "null" {
		// A mapped type's schema may not admit null: say it does.
		inner = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "null"}, inner}}
	}
	return &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{"result": inner},
		Required:             []string{"result"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		Defs:                 defs,
	}, nil
}

func ValueSchemaFor(t reflect.Type, opts *jsonschema.ForOptions) (*jsonschema.Schema, map[string]*jsonschema.Schema, error) {
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if _, ok := opts.TypeSchemas[base]; ok || ImplementsMarshaler(base) {
		return forTypeValue(t, opts)
	}
	switch {
	case base.Kind() == reflect.Map:
		// encoding/json writes integer keys as strings: an object whose
		// property names are integers.
		if !IsIntegerKind(base.Key().Kind()) && !base.Key().Implements(textMarshalerType) {
			return nil, nil, fmt.Errorf("no schema for %v: map keys of kind %v do not marshal to JSON", t, base.Key().Kind())
		}
		es, defs, err := elemSchemaFor(base.Elem(), opts)
		if err != nil {
			return nil, nil, err
		}
		s := &jsonschema.Schema{Type: "object", AdditionalProperties: es}
		if IsIntegerKind(base.Key().Kind()) && !base.Key().Implements(textMarshalerType) {
			s.PropertyNames = &jsonschema.Schema{Type: "string", Pattern: `^-?[0-9]+$`}
		}
		return s, defs, nil
	case base.Kind() == reflect.Slice || base.Kind() == reflect.Array:
		es, defs, err := elemSchemaFor(base.Elem(), opts)
		if err != nil {
			return nil, nil, err
		}
		// A nil slice is encoded as [] (see encodeList), so no null here.
		s := &jsonschema.Schema{Type: "array", Items: es}
		if base.Kind() == reflect.Array {
			s.MinItems = jsonschema.Ptr(base.Len())
			s.MaxItems = jsonschema.Ptr(base.Len())
		}
		return s, defs, nil
	}
	return forTypeValue(t, opts)
}

func forTypeValue(t reflect.Type, opts *jsonschema.ForOptions) (*jsonschema.Schema, map[string]*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("no schema for %v: %w", t, err)
	}
	return s, nil, nil
}

// elemSchemaFor returns the schema of a list or map element: a $ref into
// $defs for named struct types, the schema itself otherwise.
func elemSchemaFor(t reflect.Type, opts *jsonschema.ForOptions) (*jsonschema.Schema, map[string]*jsonschema.Schema, error) {
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	_, mapped := opts.TypeSchemas[base]
	if base.Kind() != reflect.Struct || base.Name() == "" || mapped || ImplementsMarshaler(base) {
		s, err := jsonschema.ForType(t, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("no schema for element type %v: %w", t, err)
		}
		if base.Kind() == reflect.Struct && !mapped && !ImplementsMarshaler(base) && len(s.Properties) == 0 {
			return nil, nil, fmt.Errorf("element type %v has no exported fields, so its JSON is always {}", t)
		}
		return s, nil, nil
	}
	def, err := jsonschema.ForType(base, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("no schema for element type %v: %w", t, err)
	}
	if len(def.Properties) == 0 {
		return nil, nil, fmt.Errorf("element type %v has no exported fields, so its JSON is always {}", t)
	}
	name := defName(base.Name())
	ref := &jsonschema.Schema{Ref: "#/$defs/" + name}
	if t.Kind() == reflect.Pointer {
		ref = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "null"}, ref}}
	}
	return ref, map[string]*jsonschema.Schema{name: def}, nil
}

// defName makes a Go type name (Pair[int], say) a safe $defs key and
// JSON-pointer fragment.
func defName(n string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && (validNameByte(byte(r)) || r == '.') {
			return r
		}
		return '_'
	}, n)
}

func IsIntegerKind(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// validNameByte is adapter's tool-name byte rule, which $defs keys follow.
func validNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}
