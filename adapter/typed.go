package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// NewTool returns a spec for a typed Go function. Both schemas are inferred
// once, here, with jsonschema-go: the input schema from In (which must be a
// struct or a map with string keys) and the output schema from Out.
//
// Output follows MCP's structured-output convention:
//   - an object-shaped Out (a struct, a pointer to one, a map with string
//     keys) is the structured content as is;
//   - any other Out (string, numbers, bool, []byte, slices, arrays, maps
//     with non-string keys, interfaces) is wrapped as {"result": value},
//     and the output schema is wrapped to match, element types of lists as
//     $defs references;
//   - the text channel carries the JSON text of the value (unwrapped), one
//     text block per element for lists.
//
// An Out that yields no usable schema (a struct with no exported fields,
// channels, functions) is an error unless opts.Output is [OutputText].
// Arguments that do not decode into In are a [KindArgsInvalid] error; an
// error returned by fn is a [KindToolError] unless it is an [*Error].
func NewTool[In, Out any](name, description string, fn func(context.Context, In) (Out, error), opts *ToolOptions) (*Spec, error) {
	if opts == nil {
		opts = &ToolOptions{}
	}
	if fn == nil {
		return nil, fmt.Errorf("adapter: tool %q: nil function", name)
	}
	s := newSpec(name, description, opts)
	in, err := inputSchemaFor(reflect.TypeFor[In](), opts)
	if err != nil {
		return nil, fmt.Errorf("adapter: tool %q: %w", name, err)
	}
	s.InputSchema = in
	enc, err := newEncoder[Out](opts)
	if err != nil {
		return nil, fmt.Errorf("adapter: tool %q: output: %w", name, err)
	}
	s.OutputSchema = enc.schema
	s.Handler = func(ctx context.Context, args json.RawMessage) (*Result, error) {
		var in In
		if len(args) > 0 {
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, &Error{Kind: KindArgsInvalid, Message: "arguments do not decode: " + err.Error(), Err: err}
			}
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		return enc.encode(out)
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return s, nil
}

// MustTool is like [NewTool] but panics on error. Use it at registration
// time only.
func MustTool[In, Out any](name, description string, fn func(context.Context, In) (Out, error), opts *ToolOptions) *Spec {
	s, err := NewTool(name, description, fn, opts)
	if err != nil {
		panic(err)
	}
	return s
}

func inputSchemaFor(t reflect.Type, opts *ToolOptions) (*jsonschema.Schema, error) {
	if opts.InputSchema != nil {
		return opts.InputSchema, nil
	}
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if !(base.Kind() == reflect.Struct || base.Kind() == reflect.Map && base.Key().Kind() == reflect.String) {
		return nil, fmt.Errorf("input type %v is not a struct or a map with string keys; tool arguments are always a JSON object", t)
	}
	s, err := jsonschema.ForType(base, opts.For)
	if err != nil {
		return nil, fmt.Errorf("input schema of %v: %w", t, err)
	}
	return s, nil
}

// shape is how a Go output type maps to structured content.
type shape int

const (
	shapeObject  shape = iota // the value is the structured content
	shapeWrapped              // {"result": value}
	shapeList                 // {"result": [...]}, one text block per element
)

type encoder[Out any] struct {
	mode   OutputMode
	shape  shape
	schema *jsonschema.Schema
	isStr  bool // Out is a string: OutputText shows it unquoted
}

func newEncoder[Out any](opts *ToolOptions) (*encoder[Out], error) {
	t := reflect.TypeFor[Out]()
	e := &encoder[Out]{mode: opts.Output, shape: shapeOf(t), isStr: t.Kind() == reflect.String}
	if e.mode == OutputText {
		return e, nil
	}
	if opts.OutputSchema != nil {
		e.schema = opts.OutputSchema
		return e, nil
	}
	if t.Kind() == reflect.Interface {
		if e.mode == OutputRequired {
			return nil, fmt.Errorf("structured output is required but %v yields no schema", t)
		}
		// Structured, but no contract to validate against.
		return e, nil
	}
	var err error
	if e.shape == shapeObject {
		e.schema, err = objectSchemaFor(t, opts.For)
	} else {
		e.schema, err = wrappedSchemaFor(t, opts.For)
	}
	if err != nil {
		return nil, fmt.Errorf("%w (use OutputText for a text-only tool)", err)
	}
	return e, nil
}

func shapeOf(t reflect.Type) shape {
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	switch {
	case base.Kind() == reflect.Struct && !implementsMarshaler(t):
		return shapeObject
	case base.Kind() == reflect.Map && base.Key().Kind() == reflect.String:
		return shapeObject
	case base.Kind() == reflect.Slice && base.Elem().Kind() != reflect.Uint8, base.Kind() == reflect.Array:
		return shapeList
	}
	return shapeWrapped
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[interface{ MarshalText() ([]byte, error) }]()
)

// implementsMarshaler reports whether t marshals itself (time.Time and the
// like), so that its struct shape says nothing about its JSON shape.
func implementsMarshaler(t reflect.Type) bool {
	return t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonMarshalerType) ||
		t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)
}

func objectSchemaFor(t reflect.Type, opts *jsonschema.ForOptions) (*jsonschema.Schema, error) {
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	s, err := jsonschema.ForType(base, opts)
	if err != nil {
		return nil, fmt.Errorf("no schema for %v: %w", t, err)
	}
	if base.Kind() == reflect.Struct && len(s.Properties) == 0 {
		return nil, fmt.Errorf("%v has no exported fields, so its JSON is always {}", t)
	}
	return s, nil
}

