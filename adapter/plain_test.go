package adapter

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter/internal/typed"
)

type plainInner struct {
	Label string            `json:"label"`
	Score *float64          `json:"score,omitempty"`
	Tags  []string          `json:"tags"`
	Attrs map[string]uint16 `json:"attrs"`
}

type Celsius float64

type plainAll struct {
	B       bool                      `json:"b"`
	S       string                    `json:"s"`
	I       int                       `json:"i"`
	I8      int8                      `json:"i8"`
	I16     int16                     `json:"i16,omitempty"`
	I32     int32                     `json:"i32"`
	I64     int64                     `json:"i64"`
	U       uint                      `json:"u"`
	U8      uint8                     `json:"u8"`
	U16     uint16                    `json:"u16"`
	U32     uint32                    `json:"u32"`
	U64     uint64                    `json:"u64"`
	F32     float32                   `json:"f32"`
	F64     float64                   `json:"f64"`
	Temp    Celsius                   `json:"temp"`
	P       *int                      `json:"p"`
	PS      *plainInner               `json:"ps"`
	In      plainInner                `json:"in"`
	L       []plainInner              `json:"l"`
	LP      []*plainInner             `json:"lp,omitzero"`
	M       map[string]*plainInner    `json:"m"`
	MM      map[string]map[string]int `json:"mm"`
	LL      [][]int                   `json:"ll"`
	Untag   string
	skipped int
	Ignored string `json:"-"`
}

