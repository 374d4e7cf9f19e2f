// Package typed is the reflection machinery of adapter's typed tools: the
// strict one-pass argument decoder of plain input types (FuzzStrictDecode,
// in adapter, checks it against the general path), the plainness test, the
// case-sensitive argument decode, and the schema inference options. Only
// adapter imports it.
package typed

import (
	"errors"
	"fmt"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/google/jsonschema-go/jsonschema"
	sjson "github.com/segmentio/encoding/json"
)

// A Strict validates and decodes the arguments of a typed tool in one
// pass, without the generic decode that jsonschema-go needs. It serves only
// plain input types (see IsPlain) under the schema jsonschema-go inferred
// from them, and it accepts exactly what validating against that schema and
// then decoding as go-sdk does would accept, with the same result:
//
//   - object keys match case-sensitively; a key no field has is refused
//     (the inferred schema forbids additional properties);
//   - fields without omitempty/omitzero are required;
//   - null is accepted only by pointers, slices and maps below the root;
//   - integers take no fraction or exponent (1.0 passes the schema but not
//     the decode) and must fit the field (the schema bounds int8 to uint32;
//     the decode bounds the rest);
//   - unsigned fields refuse a minus sign, -0 included (the decode does);
//   - numbers beyond float64's range are refused anywhere (the generic
//     decode does);
//   - strings decode as go-sdk decodes them.
//
// It also refuses duplicate keys, in objects and maps alike: what is
// validated and what the handler gets must be one value.
//
// FuzzStrictDecode checks all of this against jsonschema-go and go-sdk's
// decoder.
type Strict struct {
	schema *jsonschema.Schema // the inferred schema this decoder stands for
	root   *strictType
}

// strictType is the decoding plan of one Go type.
type strictType struct {
	typ      reflect.Type
	kind     reflect.Kind
	nullable bool        // null decodes to the zero value (nil)
	elem     *strictType // pointer, slice and map elements
	fields   []strictField
	required uint64 // bit i: fields[i] is required
}

type strictField struct {
	name  string
	index int
	t     *strictType
}

// NewStrict returns a decoder for t under its inferred schema, or nil
// when t is not plain.
func NewStrict(t reflect.Type, schema *jsonschema.Schema) *Strict {
	if !IsPlain(t) || !(t.Kind() == reflect.Struct || t.Kind() == reflect.Map) {
		return nil
	}
	root := strictPlan(t, false)
	if root == nil {
		return nil
	}
	return &Strict{schema: schema, root: root}
}

func strictPlan(t reflect.Type, nested bool) *strictType {
	st := &strictType{typ: t, kind: t.Kind()}
	switch t.Kind() {
	case reflect.Pointer:
		st.nullable = true
		st.elem = strictPlan(t.Elem(), true)
	case reflect.Slice:
		st.nullable = true
		st.elem = strictPlan(t.Elem(), true)
	case reflect.Map:
		// Inference gives nested maps {"type":["null","object"]} (see
		// SchemaOptions) and the root map {"type":"object"}.
		st.nullable = nested
		st.elem = strictPlan(t.Elem(), true)
	case reflect.Struct:
		fs, _ := plainFields(t, nil)
		if len(fs) > 64 {
			return nil
		}
		for i, f := range fs {
			ft := strictPlan(f.typ, true)
			if ft == nil {
				return nil
			}
			st.fields = append(st.fields, strictField{name: f.name, index: f.index, t: ft})
			if f.required {
				st.required |= 1 << i
			}
		}
	}
	if (st.kind == reflect.Pointer || st.kind == reflect.Slice || st.kind == reflect.Map) && st.elem == nil {
		return nil
	}
	return st
}

