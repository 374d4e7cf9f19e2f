package adapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
)

// update rewrites the goldens in testdata/: go test ./adapter -update.
// Looked up rather than defined twice, since other test files of this
// binary may define the same flag.
var update = func() *bool {
	if f := flag.Lookup("update"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if b, ok := g.Get().(bool); ok {
				v := b
				return &v
			}
		}
	}
	return flag.Bool("update", false, "rewrite golden files in testdata/")
}()

// golden compares got (JSON) with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatalf("golden %s: not JSON: %v\n%s", name, err, got)
	}
	buf.WriteByte('\n')
	goldenText(t, name, buf.String())
}

// goldenText compares got with testdata/name byte for byte.
func goldenText(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update || updateFromEnv() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test ./adapter -update to create it)", name, err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("golden %s mismatch (-want +got):\n%s", name, diff)
	}
}

// updateFromEnv honours the flag even when another file defined it first
// (then *update is a copy taken before flag.Parse).
func updateFromEnv() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

type Point struct {
	X    int      `json:"x"`
	Y    int      `json:"y"`
	Tags []string `json:"tags,omitempty"`
}

type Weather struct {
	City     string  `json:"city"`
	TempC    float64 `json:"temp_c"`
	Humidity int     `json:"humidity"`
}

type empty struct{}

// blobs has fields whose JSON differs from their Go shape.
type blobs struct {
	Data []byte `json:"data"`
	Raw  json.RawMessage
	ID   textID `json:"id"`
}

// maps has map fields: nil ones encode as null, integer keys as strings.
type maps struct {
	Labels map[string]string `json:"labels"`
	ByID   map[int]string    `json:"by_id"`
	Lists  []map[string]int  `json:"lists"`
}

// textID marshals as a string through encoding.TextMarshaler.
type textID string

func (t textID) MarshalText() ([]byte, error) { return []byte("id:" + string(t)), nil }

// pointSchema is an explicit output schema for Point, for Out = any.
func pointSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"x": {Type: "integer"}, "y": {Type: "integer"}, "tags": {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
	}, Required: []string{"x", "y"}}
}

// typed builds a tool returning v from a function of no arguments.
func typed[Out any](v Out, opts *adapter.ToolOptions) func(name string) (*adapter.Spec, error) {
	return func(name string) (*adapter.Spec, error) {
		return adapter.NewTool(name, "returns a fixed value", func(context.Context, empty) (Out, error) { return v, nil }, opts)
	}
}

