package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/adapter/internal/typed"
)

type diffInner struct {
	On   bool   `json:"on"`
	Note string `json:"note,omitempty"`
}

type Label string

// diffIn exercises every rule of the strict decoder: required and optional
// fields, every integer width, floats, nullable and non-nullable values,
// nested objects, lists and maps.
type diffIn struct {
	Name  Label                     `json:"name"`
	B     bool                      `json:"b,omitempty"`
	I     int                       `json:"i,omitempty"`
	I8    int8                      `json:"i8,omitempty"`
	I16   int16                     `json:"i16,omitempty"`
	I32   int32                     `json:"i32,omitempty"`
	I64   int64                     `json:"i64,omitempty"`
	U     uint                      `json:"u,omitempty"`
	U8    uint8                     `json:"u8,omitempty"`
	U16   uint16                    `json:"u16,omitempty"`
	U32   uint32                    `json:"u32,omitempty"`
	U64   uint64                    `json:"u64,omitempty"`
	F     float64                   `json:"f,omitempty"`
	F32   float32                   `json:"f32,omitempty"`
	P     *int                      `json:"p,omitempty"`
	PS    *string                   `json:"ps,omitempty"`
	L     []string                  `json:"l,omitempty"`
	LL    [][]int8                  `json:"ll,omitempty"`
	LP    []*diffInner              `json:"lp,omitempty"`
	M     map[string]int            `json:"m,omitempty"`
	MM    map[string]map[string]int `json:"mm,omitempty"`
	In    diffInner                 `json:"in,omitzero"`
	PIn   *diffInner                `json:"pin,omitempty"`
	PL    *[]int                    `json:"pl,omitempty"`
	Untag string
	Req   diffInner `json:"req"`
}

type diffCase struct {
	name   string
	typ    reflect.Type
	strict *compiled // with the strict decoder
	ref    *compiled // the general path: generic decode and jsonschema-go
}

func diffCases(t testing.TB) []diffCase {
	mk := func(name string, spec *Spec, typ reflect.Type) diffCase {
		c, err := spec.compiled()
		if err != nil {
			t.Fatal(err)
		}
		if c.strict == nil {
			t.Fatalf("%s: no strict decoder", name)
		}
		ref, err := (&Spec{Name: name, InputSchema: spec.InputSchema, Handler: spec.Handler}).compiled()
		if err != nil {
			t.Fatal(err)
		}
		return diffCase{name, typ, c, ref}
	}
	noop := func(context.Context, diffIn) (int, error) { return 0, nil }
	noopMap := func(context.Context, map[string][]*int8) (int, error) { return 0, nil }
	return []diffCase{
		mk("struct", MustTool("s", "", noop, nil), reflect.TypeFor[diffIn]()),
		mk("map", MustTool("m", "", noopMap, nil), reflect.TypeFor[map[string][]*int8]()),
	}
}

// reference is what the general path makes of data: the generic decode
// and jsonschema-go validation (prepareArgs without a strict decoder),
// then go-sdk's case-sensitive decode into the typed input, with duplicate
// keys refused.
func (dc *diffCase) reference(data []byte) (any, error) {
	args, err := dc.ref.prepareArgs(data, -1)
	if err != nil {
		return nil, err
	}
	if k, dup := duplicateKey(args); dup {
		return nil, errors.New("duplicate key " + k)
	}
	v := reflect.New(dc.typ)
	if err := typed.DecodeArgs(args, v.Interface()); err != nil {
		return nil, err
	}
	return v.Interface(), nil
}

// duplicateKey reports a key that appears twice in one object, with
// encoding/json's tokenizer.
func duplicateKey(data []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj    bool
		keys   map[string]bool
		expect bool // next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return "", false
		}
		if err != nil {
			return "", false // syntax errors are the reference's to report
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.expect {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return k, true
				}
				top.keys[k] = true
				top.expect = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, keys: map[string]bool{}, expect: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// a value ended: an object's next token is a key
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].expect = true
		}
	}
}

// checkSame fails t when the strict decoder and the reference disagree on
// data: one accepts and the other refuses, or both accept with different
// values. A refusal must be a bounded args_invalid error.
func checkSame(t *testing.T, dc *diffCase, data []byte) (accepted bool) {
	t.Helper()
	want, werr := dc.reference(data)
	_, got, gerr := dc.strict.prepareArgsValue(data, -1)
	switch {
	case werr != nil && gerr != nil:
		if KindOf(gerr) != KindArgsInvalid {
			t.Fatalf("%s: %q: strict error %v is not args_invalid", dc.name, data, gerr)
		}
		if len(gerr.Error()) > 512 {
			t.Fatalf("%s: %q: strict error is %d bytes long", dc.name, data, len(gerr.Error()))
		}
		return false
	case werr != nil:
		t.Fatalf("%s: %q: the strict decoder accepts %#v; the general path refuses: %v", dc.name, data, got, werr)
	case gerr != nil:
		t.Fatalf("%s: %q: the strict decoder refuses (%v); the general path accepts %#v", dc.name, data, gerr, want)
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%s: %q: decoded values differ\nstrict:  %#v\ngeneral: %#v", dc.name, data, got, want)
	}
	return true
}