// decode validates data (one JSON object, spaces trimmed) and returns a
// pointer to the decoded value.
func (d *Strict) Decode(data []byte) (any, error) {
	v := reflect.New(d.root.typ)
	p := strictParser{data: data}
	p.skipSpace()
	if p.i < len(p.data) && p.data[p.i] != '{' {
		got := p.jsonType()
		if err := p.skipValue(0); err != nil {
			return nil, err
		}
		if p.skipSpace(); p.i != len(p.data) {
			return nil, p.syntax("invalid character %s after top-level value", quoteByte(p.data[p.i]))
		}
		return nil, &strictError{msg: "arguments must be a JSON object, got " + article(got), offset: -2}
	}
	if err := p.value(d.root, v.Elem()); err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i != len(p.data) {
		return nil, p.syntax("invalid character %s after top-level value", quoteByte(p.data[p.i]))
	}
	return v.Interface(), nil
}

// strictError is an argument the decoder refused: a JSON syntax error
// (offset set) or a schema violation at a path.
type strictError struct {
	path   []string // innermost first
	msg    string
	offset int // byte offset of a syntax error, or -1
}

func (e *strictError) Error() string {
	if e.offset == -2 {
		return e.msg
	}
	if e.offset >= 0 {
		return fmt.Sprintf("arguments are not valid JSON: %s (at byte offset %d)", e.msg, e.offset)
	}
	var b strings.Builder
	b.WriteString("arguments do not match the input schema: at $")
	for _, s := range slices.Backward(e.path) {
		b.WriteString(s)
	}
	b.WriteString(": ")
	b.WriteString(e.msg)
	return b.String()
}

// at adds a path element to a schema violation on its way up.
func at(err error, elem string) error {
	var se *strictError
	if errors.As(err, &se) && se.offset == -1 {
		se.path = append(se.path, elem)
	}
	return err
}

type strictParser struct {
	data []byte
	i    int
}

func (p *strictParser) syntax(format string, args ...any) error {
	return &strictError{msg: fmt.Sprintf(format, args...), offset: p.i}
}

func violation2(format string, args ...any) error {
	return &strictError{msg: fmt.Sprintf(format, args...), offset: -1}
}

func quoteByte(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(c))
	return "'" + s[1:len(s)-1] + "'"
}

func (p *strictParser) skipSpace() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *strictParser) eof() error {
	return &strictError{msg: "unexpected end of JSON input", offset: p.i}
}

// literal consumes the keyword lit (true, false, null).
func (p *strictParser) literal(lit string) error {
	for j := 0; j < len(lit); j++ {
		if p.i >= len(p.data) {
			return p.eof()
		}
		if p.data[p.i] != lit[j] {
			return p.syntax("invalid character %s in literal %s (expecting %s)", quoteByte(p.data[p.i]), lit, quoteByte(lit[j]))
		}
		p.i++
	}
	return nil
}

// jsonType names the JSON type of the value starting at p.i.
func (p *strictParser) jsonType() string {
	switch c := p.data[p.i]; {
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == '"':
		return "string"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	}
	return "number"
}

// wantTypes is the schema's type keyword as jsonschema-go prints it.
func (st *strictType) wantTypes() string {
	if st.nullable {
		return fmt.Sprintf("one of %q", []string{"null", st.want()})
	}
	return strconv.Quote(st.want())
}

func (st *strictType) want() string {
	switch st.kind {
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice:
		return "array"
	case reflect.Pointer:
		return st.elem.want()
	}
	return "integer"
}

// value decodes the value at p.i into v (a zero value of st.typ).
func (p *strictParser) value(st *strictType, v reflect.Value) error {
	if p.i >= len(p.data) {
		return p.eof()
	}
	c := p.data[p.i]
	if c == 'n' {
		if err := p.literal("null"); err != nil {
			return err
		}
		if !st.nullable {
			return violation2("type: null has type \"null\", want %s", st.wantTypes())
		}
		return nil // v stays nil
	}
	switch st.kind {
	case reflect.Pointer:
		e := reflect.New(st.elem.typ)
		if err := p.value(st.elem, e.Elem()); err != nil {
			return err
		}
		v.Set(e)
		return nil
	case reflect.Struct:
		if c != '{' {
			return p.mismatch(st)
		}
		return p.object(st, v)
	case reflect.Map:
		if c != '{' {
			return p.mismatch(st)
		}
		return p.mapValue(st, v)
	case reflect.Slice:
		if c != '[' {
			return p.mismatch(st)
		}
		return p.array(st, v)
	case reflect.String:
		if c != '"' {
			return p.mismatch(st)
		}
		s, err := p.str()
		if err != nil {
			return err
		}
		v.SetString(s)
		return nil
	case reflect.Bool:
		switch c {
		case 't':
			if err := p.literal("true"); err != nil {
				return err
			}
			v.SetBool(true)
			return nil
		case 'f':
			return p.literal("false")
		}
		return p.mismatch(st)
	}
	if c != '-' && (c < '0' || c > '9') {
		return p.mismatch(st)
	}
	return p.number(st, v)
}