// TestWrapping is the table of output rules: for each Go result type, the
// text channel (one block per list element), the structured channel (as
// is for object shapes, {"result": v} otherwise) and the output schema
// (golden), and the structured content must validate against that schema.
func TestWrapping(t *testing.T) {
	var nilInt *int
	var nilList []Point
	tests := []struct {
		name       string
		build      func(name string) (*adapter.Spec, error)
		text       []string
		structured string
		wantType   any // for object shapes: Structured keeps the Go value's type
	}{
		{name: "int", build: typed(42, nil), text: []string{"42"}, structured: `{"result":42}`},
		{name: "string", build: typed("hello", nil), text: []string{"hello"}, structured: `{"result":"hello"}`},
		{name: "string_markup", build: typed("a <b> & \"c\"\nline 2", nil), text: []string{"a <b> & \"c\"\nline 2"}, structured: `{"result":"a <b> & \"c\"\nline 2"}`},
		{name: "string_list", build: typed([]string{"alpha", "<beta>"}, nil), text: []string{"alpha", "<beta>"}, structured: `{"result":["alpha","<beta>"]}`},
		{name: "string_list_empty", build: typed([]string{}, nil), text: nil, structured: `{"result":[]}`},
		{name: "string_list_nested", build: typed([][]string{{"a"}, {}, {"b", "c"}}, nil), text: []string{"a", "b", "c"}, structured: `{"result":[["a"],[],["b","c"]]}`},
		{name: "string_pointer", build: typed(jsonschema.Ptr("hi"), nil), text: []string{"hi"}, structured: `{"result":"hi"}`},
		{name: "bool", build: typed(true, nil), text: []string{"true"}, structured: `{"result":true}`},
		{name: "float", build: typed(2.5, nil), text: []string{"2.5"}, structured: `{"result":2.5}`},
		{name: "bytes", build: typed([]byte("hi"), nil), text: []string{`"aGk="`}, structured: `{"result":"aGk="}`},
		{name: "bytes_nil", build: typed([]byte(nil), nil), text: []string{`""`}, structured: `{"result":""}`},
		{name: "nil_any", build: typed[any](nil, nil), text: nil, structured: `{"result":null}`},
		{name: "nil_int_pointer", build: typed(nilInt, nil), text: nil, structured: `{"result":null}`},
		{name: "nil_struct_pointer", build: typed((*Weather)(nil), nil), text: nil, structured: `{"result":null}`},
		{name: "int_pointer", build: typed(jsonschema.Ptr(7), nil), text: []string{"7"}, structured: `{"result":7}`},
		{name: "struct_list", build: typed([]Point{{X: 1, Y: 2}, {X: 3, Y: 4, Tags: []string{"a"}}}, nil),
			text: []string{`{"x":1,"y":2}`, `{"x":3,"y":4,"tags":["a"]}`}, structured: `{"result":[{"x":1,"y":2},{"x":3,"y":4,"tags":["a"]}]}`},
		{name: "struct_pointer_list", build: typed([]*Point{{X: 1}, nil}, nil),
			text: []string{`{"x":1,"y":0}`}, structured: `{"result":[{"x":1,"y":0},null]}`},
		{name: "struct_list_nil", build: typed(nilList, nil), text: nil, structured: `{"result":[]}`},
		{name: "int_list", build: typed([]int{1, 2, 3}, nil), text: []string{"1", "2", "3"}, structured: `{"result":[1,2,3]}`},
		{name: "int_array", build: typed([2]int{1, 2}, nil), text: []string{"1", "2"}, structured: `{"result":[1,2]}`},
		{name: "map_string_float", build: typed(map[string]float64{"a": 1.5, "b": 2}, nil),
			text: []string{`{"a":1.5,"b":2}`}, structured: `{"a":1.5,"b":2}`, wantType: map[string]float64{}},
		{name: "map_string_float_nil", build: typed(map[string]float64(nil), nil),
			text: []string{`{}`}, structured: `{}`, wantType: map[string]float64{}},
		{name: "map_int_float", build: typed(map[int]float64{1: 1.5, -2: 2}, nil),
			text: []string{`{"-2":2,"1":1.5}`}, structured: `{"result":{"-2":2,"1":1.5}}`},
		{name: "map_int_struct", build: typed(map[int]Point{1: {X: 1}}, nil),
			text: []string{`{"1":{"x":1,"y":0}}`}, structured: `{"result":{"1":{"x":1,"y":0}}}`},
		{name: "struct", build: typed(Weather{City: "Paris", TempC: 21.5, Humidity: 40}, nil),
			text: []string{`{"city":"Paris","temp_c":21.5,"humidity":40}`}, structured: `{"city":"Paris","temp_c":21.5,"humidity":40}`, wantType: Weather{}},
		{name: "struct_pointer", build: typed(&Weather{City: "Oslo", TempC: -3, Humidity: 80}, nil),
			text: []string{`{"city":"Oslo","temp_c":-3,"humidity":80}`}, structured: `{"result":{"city":"Oslo","temp_c":-3,"humidity":80}}`},
		{name: "struct_markup", build: typed(Weather{City: "<Saint-Malo & co>"}, nil),
			text: []string{`{"city":"<Saint-Malo & co>","temp_c":0,"humidity":0}`}, structured: `{"city":"<Saint-Malo & co>","temp_c":0,"humidity":0}`, wantType: Weather{}},
		{name: "any_with_schema", build: typed[any](Point{X: 1, Y: 2}, &adapter.ToolOptions{OutputSchema: pointSchema()}),
			text: []string{`{"x":1,"y":2}`}, structured: `{"x":1,"y":2}`, wantType: Point{}},
		{name: "any_with_schema_pointer", build: typed[any](&Point{X: 3}, &adapter.ToolOptions{OutputSchema: pointSchema()}),
			text: []string{`{"x":3,"y":0}`}, structured: `{"x":3,"y":0}`, wantType: Point{}},
		{name: "time", build: typed(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), nil),
			text: []string{`"2026-01-02T03:04:05Z"`}, structured: `{"result":"2026-01-02T03:04:05Z"}`},
		{name: "any_struct", build: typed[any](Point{X: 1, Y: 2}, nil),
			text: []string{`{"x":1,"y":2}`}, structured: `{"x":1,"y":2}`, wantType: Point{}},
		{name: "any_list", build: typed[any]([]string{"a", "b"}, nil),
			text: []string{"a", "b"}, structured: `{"result":["a","b"]}`},
		{name: "struct_with_bytes", build: typed(blobs{Data: []byte{0xff}, Raw: json.RawMessage(`[1,{"a":2}]`), ID: "a-1"}, nil),
			text: []string{`{"data":"/w==","Raw":[1,{"a":2}],"id":"id:a-1"}`}, structured: `{"data":"/w==","Raw":[1,{"a":2}],"id":"id:a-1"}`, wantType: blobs{}},
		{name: "struct_with_maps", build: typed(maps{ByID: map[int]string{7: "x"}, Lists: []map[string]int{nil, {"a": 1}}}, nil),
			text: []string{`{"labels":null,"by_id":{"7":"x"},"lists":[null,{"a":1}]}`}, structured: `{"labels":null,"by_id":{"7":"x"},"lists":[null,{"a":1}]}`, wantType: maps{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := tt.build("wrap_" + tt.name)
			if err != nil {
				t.Fatalf("NewTool: %v", err)
			}
			res, err := spec.CallDirect(context.Background(), nil)
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if diff := cmp.Diff(tt.text, texts(res)); diff != "" {
				t.Errorf("text channel (-want +got):\n%s", diff)
			}
			sj, err := res.StructuredJSON()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(normJSON(t, []byte(tt.structured)), normJSON(t, sj)); diff != "" {
				t.Errorf("structured channel (-want +got):\n%s", diff)
			}
			// The Go value and its JSON must agree: a program reading
			// Structured sees what the model was told.
			again, err := json.Marshal(res.Structured)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(normJSON(t, sj), normJSON(t, again)); diff != "" {
				t.Errorf("json.Marshal(Structured) differs from StructuredJSON (-want +got):\n%s", diff)
			}
			if tt.wantType != nil {
				if got, want := reflect.TypeOf(res.Structured), reflect.TypeOf(tt.wantType); got != want {
					t.Errorf("Structured has type %v, want %v (object shapes are passed as is)", got, want)
				}
			} else if _, ok := res.Structured.(map[string]any); !ok {
				t.Errorf("Structured has type %T, want map[string]any{\"result\": ...}", res.Structured)
			}

			var schemaJSON []byte = []byte("null")
			if spec.OutputSchema != nil {
				if schemaJSON, err = json.Marshal(spec.OutputSchema); err != nil {
					t.Fatal(err)
				}
				// Independently of Spec.Call: the golden-checked schema
				// accepts the structured content.
				validate(t, spec.OutputSchema, sj)
			}
			golden(t, filepath.Join("wrap", tt.name+".json"), schemaJSON)
		})
	}
}

