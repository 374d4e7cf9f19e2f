package typed

import (
	"reflect"
	"strings"
)

// A plain type is one whose JSON encoding and decoding encoding/json and
// go-sdk derive from its Go shape alone, and whose inferred schema says
// exactly that shape: booleans, strings, integers (not uintptr), floats,
// and pointers, slices (not []byte), string-keyed maps and structs of
// plain types, with no custom (un)marshalers, no interfaces, no embedded
// fields, no ",string" options and no two fields with one JSON name. For a
// plain type the executor can skip work the type system already does (see
// plainField for the struct rules).
func IsPlain(t reflect.Type) bool {
	return plainType(t, map[reflect.Type]bool{})
}

func plainType(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false // recursive: inference refuses it anyway
	}
	if ImplementsMarshaler(t) || implementsUnmarshaler(t) || t == numberType {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Pointer:
		// One level: **T decodes through two allocations and its schema
		// is that of *T.
		return t.Elem().Kind() != reflect.Pointer && plainType(t.Elem(), seen)
	case reflect.Slice:
		return t.Elem().Kind() != reflect.Uint8 && plainType(t.Elem(), seen)
	case reflect.Map:
		return t.Key().Kind() == reflect.String && !ImplementsMarshaler(t.Key()) && !implementsUnmarshaler(t.Key()) &&
			plainType(t.Elem(), seen)
	case reflect.Struct:
		seen[t] = true
		defer delete(seen, t)
		_, ok := plainFields(t, seen)
		return ok
	}
	return false
}

// plainField is one field of a plain struct as JSON sees it.
type plainField struct {
	name     string
	index    int
	typ      reflect.Type
	required bool // neither omitempty nor omitzero: inference requires it
}

// plainFields lists a plain struct's JSON fields, or reports false when
// the struct is not plain.
func plainFields(t reflect.Type, seen map[reflect.Type]bool) ([]plainField, bool) {
	var fs []plainField
	names := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil, false
		}
		if !f.IsExported() {
			continue
		}
		tag, hasTag := f.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !hasTag || name == "" {
			name = f.Name
		}
		if !simpleJSONName(name) || names[name] {
			return nil, false
		}
		required := true
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "string":
				return nil, false
			case "omitempty", "omitzero":
				required = false
			}
		}
		if seen != nil && !plainType(f.Type, seen) {
			return nil, false
		}
		names[name] = true
		fs = append(fs, plainField{name: name, index: i, typ: f.Type, required: required})
	}
	return fs, true
}

// simpleJSONName reports a tag name that encoding/json, jsonschema-go and
// go-sdk all take as is (encoding/json ignores some odd ones).
func simpleJSONName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !validNameByte(c) && c != '.' && c != '$' && c != '@' && c != ' ' {
			return false
		}
	}
	return true
}

func implementsUnmarshaler(t reflect.Type) bool {
	return t.Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType) ||
		t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType)
}

// A Field is one JSON field of a plain struct.
type Field struct {
	Name     string
	Type     reflect.Type
	Required bool // neither omitempty nor omitzero: inference requires it
}

// Fields lists the JSON fields of a plain struct (nil when it is not
// plain), as the strict decoder and schema inference see them.
func Fields(t reflect.Type) []Field {
	fs, _ := plainFields(t, nil)
	var out []Field
	for _, f := range fs {
		out = append(out, Field{Name: f.name, Type: f.typ, Required: f.required})
	}
	return out
}