var diffSeeds = []string{
	`{"name":"a","req":{"on":true}}`,
	`{"name":"a","req":{"on":false,"note":"x"},"b":true,"i":-5,"i8":-128,"i16":32767,"i32":-2147483648,"i64":9223372036854775807,` +
		`"u":0,"u8":255,"u16":65535,"u32":4294967295,"u64":18446744073709551615,"f":1.5e300,"f32":3.4e38,"p":null,"ps":"s",` +
		`"l":["a","b"],"ll":[[1],null,[]],"lp":[null,{"on":true}],"m":{"a":1},"mm":{"x":null,"y":{"z":2}},"in":{"on":true},` +
		`"pin":null,"pl":[1,2],"Untag":"u"}`,
	`{}`, ``, `null`, ` {"name":"a","req":{"on":true}} `, `[]`, `"s"`, `1`, `true`,
	`{"name":"a","req":{"on":true},"NAME":"b"}`, `{"Name":"a","req":{"on":true}}`, `{"name":"a","name":"b","req":{"on":true}}`,
	`{"name":"a","req":{"on":true},"i":1.0}`, `{"name":"a","req":{"on":true},"i":1e2}`, `{"name":"a","req":{"on":true},"i":-0}`,
	`{"name":"a","req":{"on":true},"u":-0}`, `{"name":"a","req":{"on":true},"u":-1}`, `{"name":"a","req":{"on":true},"i8":128}`,
	`{"name":"a","req":{"on":true},"i8":-129}`, `{"name":"a","req":{"on":true},"i64":9223372036854775808}`,
	`{"name":"a","req":{"on":true},"u64":18446744073709551616}`, `{"name":"a","req":{"on":true},"f":1e400}`,
	`{"name":"a","req":{"on":true},"f":1e-400}`, `{"name":"a","req":{"on":true},"f32":1e39}`, `{"name":"a","req":{"on":true},"f32":1e-50}`,
	`{"name":"a","req":{"on":true},"i":null}`, `{"name":null,"req":{"on":true}}`, `{"name":"a","req":null}`,
	`{"name":"a","req":{"on":true},"l":[null]}`, `{"name":"a","req":{"on":true},"m":null}`, `{"name":"a","req":{"on":true},"mm":{"a":null}}`,
	`{"name":"a","req":{"on":true},"mm":{"a":{"b":1,"b":2}}}`, `{"name":"a","req":{"on":true},"m":{"a":1,"a":1}}`,
	`{"name":"\u0061\ud800\udc00\ud800","req":{"on":true}}`, "{\"name\":\"a\xffb\",\"req\":{\"on\":true}}",
	`{"n\u0061me":"a","req":{"on":true}}`, `{"name":"a","req":{"on":true}} x`, `{"name":"a","req":{"on":true},}`,
	`{"name":"a","req":{"on":true},"i":01}`, `{"name":"a","req":{"on":true},"i":1.}`, `{"name":"a","req":{"on":true},"i":.5}`,
	`{"name":"a","req":{"on":true},"x":{"deep":[1,2,{"a":1e999}]}}`, `{"name":"a","req":{"on":true},"b":tru}`,
	`{"name":"a","req":{"on":true},"i":"1"}`, `{"name":"a","req":{"on":true},"l":"a"}`, "{\"name\":\"a\tb\",\"req\":{\"on\":true}}",
	`{"name":"a","req":{"on":true,"x":1}}`, `{"name":"a","req":{"on":true},"pl":null}`, `{"name":"a","req":{"on":true},"pin":{"on":1}}`,
	`{"a":[1,null,-128],"b":[]}`, `{"a":[128]}`, `{"a":null}`, `{"a":[1.0]}`, `{"":[]}`, `{"a":[],"a":[]}`,
}

// FuzzStrictDecode is the differential test that lets typed tools of plain
// input types skip the generic decode and jsonschema-go: on any input the
// strict decoder accepts exactly what the general path accepts (schema
// validation, then go-sdk's decode, duplicate keys refused) and decodes it
// to the same value. CI runs it for 30 s (scripts/test).
func FuzzStrictDecode(f *testing.F) {
	for _, s := range diffSeeds {
		f.Add([]byte(s))
	}
	cases := diffCases(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for i := range cases {
			checkSame(t, &cases[i], data)
		}
	})
}