// TestIsPlain: the types whose output is trusted and whose input is
// decoded strictly, and the ones that keep the general path.
func TestIsPlain(t *testing.T) {
	type embedded struct{ plainInner }
	type stringOpt struct {
		N int `json:"n,string"`
	}
	type dupName struct {
		A int `json:"X"`
		X int
	}
	type withAny struct {
		V any `json:"v"`
	}
	type withTime struct {
		T time.Time `json:"t"`
	}
	type withBytes struct {
		B []byte `json:"b"`
	}
	type withRaw struct {
		R json.RawMessage `json:"r"`
	}
	type withNumber struct {
		N json.Number `json:"n"`
	}
	type withArray struct {
		A [2]int `json:"a"`
	}
	type withPtrPtr struct {
		P **int `json:"p"`
	}
	type oddName struct {
		A int `json:"a:b"`
	}
	for _, tt := range []struct {
		v    any
		want bool
	}{
		{plainAll{}, true}, {plainInner{}, true}, {[]plainInner{}, true}, {map[string]int{}, true},
		{0, true}, {"", true}, {Celsius(0), true}, {(*int)(nil), true},
		{embedded{}, false}, {stringOpt{}, false}, {dupName{}, false}, {withAny{}, false}, {withTime{}, false},
		{withBytes{}, false}, {withRaw{}, false}, {withNumber{}, false}, {withArray{}, false}, {withPtrPtr{}, false},
		{oddName{}, false}, {time.Duration(0), true}, {map[int]int{}, false}, {uintptr(0), false}, {complex(1, 1), false},
	} {
		if got := typed.IsPlain(reflect.TypeOf(tt.v)); got != tt.want {
			t.Errorf("isPlain(%T) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

// TestPlainOutputAlwaysValid is the property that lets the executor skip
// output validation for typed tools of plain types: random values of such
// types (nil pointers, slices and maps, extreme integers, invalid UTF-8,
// tiny and huge floats) always encode to JSON their inferred output schema
// accepts, as jsonschema-go judges it.
func TestPlainOutputAlwaysValid(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 50
	}
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	check := func(t *testing.T, name string, spec *Spec, gen func() any) {
		t.Helper()
		if spec.OutputSchema == nil {
			t.Fatalf("%s: no output schema", name)
		}
		resolved, err := spec.OutputSchema.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		trusted := 0
		for range n {
			v := gen()
			ctx := withCall(context.Background(), &ToolCall{Args: json.RawMessage(`{}`)})
			setOut(v)
			r, err := spec.Handler(ctx, json.RawMessage(`{}`))
			if err != nil {
				t.Fatalf("%s: handler error for %#v: %v", name, v, err)
			}
			if r.validFor != nil {
				trusted++
			}
			b, err := r.StructuredJSON()
			if err != nil {
				t.Fatal(err)
			}
			var inst any
			if err := json.Unmarshal(b, &inst); err != nil {
				t.Fatal(err)
			}
			if err := resolved.Validate(inst); err != nil {
				t.Fatalf("%s: the output of a plain type fails its inferred schema: %v\nvalue: %#v\njson: %s", name, err, v, b)
			}
		}
		if trusted != n {
			t.Errorf("%s: %d of %d results carry the proof; want all", name, trusted, n)
		}
	}
	t.Run("struct", func(t *testing.T) {
		check(t, "plainAll", plainTool[plainAll](), func() any { return randPlain(rng, reflect.TypeFor[plainAll](), 0).Interface() })
	})
	t.Run("pointer", func(t *testing.T) {
		check(t, "*plainInner", plainTool[*plainInner](), func() any {
			return randPlain(rng, reflect.TypeFor[plainInner](), 0).Addr().Interface()
		})
	})
	t.Run("list", func(t *testing.T) {
		check(t, "[]plainInner", plainTool[[]plainInner](), func() any { return randPlain(rng, reflect.TypeFor[[]plainInner](), 0).Interface() })
	})
	t.Run("list of pointers", func(t *testing.T) {
		check(t, "[]*plainInner", plainTool[[]*plainInner](), func() any { return randPlain(rng, reflect.TypeFor[[]*plainInner](), 0).Interface() })
	})
	t.Run("map", func(t *testing.T) {
		check(t, "map", plainTool[map[string][]*int8](), func() any { return randPlain(rng, reflect.TypeFor[map[string][]*int8](), 0).Interface() })
	})
	t.Run("wrapped", func(t *testing.T) {
		check(t, "uint64", plainTool[uint64](), func() any { return randPlain(rng, reflect.TypeFor[uint64](), 0).Interface() })
		check(t, "string", plainTool[string](), func() any { return randPlain(rng, reflect.TypeFor[string](), 0).Interface() })
		check(t, "*float32", plainTool[*float32](), func() any {
			if rng.IntN(4) == 0 {
				return (*float32)(nil)
			}
			return randPlain(rng, reflect.TypeFor[float32](), 0).Addr().Interface()
		})
	})
}

// out is what plainTool's handlers return; the property test sets it
// before each call (it runs calls one at a time).
var out any

func setOut(v any) { out = v }

func plainTool[Out any]() *Spec {
	return MustTool("plain", "", func(context.Context, struct{}) (Out, error) {
		if out == nil {
			var zero Out
			return zero, nil
		}
		return out.(Out), nil
	}, nil)
}

// randPlain returns a random addressable value of a plain type.
func randPlain(rng *rand.Rand, t reflect.Type, depth int) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.String:
		v.SetString(randString(rng))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		switch rng.IntN(4) {
		case 0:
			v.SetInt(-1 << (bits - 1))
		case 1:
			v.SetInt(1<<(bits-1) - 1)
		default:
			v.SetInt(rng.Int64() >> (64 - bits))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		bits := t.Bits()
		if rng.IntN(3) == 0 {
			v.SetUint(math.MaxUint64 >> (64 - bits))
		} else {
			v.SetUint(rng.Uint64() >> (64 - bits))
		}
	case reflect.Float32:
		fs := []float64{0, math.Copysign(0, -1), math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32, rng.NormFloat64() * 1e10}
		v.SetFloat(fs[rng.IntN(len(fs))])
	case reflect.Float64:
		fs := []float64{0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, 1 << 53, rng.NormFloat64() * 1e300}
		v.SetFloat(fs[rng.IntN(len(fs))])
	case reflect.Pointer:
		if rng.IntN(3) > 0 && depth < 6 {
			v.Set(randPlain(rng, t.Elem(), depth+1).Addr())
		}
	case reflect.Slice:
		switch {
		case rng.IntN(4) == 0 || depth >= 6:
			// nil
		default:
			n := rng.IntN(4)
			s := reflect.MakeSlice(t, n, n)
			for i := range n {
				s.Index(i).Set(randPlain(rng, t.Elem(), depth+1))
			}
			v.Set(s)
		}
	case reflect.Map:
		if rng.IntN(4) > 0 && depth < 6 {
			m := reflect.MakeMap(t)
			for range rng.IntN(4) {
				m.SetMapIndex(reflect.ValueOf(randString(rng)).Convert(t.Key()), randPlain(rng, t.Elem(), depth+1))
			}
			v.Set(m)
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(randPlain(rng, t.Field(i).Type, depth+1))
			}
		}
	default:
		panic("randPlain: not a plain type: " + t.String())
	}
	return v
}

func randString(rng *rand.Rand) string {
	pieces := []string{"", "a", "é", "\x00", "\"", "\\", "\xff", "\xed\xa0\x80", "</script>", "\u2028", "𝄞", " "}
	var b []byte
	for range rng.IntN(5) {
		b = append(b, pieces[rng.IntN(len(pieces))]...)
	}
	return string(b)
}

// TestPlainOutputProofIsNarrow: the proof holds only for the schema it was
// made for and the value it was made from. A spec whose output schema is
// replaced after construction, or a result whose Structured is replaced,
// is validated again.
func TestPlainOutputProofIsNarrow(t *testing.T) {
	type w struct {
		N int `json:"n"`
	}
	spec := MustTool("w", "", func(context.Context, struct{}) (w, error) { return w{N: 1}, nil }, nil)
	spec.OutputSchema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"n": {Type: "integer", Minimum: jsonschema.Ptr(2.0)}}}
	if _, err := spec.CallDirect(context.Background(), nil); KindOf(err) != KindToolError {
		t.Errorf("replaced output schema: %v, want tool_error", err)
	}
	orig := MustTool("w", "", func(context.Context, struct{}) (w, error) { return w{N: 1}, nil }, nil)
	c, err := orig.compiled()
	if err != nil {
		t.Fatal(err)
	}
	r, err := orig.Handler(withCall(context.Background(), &ToolCall{}), json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	r.Structured = map[string]any{"n": "not a number"}
	if err := c.checkResult(r); KindOf(err) != KindToolError {
		t.Errorf("replaced Structured: %v, want tool_error", err)
	}
}