func validate(t *testing.T, s *jsonschema.Schema, instance []byte) {
	t.Helper()
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving output schema: %v", err)
	}
	var v any
	if err := json.Unmarshal(instance, &v); err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(v); err != nil {
		t.Errorf("structured content %s does not validate against the output schema: %v", instance, err)
	}
}

func texts(r *adapter.Result) []string {
	var out []string
	for _, c := range r.Content {
		tc, ok := c.(*adapter.TextContent)
		if !ok {
			out = append(out, "<"+c.ContentType()+">")
			continue
		}
		out = append(out, tc.Text)
	}
	return out
}

func normJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return v
}

// TestOutputSchemaRefs checks the $defs layout of a wrapped list: items
// reference the element's definition instead of inlining it.
func TestOutputSchemaRefs(t *testing.T) {
	spec := adapter.MustTool("points", "", func(context.Context, empty) ([]Point, error) { return nil, nil }, nil)
	res := spec.OutputSchema.Properties["result"]
	if res == nil || res.Items == nil || res.Items.Ref != "#/$defs/Point" {
		t.Fatalf("result schema = %+v, want items {$ref: #/$defs/Point}", res)
	}
	def := spec.OutputSchema.Defs["Point"]
	if def == nil || def.Properties["x"] == nil {
		t.Fatalf("$defs/Point = %+v, want Point's object schema", def)
	}
}