// TestStrictDecodeDifferential runs the same comparison on documents made
// from the types themselves (valid ones, then each mutated: a field
// dropped, duplicated, re-cased or retyped, a number nudged past a bound),
// so that the accepting paths are covered as well as the refusing ones.
func TestStrictDecodeDifferential(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(2, 3))
	cases := diffCases(t)
	accepted := 0
	for i := range n {
		dc := &cases[i%len(cases)]
		doc := genJSON(rng, dc.typ, 0)
		if checkSame(t, dc, []byte(doc)) {
			accepted++
		}
		for range 3 {
			checkSame(t, dc, []byte(mutateJSON(rng, doc)))
		}
	}
	if accepted < n/4 {
		t.Errorf("only %d of %d generated documents were accepted: the generator is off", accepted, n)
	}
}

// genJSON writes a random document of type t, mostly valid.
func genJSON(rng *rand.Rand, t reflect.Type, depth int) string {
	nullable := t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map && depth > 0
	if nullable && rng.IntN(6) == 0 {
		return "null"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return genJSON(rng, t.Elem(), depth+1)
	case reflect.Bool:
		return strconv.FormatBool(rng.IntN(2) == 0)
	case reflect.String:
		return strconv.Quote(randString(rng))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b := t.Bits()
		return []string{"0", "-0", strconv.FormatInt(-1<<(b-1), 10), strconv.FormatInt(1<<(b-1)-1, 10), strconv.Itoa(rng.IntN(100))}[rng.IntN(5)]
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return []string{"0", strconv.FormatUint(^uint64(0)>>(64-t.Bits()), 10), strconv.Itoa(rng.IntN(100))}[rng.IntN(3)]
	case reflect.Float32, reflect.Float64:
		return []string{"0", "-0", "1.5", "-2e-3", "3.4e38", "1E5", "123456789012345678901234567890", "5e-324"}[rng.IntN(8)]
	case reflect.Slice:
		var parts []string
		for range rng.IntN(4) {
			parts = append(parts, genJSON(rng, t.Elem(), depth+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case reflect.Map:
		var parts []string
		for i := range rng.IntN(4) {
			parts = append(parts, strconv.Quote(randString(rng)+strconv.Itoa(i))+":"+genJSON(rng, t.Elem(), depth+1))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case reflect.Struct:
		fs := typed.Fields(t)
		var parts []string
		for _, f := range fs {
			if f.Required || rng.IntN(2) == 0 {
				parts = append(parts, strconv.Quote(f.Name)+":"+genJSON(rng, f.Type, depth+1))
			}
		}
		rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		return "{" + strings.Join(parts, ",") + "}"
	}
	panic("genJSON: " + t.String())
}

// mutateJSON makes a small, often schema-breaking, change to a document.
func mutateJSON(rng *rand.Rand, doc string) string {
	repl := []string{"null", "1.0", "-1", "1e2", `"x"`, "true", "[]", "{}", "256", "-0", "65536", "4294967296", "1e400", `{"on":true}`}
	switch rng.IntN(7) {
	case 0: // replace a value after a colon
		if i := strings.Index(doc[rng.IntN(len(doc)):], ":"); i >= 0 {
			j := len(doc) - len(doc[rng.IntN(len(doc)):]) // not used for position; keep it simple
			_ = j
		}
		parts := strings.SplitN(doc, ":", 2+rng.IntN(4))
		if len(parts) > 1 {
			k := 1 + rng.IntN(len(parts)-1)
			rest := parts[k]
			end := strings.IndexAny(rest, ",}]")
			if end > 0 && !strings.ContainsAny(rest[:end], "{[\"") {
				parts[k] = repl[rng.IntN(len(repl))] + rest[end:]
			}
		}
		return strings.Join(parts, ":")
	case 1: // re-case a key
		if i := strings.Index(doc, `"`); i >= 0 && i+1 < len(doc) {
			return doc[:i+1] + strings.ToUpper(doc[i+1:i+2]) + doc[i+2:]
		}
	case 2: // duplicate the first member
		if strings.HasPrefix(doc, "{\"") {
			end := strings.IndexAny(doc, ",}")
			if end > 1 {
				return "{" + doc[1:end] + "," + doc[1:]
			}
		}
	case 3: // add an unknown member
		if strings.HasPrefix(doc, "{") && len(doc) > 2 {
			return `{"zz":1,` + doc[1:]
		}
	case 4: // drop a member
		if i := strings.Index(doc, ","); i > 0 {
			if j := strings.Index(doc[i+1:], ","); j >= 0 {
				return doc[:i] + doc[i+1+j:]
			}
		}
	case 5: // truncate
		return doc[:rng.IntN(len(doc)+1)]
	}
	// change one byte
	b := []byte(doc)
	if len(b) > 0 {
		b[rng.IntN(len(b))] = "{}[],:\"0-.eE \\nul"[rng.IntN(17)]
	}
	return string(b)
}