// mismatch reports a value of the wrong JSON type. The value must still be
// valid JSON for the error to be a schema violation rather than a syntax
// error, so it is scanned first.
func (p *strictParser) mismatch(st *strictType) error {
	got := p.jsonType()
	start := p.i
	if err := p.skipValue(0); err != nil {
		return err
	}
	text := p.data[start:p.i]
	if got == "string" {
		text = text[1 : len(text)-1]
	}
	return violation2("type: %s has type %q, want %s", clip(string(text)), got, st.wantTypes())
}

func (p *strictParser) number(st *strictType, v reflect.Value) error {
	start := p.i
	integer, err := p.scanNumber()
	if err != nil {
		return err
	}
	tok := unsafeString(p.data[start:p.i])
	// Any number must be a float64, as the generic decode requires.
	f, ferr := strconv.ParseFloat(tok, 64)
	if ferr != nil {
		return violation2("the number %s is out of range", clip(tok))
	}
	switch st.kind {
	case reflect.Float64:
		v.SetFloat(f)
		return nil
	case reflect.Float32:
		f32, err := strconv.ParseFloat(tok, 32)
		if err != nil {
			return violation2("the number %s does not fit a 32-bit float", clip(tok))
		}
		v.SetFloat(f32)
		return nil
	}
	if !integer {
		return violation2("type: %s has type \"number\", want %s", clip(tok), st.wantTypes())
	}
	size := st.typ.Bits()
	switch st.kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(tok, 10, size)
		if err != nil {
			if tok[0] == '-' {
				return violation2("minimum: %s is less than %d", clip(tok), int64(-1)<<(size-1))
			}
			return violation2("maximum: %s is greater than %d", clip(tok), int64(1)<<(size-1)-1)
		}
		v.SetInt(n)
		return nil
	}
	if tok[0] == '-' {
		return violation2("minimum: %s is less than 0", clip(tok))
	}
	n, err := strconv.ParseUint(tok, 10, size)
	if err != nil {
		return violation2("maximum: %s is greater than %d", clip(tok), uint64(1)<<(size-1)<<1-1)
	}
	v.SetUint(n)
	return nil
}

func article(jsonType string) string {
	if jsonType == "object" || jsonType == "array" {
		return "an " + jsonType
	}
	return "a " + jsonType
}

// unsafeString views b as a string for parsing, which keeps no reference.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// clip keeps a number's text short in error messages.
func clip(s string) string {
	if len(s) > 32 {
		return s[:29] + "..."
	}
	return s
}

// scanNumber consumes a JSON number and reports whether it is written as an
// integer (no fraction, no exponent).
func (p *strictParser) scanNumber() (integer bool, err error) {
	d := p.data
	if d[p.i] == '-' {
		p.i++
	}
	if p.i >= len(d) {
		return false, p.eof()
	}
	switch c := d[p.i]; {
	case c == '0':
		p.i++
	case '1' <= c && c <= '9':
		for p.i < len(d) && '0' <= d[p.i] && d[p.i] <= '9' {
			p.i++
		}
	default:
		return false, p.syntax("invalid character %s in numeric literal", quoteByte(c))
	}
	integer = true
	if p.i < len(d) && d[p.i] == '.' {
		integer = false
		p.i++
		if err := p.digits(); err != nil {
			return false, err
		}
	}
	if p.i < len(d) && (d[p.i] == 'e' || d[p.i] == 'E') {
		integer = false
		p.i++
		if p.i < len(d) && (d[p.i] == '+' || d[p.i] == '-') {
			p.i++
		}
		if err := p.digits(); err != nil {
			return false, err
		}
	}
	return integer, nil
}