// TestOutputValidatedByCall proves Spec.Call checks results: the same
// handler passes with its inferred schema and fails under an output schema
// it does not meet, naming the field.
func TestOutputValidatedByCall(t *testing.T) {
	fn := func(context.Context, empty) (Weather, error) { return Weather{City: "Paris"}, nil }
	strict := &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{"city": {Type: "string"}, "humidity": {Type: "integer", Minimum: jsonschema.Ptr(1.0)}},
		Required:   []string{"city", "humidity"},
	}
	spec, err := adapter.NewTool("weather", "", fn, &adapter.ToolOptions{OutputSchema: strict})
	if err != nil {
		t.Fatal(err)
	}
	_, err = spec.CallDirect(context.Background(), nil)
	var ae *adapter.Error
	if !errors.As(err, &ae) || ae.Kind != adapter.KindToolError {
		t.Fatalf("Call error = %v, want a tool_error", err)
	}
	if !strings.Contains(ae.Message, "humidity") {
		t.Errorf("message %q does not name the field humidity", ae.Message)
	}
	if _, err := adapter.MustTool("weather", "", fn, nil).CallDirect(context.Background(), nil); err != nil {
		t.Errorf("with the inferred schema: %v", err)
	}
}

func TestOutputText(t *testing.T) {
	t.Run("string", func(t *testing.T) {
		spec := adapter.MustTool("greet", "", func(context.Context, empty) (string, error) { return "hi there", nil },
			&adapter.ToolOptions{Output: adapter.OutputText})
		if spec.OutputSchema != nil {
			t.Errorf("OutputSchema = %v, want nil for OutputText", spec.OutputSchema)
		}
		res, err := spec.CallDirect(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"hi there"}, texts(res)); diff != "" {
			t.Errorf("text (-want +got):\n%s", diff)
		}
		if res.Structured != nil {
			t.Errorf("Structured = %v, want nil for OutputText", res.Structured)
		}
	})
	t.Run("struct", func(t *testing.T) {
		spec := adapter.MustTool("w", "", func(context.Context, empty) (Weather, error) { return Weather{City: "Rome"}, nil },
			&adapter.ToolOptions{Output: adapter.OutputText})
		res, err := spec.CallDirect(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{`{"city":"Rome","temp_c":0,"humidity":0}`}, texts(res)); diff != "" {
			t.Errorf("text (-want +got):\n%s", diff)
		}
		if res.Structured != nil || spec.OutputSchema != nil {
			t.Errorf("Structured = %v, OutputSchema = %v; want both nil", res.Structured, spec.OutputSchema)
		}
	})
	t.Run("no schema needed", func(t *testing.T) {
		// Types with no usable schema are fine when nothing is structured.
		spec, err := adapter.NewTool("ch", "", func(context.Context, empty) (struct{ a int }, error) { return struct{ a int }{}, nil },
			&adapter.ToolOptions{Output: adapter.OutputText})
		if err != nil {
			t.Fatalf("NewTool: %v", err)
		}
		res, err := spec.CallDirect(context.Background(), nil)
		if err != nil || res.Text() != "{}" {
			t.Errorf("Call = %v, %v; want text {}", res.Text(), err)
		}
	})
	t.Run("raw", func(t *testing.T) {
		spec, err := adapter.NewRawTool("raw", "", &jsonschema.Schema{Type: "object"},
			func(context.Context, json.RawMessage) (*adapter.Result, error) { return adapter.TextResult("x"), nil },
			&adapter.ToolOptions{Output: adapter.OutputText, OutputSchema: &jsonschema.Schema{Type: "object"}})
		if err != nil {
			t.Fatal(err)
		}
		if spec.OutputSchema != nil {
			t.Errorf("OutputText kept the raw output schema")
		}
	})
}

