package kit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"
)

// SchemaStruct converts the JSON schema data to T, a framework's schema
// struct in the style of invopop/jsonschema, without losing a keyword.
// T has a field per keyword, named by its json tag: a subschema is a *T,
// a list of them a []*T, a map of them a map type of *T or a pointer to a
// type with a Set(string, *T) method (an ordered map, whose JSON decoder
// makes it ready); any other keyword is a scalar field. The schema is
// read with [ParseSchema] (draft-07 definitions become $defs), keyword
// order kept; decode (nil: json.Unmarshal) decodes the scalars and the
// boolean schemas ([DecodeKeywords]), and values of type any or []any are
// decoded again keeping numbers' text. What T cannot hold (unknown
// keywords, values that do not fit, a draft-07 tuple "items") goes to
// setExtras, which T is to marshal inline; setExtras is not called when
// there is none.
func SchemaStruct[T any](data []byte, decode func([]byte, *T) error, setExtras func(*T, map[string]any)) (*T, error) {
	n, err := ParseSchema(data)
	if err != nil {
		return nil, err
	}
	if decode == nil {
		decode = func(b []byte, v *T) error { return json.Unmarshal(b, v) }
	}
	c := &structSchema[T]{decode: decode, setExtras: setExtras, fields: map[string]int{}}
	rt := reflect.TypeFor[T]()
	for i := range rt.NumField() {
		if name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			c.fields[name] = i
		}
	}
	return c.node(n)
}

type structSchema[T any] struct {
	decode    func([]byte, *T) error
	setExtras func(*T, map[string]any)
	fields    map[string]int // keyword → field index
}

func (c *structSchema[T]) node(n *SchemaNode) (*T, error) {
	s := new(T)
	if n.Bool != nil {
		return s, c.decode([]byte(fmt.Sprint(*n.Bool)), s)
	}
	scalars := map[string]json.RawMessage{}
	raw := map[string]json.RawMessage{}
	for _, k := range n.Keywords {
		switch {
		case k.Name == "items" && k.Sub == nil: // a draft-07 tuple: T's items is one schema
			raw[k.Name] = k.Value
		case k.Sub == nil && k.List == nil && k.Map == nil:
			scalars[k.Name] = k.Value
		}
	}
	// Scalars first, while s has no subschemas: DecodeKeywords marshals s.
	rest, err := DecodeKeywords(s, scalars, c.decode)
	if err != nil {
		return nil, err
	}
	maps.Copy(raw, rest)
	v := reflect.ValueOf(s).Elem()
	extras := map[string]any{}
	for _, k := range n.Keywords {
		i, has := c.fields[k.Name]
		var f reflect.Value
		if has {
			f = v.Field(i)
		}
		switch {
		case k.Sub == nil && k.List == nil && k.Map == nil:
			if !has || f.IsZero() {
				continue
			}
			// any and []any decode numbers as float64, which rounds big
			// integers: decode them again keeping the number's text.
			if t := f.Type(); t.Kind() == reflect.Interface || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Interface {
				if err := decodeNumbers(k.Value, f.Addr().Interface()); err != nil {
					return nil, err
				}
			}
		case k.Sub != nil:
			sub, err := c.node(k.Sub)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k.Name, err)
			}
			c.set(f, has, extras, k.Name, reflect.ValueOf(sub))
		case k.List != nil:
			list := make([]*T, len(k.List))
			for j, sub := range k.List {
				if list[j], err = c.node(sub); err != nil {
					return nil, fmt.Errorf("%s/%d: %w", k.Name, j, err)
				}
			}
			c.set(f, has, extras, k.Name, reflect.ValueOf(list))
		default:
			m, err := c.schemaMap(f, has, k)
			if err != nil {
				return nil, err
			}
			c.set(f, has, extras, k.Name, m)
		}
	}
	for k, r := range raw {
		var x any
		if err := decodeNumbers(r, &x); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		extras[k] = x
	}
	if len(extras) > 0 && c.setExtras != nil {
		c.setExtras(s, extras)
	}
	return s, nil
}

// set stores x in f, or in extras when T has no field of x's type for it.
func (c *structSchema[T]) set(f reflect.Value, has bool, extras map[string]any, name string, x reflect.Value) {
	if has && x.Type().AssignableTo(f.Type()) {
		f.Set(x)
		return
	}
	extras[name] = x.Interface()
}

// schemaMap converts a map keyword to f's type: a map type, or a pointer
// to an ordered map with a Set method; a map[string]*T otherwise.
func (c *structSchema[T]) schemaMap(f reflect.Value, has bool, k SchemaKeyword) (reflect.Value, error) {
	add := func(m reflect.Value) func(name string, sub *T) {
		return func(name string, sub *T) { m.SetMapIndex(reflect.ValueOf(name), reflect.ValueOf(sub)) }
	}
	var m reflect.Value
	var put func(string, *T)
	switch {
	case has && f.Kind() == reflect.Map:
		m = reflect.MakeMap(f.Type())
		put = add(m)
	case has && f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct && f.Type().Implements(reflect.TypeFor[json.Unmarshaler]()):
		m = reflect.New(f.Type().Elem())
		if err := json.Unmarshal([]byte("{}"), m.Interface()); err != nil {
			return m, fmt.Errorf("%s: %w", k.Name, err)
		}
		set := m.MethodByName("Set")
		if !set.IsValid() {
			m = reflect.Value{}
			break
		}
		put = func(name string, sub *T) { set.Call([]reflect.Value{reflect.ValueOf(name), reflect.ValueOf(sub)}) }
	}
	if put == nil {
		m = reflect.ValueOf(map[string]*T{})
		put = add(m)
	}
	for _, p := range k.Map {
		sub, err := c.node(p.Schema)
		if err != nil {
			return m, fmt.Errorf("%s/%s: %w", k.Name, p.Name, err)
		}
		put(p.Name, sub)
	}
	return m, nil
}

func decodeNumbers(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}