func (p *strictParser) digits() error {
	if p.i >= len(p.data) {
		return p.eof()
	}
	if c := p.data[p.i]; c < '0' || c > '9' {
		return p.syntax("invalid character %s in numeric literal", quoteByte(c))
	}
	for p.i < len(p.data) && '0' <= p.data[p.i] && p.data[p.i] <= '9' {
		p.i++
	}
	return nil
}

// str consumes a JSON string and returns its value.
func (p *strictParser) str() (string, error) {
	b, err := p.strBytes()
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// strBytes consumes a JSON string. Plain ASCII is returned in place; any
// escape or non-ASCII byte goes through go-sdk's decoder, so that escapes,
// surrogates and invalid UTF-8 come out exactly as go-sdk has them.
func (p *strictParser) strBytes() ([]byte, error) {
	d := p.data
	start := p.i
	p.i++ // the opening quote
	for p.i < len(d) {
		c := d[p.i]
		switch {
		case c == '"':
			p.i++
			return d[start+1 : p.i-1], nil
		case c == '\\' || c >= utf8.RuneSelf:
			return p.strSlow(start)
		case c < 0x20:
			return nil, p.syntax("invalid character %s in string literal", quoteByte(c))
		}
		p.i++
	}
	return nil, p.eof()
}

func (p *strictParser) strSlow(start int) ([]byte, error) {
	d := p.data
	for p.i < len(d) {
		c := d[p.i]
		switch {
		case c == '"':
			p.i++
			var s string
			if err := sjson.Unmarshal(d[start:p.i], &s); err != nil {
				p.i = start
				return nil, p.syntax("invalid string literal")
			}
			return []byte(s), nil
		case c == '\\':
			p.i += 2
			continue
		case c < 0x20:
			return nil, p.syntax("invalid character %s in string literal", quoteByte(c))
		}
		p.i++
	}
	return nil, p.eof()
}

// key reads an object key and the colon after it.
func (p *strictParser) key() ([]byte, error) {
	if p.i >= len(p.data) {
		return nil, p.eof()
	}
	if p.data[p.i] != '"' {
		return nil, p.syntax("invalid character %s looking for beginning of object key string", quoteByte(p.data[p.i]))
	}
	k, err := p.strBytes()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i >= len(p.data) {
		return nil, p.eof()
	}
	if p.data[p.i] != ':' {
		return nil, p.syntax("invalid character %s after object key", quoteByte(p.data[p.i]))
	}
	p.i++
	p.skipSpace()
	return k, nil
}

// next consumes the ',' or the closing delimiter after an element and
// reports whether another element follows.
func (p *strictParser) next(closing byte) (bool, error) {
	p.skipSpace()
	if p.i >= len(p.data) {
		return false, p.eof()
	}
	switch p.data[p.i] {
	case ',':
		p.i++
		p.skipSpace()
		return true, nil
	case closing:
		p.i++
		return false, nil
	}
	what := "object key:value pair"
	if closing == ']' {
		what = "array element"
	}
	return false, p.syntax("invalid character %s after %s", quoteByte(p.data[p.i]), what)
}

func (p *strictParser) object(st *strictType, v reflect.Value) error {
	p.i++ // '{'
	p.skipSpace()
	var seen uint64
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
	} else {
		for {
			k, err := p.key()
			if err != nil {
				return err
			}
			fi := -1
			for i := range st.fields {
				if st.fields[i].name == string(k) {
					fi = i
					break
				}
			}
			if fi < 0 {
				name := string(k)
				if err := p.skipValue(0); err != nil {
					return err
				}
				return violation2("unexpected additional properties %q", []string{clipKey(name)})
			}
			if seen&(1<<fi) != 0 {
				return violation2("duplicate key %q", clipKey(string(k)))
			}
			seen |= 1 << fi
			f := &st.fields[fi]
			if err := p.value(f.t, v.Field(f.index)); err != nil {
				return at(err, "."+f.name)
			}
			more, err := p.next('}')
			if err != nil {
				return err
			}
			if !more {
				break
			}
		}
	}
	if missing := st.required &^ seen; missing != 0 {
		var names []string
		for m := missing; m != 0; m &= m - 1 {
			names = append(names, st.fields[bits.TrailingZeros64(m)].name)
			if len(names) == 5 {
				break
			}
		}
		msg := fmt.Sprintf("required: missing properties: %q", names)
		if n := bits.OnesCount64(missing); n > len(names) {
			msg += fmt.Sprintf(" (and %d more)", n-len(names))
		}
		return violation2("%s", msg)
	}
	return nil
}