func TestOutputRequired(t *testing.T) {
	req := &adapter.ToolOptions{Output: adapter.OutputRequired}
	if _, err := adapter.NewTool("a", "", func(context.Context, empty) (any, error) { return 1, nil }, req); err == nil ||
		!strings.Contains(err.Error(), "required") {
		t.Errorf("Out=any with OutputRequired: err = %v, want a construction error", err)
	}
	if _, err := adapter.NewRawTool("r", "", &jsonschema.Schema{Type: "object"},
		func(context.Context, json.RawMessage) (*adapter.Result, error) { return nil, nil }, req); err == nil {
		t.Error("raw tool without output schema under OutputRequired: want an error")
	}
	spec, err := adapter.NewTool("w", "", func(context.Context, empty) (Weather, error) { return Weather{}, nil }, req)
	if err != nil || spec.OutputSchema == nil {
		t.Errorf("struct Out with OutputRequired: spec schema %v, err %v; want a schema", spec.OutputSchema, err)
	}
	// Out=any without a schema is structured but unchecked under OutputAuto.
	spec, err = adapter.NewTool("any", "", func(context.Context, empty) (any, error) { return 1, nil }, nil)
	if err != nil || spec.OutputSchema != nil {
		t.Errorf("Out=any: schema %v, err %v; want no schema and no error", spec.OutputSchema, err)
	}
}

// TestNoUsableSchema: types with no JSON schema fail construction with an
// error naming the type, instead of degrading to text silently.
func TestNoUsableSchema(t *testing.T) {
	tests := []struct {
		name  string
		build func(string) (*adapter.Spec, error)
		want  string
	}{
		{"no exported fields", typed(struct{ hidden int }{}, nil), "no exported fields"},
		{"empty struct", typed(struct{}{}, nil), "no exported fields"},
		{"pointer to fieldless", typed(&struct{ x int }{}, nil), "no exported fields"},
		{"list of fieldless", typed([]struct{ x int }{}, nil), "no exported fields"},
		{"named fieldless elem", typed([]empty{}, nil), "no exported fields"},
		{"chan", typed(make(chan int), nil), "chan int"},
		{"func", typed(func() {}, nil), "func()"},
		{"complex", typed(complex(1, 2), nil), "complex128"},
		{"map with bool keys", typed(map[bool]int{}, nil), "map keys"},
		{"struct with chan field", typed(struct{ C chan int }{}, nil), "chan int"},
		{"OutputRequired too", typed(func() {}, &adapter.ToolOptions{Output: adapter.OutputRequired}), "func()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := tt.build("bad")
			if err == nil {
				t.Fatalf("NewTool succeeded with output schema %v; want an error", spec.OutputSchema)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), `"bad"`) {
				t.Errorf("error %q should name the tool and contain %q", err, tt.want)
			}
		})
	}
}