// wrappedSchemaFor returns {"type":"object","properties":{"result":S},"required":["result"]}
// for a non-object type; named struct element types of lists and maps move
// to $defs and are referenced from there.
func wrappedSchemaFor(t reflect.Type, opts *jsonschema.ForOptions) (*jsonschema.Schema, error) {
	inner, defs, err := valueSchemaFor(t, opts)
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

func valueSchemaFor(t reflect.Type, opts *jsonschema.ForOptions) (*jsonschema.Schema, map[string]*jsonschema.Schema, error) {
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	var elem reflect.Type
	switch base.Kind() {
	case reflect.Slice, reflect.Array:
		if base.Elem().Kind() != reflect.Uint8 || base.Kind() == reflect.Array {
			elem = base.Elem()
		}
	case reflect.Map:
		elem = base.Elem()
	}
	if base.Kind() == reflect.Map && base.Key().Kind() != reflect.String {
		// encoding/json writes integer keys as strings: an object whose
		// property names are integers.
		if !isIntegerKind(base.Key().Kind()) && !base.Key().Implements(textMarshalerType) {
			return nil, nil, fmt.Errorf("no schema for %v: map keys of kind %v do not marshal to JSON", t, base.Key().Kind())
		}
		es, defs, err := elemSchemaFor(elem, opts)
		if err != nil {
			return nil, nil, err
		}
		s := &jsonschema.Schema{Type: "object", AdditionalProperties: es}
		if isIntegerKind(base.Key().Kind()) {
			s.PropertyNames = &jsonschema.Schema{Type: "string", Pattern: `^-?[0-9]+$`}
		}
		return s, defs, nil
	}
	if elem != nil && (base.Kind() != reflect.Map) {
		es, defs, err := elemSchemaFor(elem, opts)
		if err != nil {
			return nil, nil, err
		}
		s := &jsonschema.Schema{Type: "array", Items: es}
		if base.Kind() == reflect.Array {
			s.MinItems = jsonschema.Ptr(base.Len())
			s.MaxItems = jsonschema.Ptr(base.Len())
		}
		return s, defs, nil
	}
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
	s, err := jsonschema.ForType(t, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("no schema for element type %v: %w", t, err)
	}
	if base.Kind() != reflect.Struct || base.Name() == "" || implementsMarshaler(base) {
		return s, nil, nil
	}
	if len(s.Properties) == 0 && slices.Contains([]string{s.Type}, "object") {
		return nil, nil, fmt.Errorf("element type %v has no exported fields, so its JSON is always {}", t)
	}
	name := base.Name()
	def, err := jsonschema.ForType(base, opts)
	if err != nil {
		return nil, nil, err
	}
	ref := &jsonschema.Schema{Ref: "#/$defs/" + name}
	if t.Kind() == reflect.Pointer {
		ref = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "null"}, ref}}
	}
	return ref, map[string]*jsonschema.Schema{name: def}, nil
}

func isIntegerKind(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// encode turns a handler's value into a two-channel result. The JSON
// encoding is done once and kept for output validation.
func (e *encoder[Out]) encode(out Out) (*Result, error) {
	if e.mode == OutputText {
		if e.isStr {
			return TextResult(any(out).(string)), nil
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, &Error{Kind: KindToolError, Message: "result does not encode as JSON: " + err.Error(), Err: err}
		}
		return TextResult(string(b)), nil
	}
	switch e.shape {
	case shapeObject:
		if rv := reflect.ValueOf(out); rv.Kind() == reflect.Map && rv.IsNil() {
			return &Result{Content: []Content{&TextContent{Text: "{}"}}, Structured: out, structJSON: []byte("{}")}, nil
		}
		if isNilValue(out) {
			return nil, &Error{Kind: KindToolError, Message: fmt.Sprintf("the tool returned a nil %T", out)}
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, &Error{Kind: KindToolError, Message: "result does not encode as JSON: " + err.Error(), Err: err}
		}
		return &Result{Content: []Content{&TextContent{Text: string(b)}}, Structured: out, structJSON: b}, nil
	case shapeList:
		return encodeList(out)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, &Error{Kind: KindToolError, Message: "result does not encode as JSON: " + err.Error(), Err: err}
	}
	return &Result{
		Content:    []Content{&TextContent{Text: string(b)}},
		Structured: map[string]any{"result": out},
		structJSON: wrapJSON(b),
	}, nil
}

func encodeList(out any) (*Result, error) {
	v := reflect.ValueOf(out)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.Pointer || v.Kind() == reflect.Slice && v.IsNil() {
		// A nil list is an empty list: models and programs get [] rather than null.
		v = reflect.MakeSlice(reflect.SliceOf(v.Type().Elem()), 0, 0)
		if vt := reflect.TypeOf(out); vt.Kind() == reflect.Pointer {
			v = reflect.MakeSlice(reflect.SliceOf(vt.Elem().Elem()), 0, 0)
		}
		out = v.Interface()
	}
	n := v.Len()
	content := make([]Content, 0, max(n, 1))
	buf := make([]byte, 0, 64)
	buf = append(buf, `{"result":[`...)
	for i := range n {
		b, err := json.Marshal(v.Index(i).Interface())
		if err != nil {
			return nil, &Error{Kind: KindToolError, Message: "result does not encode as JSON: " + err.Error(), Err: err}
		}
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, b...)
		content = append(content, &TextContent{Text: string(b)})
	}
	buf = append(buf, "]}"...)
	if n == 0 {
		content = append(content, &TextContent{Text: "[]"})
	}
	return &Result{Content: content, Structured: map[string]any{"result": out}, structJSON: buf}, nil
}

func wrapJSON(b []byte) []byte {
	w := make([]byte, 0, len(b)+11)
	w = append(w, `{"result":`...)
	w = append(w, b...)
	return append(w, '}')
}

func isNilValue(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Interface, reflect.Slice:
		return rv.IsNil()
	}
	return false
}