// clipKey keeps a key short in an error message.
func clipKey(k string) string {
	if len(k) > 64 {
		k = k[:61] + "..."
	}
	return k
}

func (p *strictParser) mapValue(st *strictType, v reflect.Value) error {
	p.i++ // '{'
	p.skipSpace()
	m := reflect.MakeMap(st.typ)
	v.Set(m)
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return nil
	}
	for {
		k, err := p.key()
		if err != nil {
			return err
		}
		kv := reflect.ValueOf(string(k)).Convert(st.typ.Key())
		if m.MapIndex(kv).IsValid() {
			return violation2("duplicate key %q", clipKey(string(k)))
		}
		ev := reflect.New(st.elem.typ).Elem()
		if err := p.value(st.elem, ev); err != nil {
			return at(err, ".*")
		}
		m.SetMapIndex(kv, ev)
		more, err := p.next('}')
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
	}
}

func (p *strictParser) array(st *strictType, v reflect.Value) error {
	p.i++ // '['
	p.skipSpace()
	s := reflect.MakeSlice(st.typ, 0, 0)
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		v.Set(s)
		return nil
	}
	for n := 0; ; n++ {
		s = reflect.Append(s, reflect.Zero(st.elem.typ))
		if err := p.value(st.elem, s.Index(n)); err != nil {
			return at(err, "["+strconv.Itoa(n)+"]")
		}
		more, err := p.next(']')
		if err != nil {
			return err
		}
		if !more {
			v.Set(s)
			return nil
		}
	}
}

// skipValue consumes any JSON value, checking its syntax.
func (p *strictParser) skipValue(depth int) error {
	if depth > 10000 {
		return p.syntax("exceeded max depth")
	}
	if p.i >= len(p.data) {
		return p.eof()
	}
	switch c := p.data[p.i]; {
	case c == '{':
		p.i++
		p.skipSpace()
		if p.i < len(p.data) && p.data[p.i] == '}' {
			p.i++
			return nil
		}
		for {
			if _, err := p.key(); err != nil {
				return err
			}
			if err := p.skipValue(depth + 1); err != nil {
				return err
			}
			more, err := p.next('}')
			if err != nil || !more {
				return err
			}
		}
	case c == '[':
		p.i++
		p.skipSpace()
		if p.i < len(p.data) && p.data[p.i] == ']' {
			p.i++
			return nil
		}
		for {
			if err := p.skipValue(depth + 1); err != nil {
				return err
			}
			more, err := p.next(']')
			if err != nil || !more {
				return err
			}
		}
	case c == '"':
		_, err := p.strBytes()
		return err
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		start := p.i
		if _, err := p.scanNumber(); err != nil {
			return err
		}
		if _, err := strconv.ParseFloat(unsafeString(p.data[start:p.i]), 64); err != nil {
			return violation2("the number %s is out of range", clip(string(p.data[start:p.i])))
		}
		return nil
	default:
		return p.syntax("invalid character %s looking for beginning of value", quoteByte(c))
	}
}

// Schema returns the inferred schema d stands for.
func (d *Strict) Schema() *jsonschema.Schema { return d.schema }