func TestTypedInput(t *testing.T) {
	type args struct {
		City string `json:"city" jsonschema:"the city"`
		Days int    `json:"days,omitempty"`
		Blob []byte `json:"blob,omitempty"`
	}
	var got args
	spec := adapter.MustTool("in", "", func(_ context.Context, a args) (string, error) { got = a; return "ok", nil }, nil)
	if _, err := spec.CallDirect(context.Background(), json.RawMessage(`{"city":"Lyon","blob":"AQI="}`)); err != nil {
		t.Fatalf("Call: %v", err)
	}
	if diff := cmp.Diff(args{City: "Lyon", Blob: []byte{1, 2}}, got); diff != "" {
		t.Errorf("decoded args (-want +got):\n%s", diff)
	}
	if d := spec.InputSchema.Properties["city"].Description; d != "the city" {
		t.Errorf("city description = %q", d)
	}

	// In = any takes any object, decoded as a map.
	var m any
	anyIn := adapter.MustTool("anyin", "", func(_ context.Context, a any) (int, error) { m = a; return 1, nil }, nil)
	if _, err := anyIn.CallDirect(context.Background(), json.RawMessage(`{"k":[1]}`)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"k": []any{1.0}}, m); diff != "" {
		t.Errorf("In=any (-want +got):\n%s", diff)
	}
	if _, err := anyIn.CallDirect(context.Background(), json.RawMessage(`[1]`)); adapter.KindOf(err) != adapter.KindArgsInvalid {
		t.Errorf("In=any with an array: %v, want args_invalid", err)
	}

	for _, bad := range []func() error{
		func() error {
			_, err := adapter.NewTool("s", "", func(context.Context, string) (int, error) { return 0, nil }, nil)
			return err
		},
		func() error {
			_, err := adapter.NewTool("l", "", func(context.Context, []int) (int, error) { return 0, nil }, nil)
			return err
		},
	} {
		if err := bad(); err == nil || !strings.Contains(err.Error(), "JSON object") {
			t.Errorf("non-object input type: err = %v, want an error about JSON objects", err)
		}
	}
	if _, err := adapter.NewTool[empty, int]("nilfn", "", nil, nil); err == nil {
		t.Error("nil function: want an error")
	}
}

// TestTypedErrors: handler errors keep their kind, plain ones become
// tool errors, and encoding failures are tool errors with model-safe text.
func TestTypedErrors(t *testing.T) {
	plain := adapter.MustTool("p", "", func(context.Context, empty) (int, error) { return 0, errors.New("disk full") }, nil)
	_, err := plain.CallDirect(context.Background(), nil)
	var ae *adapter.Error
	if !errors.As(err, &ae) || ae.Kind != adapter.KindToolError || ae.Message != "disk full" || ae.Tool != "p" {
		t.Errorf("plain error: %#v", err)
	}
	denied := adapter.MustTool("d", "", func(context.Context, empty) (int, error) {
		return 0, adapter.NewError(adapter.KindNotFound, "no such city")
	}, nil)
	if _, err := denied.CallDirect(context.Background(), nil); !errors.Is(err, adapter.ErrNotFound) {
		t.Errorf("typed error: %v, want not_found", err)
	}
	nan := adapter.MustTool("nan", "", func(context.Context, empty) (float64, error) { return math.NaN(), nil }, nil)
	_, err = nan.CallDirect(context.Background(), nil)
	if !errors.As(err, &ae) || ae.Kind != adapter.KindToolError || !strings.Contains(ae.Message, "NaN") {
		t.Errorf("NaN result: %v, want a tool_error mentioning NaN", err)
	}
	// A nil *struct is an optional result that is absent, not an error.
	nilObj := adapter.MustTool("nilobj", "", func(context.Context, empty) (*Weather, error) { return nil, nil }, nil)
	if res, err := nilObj.CallDirect(context.Background(), nil); err != nil || len(res.Content) != 0 {
		t.Errorf("nil *struct: %v, %v; want {\"result\": null} and no content", res, err)
	}
	type strict struct {
		N int8 `json:"n"`
	}
	// The schema bounds int8, so the decode error path is reached only
	// with a schema override; its message must not leak Go types.
	loose := adapter.MustTool("loose", "", func(context.Context, strict) (int, error) { return 0, nil },
		&adapter.ToolOptions{InputSchema: &jsonschema.Schema{Type: "object"}})
	_, err = loose.CallDirect(context.Background(), json.RawMessage(`{"n":"x"}`))
	if !errors.As(err, &ae) || ae.Kind != adapter.KindArgsInvalid || !strings.Contains(ae.Message, "$.n") ||
		strings.Contains(ae.Message, "int8") || strings.Contains(ae.Message, "Go ") {
		t.Errorf("decode error: %v, want args_invalid naming $.n without Go types", err)
	}
}

