package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter/internal/argcheck"
	"github.com/agentadapter/agentadapter/adapter/internal/rendertext"
	"github.com/agentadapter/agentadapter/adapter/internal/typed"
)

// NewTool returns a spec for a typed Go function. Both schemas are inferred
// once, here, with jsonschema-go: the input schema from In (which must be a
// struct or a map with string keys) and the output schema from Out.
//
// Output follows the MCP Python SDK's structured-output rules (see "Output
// rules" in the package documentation): an object-shaped Out (a struct, a
// map with string keys) is the structured content as is; any other Out is
// wrapped as {"result": value}, a pointer as an optional value (nil is
// {"result": null}); the text channel carries a string as itself, a list as
// one block per element, and anything else as its JSON.
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
	if opts.InputSchema == nil && opts.For == nil {
		s.strict = typed.NewStrict(reflect.TypeFor[In](), in)
	}
	enc, err := newEncoder[Out](opts)
	if err != nil {
		return nil, fmt.Errorf("adapter: tool %q: output: %w", name, err)
	}
	s.OutputSchema = enc.schema
	// The output of a plain type encodes to what its inferred schema says
	// by construction (TestPlainOutputAlwaysValid): its results carry that
	// schema as proof, and the executor does not validate them again.
	var validFor *jsonschema.Schema
	if opts.OutputSchema == nil && opts.For == nil && enc.schema != nil && !enc.dynamic && typed.IsPlain(reflect.TypeFor[Out]()) {
		validFor = enc.schema
	}
	s.Handler = func(ctx context.Context, args json.RawMessage) (*Result, error) {
		var in In
		if c := ToolCallFromContext(ctx); c != nil && c.decoded != nil && sameBytes(c.decodedFrom, args) {
			in = *c.decoded.(*In) // decoded when the arguments were validated
		} else if len(args) > 0 {
			if err := typed.DecodeArgs(args, &in); err != nil {
				return nil, &Error{Kind: KindArgsInvalid, Message: "arguments do not decode: " + argcheck.JSONErrorText(err), Err: err}
			}
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		r, err := enc.encode(out)
		if r != nil {
			r.validFor = validFor
		}
		return r, err
	}
	if err := s.Compile(); err != nil {
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
	if base.Kind() == reflect.Interface && base.NumMethod() == 0 {
		// In = any: any object, decoded as map[string]any (as go-sdk does).
		return &jsonschema.Schema{Type: "object"}, nil
	}
	if !(base.Kind() == reflect.Struct || base.Kind() == reflect.Map && base.Key().Kind() == reflect.String) {
		return nil, fmt.Errorf("input type %v is not a struct or a map with string keys; tool arguments are always a JSON object", t)
	}
	s, err := jsonschema.ForType(base, typed.SchemaOptions(opts.For, base))
	if err != nil {
		return nil, fmt.Errorf("input schema of %v: %w", t, err)
	}
	return s, nil
}

// shape is how a Go output type maps to structured content.
type shape int

const (
	shapeObject   shape = iota // the value is the structured content
	shapeWrapped               // {"result": value}
	shapeList                  // {"result": [...]}, one text block per element
	shapeOptional              // a pointer: {"result": value or null}
)

type encoder[Out any] struct {
	mode    OutputMode
	shape   shape
	dynamic bool // Out is an interface: the shape is the dynamic value's
	schema  *jsonschema.Schema
	isStr   bool // Out is a string: OutputText shows it unquoted
}

func newEncoder[Out any](opts *ToolOptions) (*encoder[Out], error) {
	t := reflect.TypeFor[Out]()
	e := &encoder[Out]{mode: opts.Output, shape: shapeOf(t), isStr: t.Kind() == reflect.String, dynamic: t.Kind() == reflect.Interface}
	if e.mode == OutputText {
		return e, nil
	}
	if opts.OutputSchema != nil {
		e.schema = opts.OutputSchema
		return e, nil
	}
	if e.dynamic {
		if e.mode == OutputRequired {
			return nil, fmt.Errorf("structured output is required but %v yields no schema (give ToolOptions.OutputSchema or a concrete type)", t)
		}
		// Structured, but no contract to validate against.
		return e, nil
	}
	var err error
	switch e.shape {
	case shapeObject:
		e.schema, err = typed.ObjectSchemaFor(t, opts.For)
	case shapeOptional:
		e.schema, err = typed.OptionalSchemaFor(t, opts.For)
	default:
		e.schema, err = typed.WrappedSchemaFor(t, opts.For)
	}
	if err != nil {
		return nil, fmt.Errorf("%w (use OutputText for a text-only tool)", err)
	}
	return e, nil
}

func shapeOf(t reflect.Type) shape {
	if t == nil {
		return shapeWrapped
	}
	if t.Kind() == reflect.Pointer {
		// Go's optional: nil is a valid result, so the value is wrapped
		// and the schema admits null (as Optional[T] in the Python SDK).
		return shapeOptional
	}
	base := t
	switch {
	case base.Kind() == reflect.Struct && !typed.ImplementsMarshaler(base):
		return shapeObject
	case base.Kind() == reflect.Map && base.Key().Kind() == reflect.String && !typed.ImplementsMarshaler(base):
		return shapeObject
	case typed.IsByteSlice(base):
		return shapeWrapped
	case (base.Kind() == reflect.Slice || base.Kind() == reflect.Array) && !typed.ImplementsMarshaler(base):
		return shapeList
	}
	return shapeWrapped
}

// encode turns a handler's value into a two-channel result, following the
// MCP Python SDK's structured-output rules (see the package documentation):
// the JSON encoding is done once and kept for output validation.
func (e *encoder[Out]) encode(out Out) (*Result, error) {
	var v any = out
	if e.mode == OutputText {
		if e.isStr {
			return TextResult(v.(string)), nil
		}
		b, err := marshalResult(v)
		if err != nil {
			return nil, err
		}
		return TextResult(string(b)), nil
	}
	sh := e.shape
	if e.dynamic {
		// Out is an interface: the dynamic value decides, through any
		// pointers (there is no static "optional" to honour).
		rv := reflect.ValueOf(v)
		for rv.Kind() == reflect.Pointer && !rv.IsNil() {
			rv = rv.Elem()
		}
		if !rv.IsValid() || rv.Kind() == reflect.Pointer {
			return wrapped(nil, nil, []byte("null")), nil
		}
		v = rv.Interface()
		sh = shapeOf(rv.Type())
	}
	switch sh {
	case shapeObject:
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Map && rv.IsNil() {
			// A nil map is an empty object, not null.
			v = reflect.MakeMap(rv.Type()).Interface()
			r := textResult("{}")
			r.Structured, r.structJSON, r.structOf = v, []byte("{}"), v
			return r, nil
		}
		b, err := marshalResult(v)
		if err != nil {
			return nil, err
		}
		r := textResult(string(b))
		r.Structured, r.structJSON, r.structOf = v, b, v
		return r, nil
	case shapeList:
		return encodeList(v)
	case shapeOptional:
		if typed.IsNil(v) {
			// None: no content blocks, {"result": null}.
			return wrapped(nil, nil, []byte("null")), nil
		}
	}
	if rv := reflect.ValueOf(v); rv.IsValid() && typed.IsByteSlice(rv.Type()) && rv.IsNil() {
		v = []byte{} // like a nil list, a nil []byte is empty: "" rather than null
	}
	b, err := marshalResult(v)
	if err != nil {
		return nil, err
	}
	content, err := textBlocks(reflect.ValueOf(v), b, nil)
	if err != nil {
		return nil, err
	}
	return wrapped(v, content, b), nil
}

// wrapped returns the result {"result": v} whose value encodes as b.
func wrapped(v any, content []Content, b []byte) *Result {
	if content == nil {
		content = []Content{}
	}
	st := map[string]any{"result": v}
	return &Result{Content: content, Structured: st, structJSON: wrapJSON(b), structOf: st}
}

// textBlocks appends the text blocks of a value, as the Python SDK converts
// a result to content: nothing for nil, a string as itself, a list as the
// blocks of its elements in order (flattened), anything else as its JSON.
// whole, if not nil, is the JSON of v already encoded.
func textBlocks(v reflect.Value, whole []byte, out []Content) ([]Content, error) {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && !typed.ImplementsMarshaler(v.Type()) {
		if v.IsNil() {
			return out, nil
		}
		v, whole = v.Elem(), nil
	}
	if !v.IsValid() {
		return out, nil
	}
	t := v.Type()
	switch {
	case typed.ImplementsMarshaler(t):
	case t.Kind() == reflect.String:
		return append(out, &TextContent{Text: v.String()}), nil
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && !typed.IsByteSlice(t):
		for i := range v.Len() {
			var err error
			if out, err = textBlocks(v.Index(i), nil, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if whole == nil {
		var err error
		if whole, err = marshalResult(v.Interface()); err != nil {
			return nil, err
		}
	}
	return append(out, &TextContent{Text: string(whole)}), nil
}

// marshalResult encodes a handler's value, without HTML escaping (a model
// reads <, > and & as themselves). Its error message is model-safe: the Go
// detail (type names) stays in Err.
func marshalResult(v any) ([]byte, error) {
	b, err := rendertext.MarshalNoEscape(v)
	if err == nil {
		return b, nil
	}
	msg := "the result does not encode as JSON"
	var uv *json.UnsupportedValueError
	if errors.As(err, &uv) {
		msg += ": unsupported value " + uv.Str
	}
	return nil, &Error{Kind: KindToolError, Message: msg, Err: err}
}

func encodeList(out any) (*Result, error) {
	v := reflect.ValueOf(out)
	t := v.Type()
	if v.Kind() == reflect.Slice && v.IsNil() {
		// A nil list is an empty list: models and programs get [] rather than null.
		v = reflect.MakeSlice(reflect.SliceOf(t.Elem()), 0, 0)
		out = v.Interface()
	}
	n := v.Len()
	content := make([]Content, 0, n)
	buf := make([]byte, 0, 64)
	buf = append(buf, `{"result":[`...)
	for i := range n {
		el := v.Index(i)
		b, err := marshalResult(el.Interface())
		if err != nil {
			return nil, err
		}
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, b...)
		if content, err = textBlocks(el, b, content); err != nil {
			return nil, err
		}
	}
	buf = append(buf, "]}"...)
	st := map[string]any{"result": out}
	return &Result{Content: content, Structured: st, structJSON: buf, structOf: st}, nil
}

func wrapJSON(b []byte) []byte {
	w := make([]byte, 0, len(b)+11)
	w = append(w, `{"result":`...)
	w = append(w, b...)
	return append(w, '}')
}