// TestSchemasCompiledOnce: inference and validator compilation happen at
// construction, not per call. Editing a spec's schema in place after
// construction changes nothing (the compiled validator is kept), and a
// call allocates a fraction of what a construction does.
func TestSchemasCompiledOnce(t *testing.T) {
	fn := func(context.Context, struct {
		City string `json:"city"`
	}) (Weather, error) {
		return Weather{City: "Paris"}, nil
	}
	spec := adapter.MustTool("w", "", fn, nil)
	spec.OutputSchema.Required = append(spec.OutputSchema.Required, "never_set")
	spec.InputSchema.Required = append(spec.InputSchema.Required, "never_sent")
	if _, err := spec.CallDirect(context.Background(), json.RawMessage(`{"city":"Paris"}`)); err != nil {
		t.Fatalf("in-place schema edits reached a call, so schemas are compiled per call: %v", err)
	}
	// Replacing the schema (a new pointer) is seen: the cache is keyed by it.
	strict := *spec.OutputSchema
	spec.OutputSchema = &strict
	spec.InputSchema.Required = []string{"city"} // recompiled too: undo the impossible edit
	if _, err := spec.CallDirect(context.Background(), json.RawMessage(`{"city":"Paris"}`)); err == nil || !strings.Contains(err.Error(), "never_set") {
		t.Errorf("a replaced output schema was not compiled: %v", err)
	}

	fresh := adapter.MustTool("w", "", fn, nil)
	callAllocs := testing.AllocsPerRun(50, func() {
		if _, err := fresh.CallDirect(context.Background(), json.RawMessage(`{"city":"Paris"}`)); err != nil {
			t.Fatal(err)
		}
	})
	newAllocs := testing.AllocsPerRun(20, func() { adapter.MustTool("w", "", fn, nil) })
	if callAllocs*5 > newAllocs {
		t.Errorf("a call allocates %.0f times, a construction %.0f: calls should not redo schema work", callAllocs, newAllocs)
	}
	t.Logf("allocations: construction %.0f, call %.0f", newAllocs, callAllocs)
}

// TestStructuredReplaced: a guard that replaces a typed result's Structured
// must not have the old encoding sent on (StructuredJSON caches it).
func TestStructuredReplaced(t *testing.T) {
	tests := []struct {
		name    string
		spec    *adapter.Spec
		replace any
		want    string
	}{
		{"struct", adapter.MustTool("s", "", func(context.Context, empty) (Weather, error) { return Weather{City: "Paris", Humidity: 1}, nil }, nil),
			Weather{City: "[redacted]"}, `{"city":"[redacted]","temp_c":0,"humidity":0}`},
		{"pointer", adapter.MustTool("p", "", func(context.Context, empty) (*Weather, error) { return &Weather{City: "Paris"}, nil }, nil),
			&Weather{City: "[redacted]"}, `{"city":"[redacted]","temp_c":0,"humidity":0}`},
		{"wrapped", adapter.MustTool("w", "", func(context.Context, empty) (string, error) { return "secret", nil }, nil),
			map[string]any{"result": "[redacted]"}, `{"result":"[redacted]"}`},
		{"list", adapter.MustTool("l", "", func(context.Context, empty) ([]int, error) { return []int{1, 2}, nil }, nil),
			map[string]any{"result": []int{}}, `{"result":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.spec.CallDirect(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			before, _ := res.StructuredJSON()
			again, _ := res.StructuredJSON()
			if string(before) != string(again) {
				t.Fatalf("unchanged result encodes differently: %s vs %s", before, again)
			}
			res.Structured = tt.replace
			got, err := res.StructuredJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("after replacing Structured: %s, want %s (was %s)", got, tt.want, before)
			}
		})
	}
}
