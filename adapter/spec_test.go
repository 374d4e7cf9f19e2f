package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/runsync"
)

func rawEcho(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
	return adapter.TextResult(string(args)), nil
}

var objectSchema = &jsonschema.Schema{Type: "object"}

func TestValidateName(t *testing.T) {
	tests := []struct {
		name    string
		wantErr string // "" for a valid name
	}{
		{"get_weather", ""},
		{"A-b_9", ""},
		{strings.Repeat("x", 64), ""},
		{"", "empty tool name"},
		{strings.Repeat("x", 65), "65 characters long; the limit is 64"},
		{"fs.read", `invalid character '.'`},
		{"get weather", `invalid character ' '`},
		{"météo", `invalid character 'é'`},
		{"tool/x", `invalid character '/'`},
		{"a\x00", `invalid character '\x00'`},
		{strings.Repeat("é", 40), "40 characters long"[:0] + "invalid character 'é'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := adapter.ValidateName(tt.name)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ValidateName(%q) = %v, want nil", tt.name, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ValidateName(%q) = %v, want an error containing %q", tt.name, err, tt.wantErr)
			}
			// Registration applies the same rule, for both constructors.
			if _, err := adapter.NewRawTool(tt.name, "", objectSchema, rawEcho, nil); err == nil {
				t.Errorf("NewRawTool(%q) succeeded", tt.name)
			}
			if _, err := adapter.NewTool(tt.name, "", func(context.Context, empty) (int, error) { return 0, nil }, nil); err == nil {
				t.Errorf("NewTool(%q) succeeded", tt.name)
			}
			if err := (&adapter.Spec{Name: tt.name, InputSchema: objectSchema, Handler: rawEcho}).Check(); err == nil {
				t.Errorf("Spec{Name: %q}.Check() succeeded", tt.name)
			}
		})
	}
}

func TestSchemaErrorsAtConstruction(t *testing.T) {
	tests := []struct {
		name string
		in   *jsonschema.Schema
		opts *adapter.ToolOptions
		h    adapter.Handler
		want string
	}{
		{"input not object", &jsonschema.Schema{Type: "string"}, nil, rawEcho, `input schema must have type "object", got "string"`},
		{"input untyped", &jsonschema.Schema{}, nil, rawEcho, `input schema must have type "object", got no type`},
		{"input type list", &jsonschema.Schema{Types: []string{"object", "null"}}, nil, rawEcho, `got ["object" "null"]`},
		{"input missing", nil, nil, rawEcho, "no input schema"},
		{"input bad ref", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Ref: "#/$defs/nope"}}}, nil, rawEcho, "input schema"},
		{"input bad default", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Type: "integer", Default: json.RawMessage(`"x"`)}}}, nil, rawEcho, "input schema"},
		{"output not object", objectSchema, &adapter.ToolOptions{OutputSchema: &jsonschema.Schema{Type: "array"}}, rawEcho, `output schema must have type "object", got "array"`},
		{"output bad pattern", objectSchema, &adapter.ToolOptions{OutputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Pattern: "("}}}}, rawEcho, "output schema"},
		{"nil handler", objectSchema, nil, nil, "has no handler"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := adapter.NewRawTool("t", "", tt.in, tt.h, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewRawTool: err = %v, want one containing %q", err, tt.want)
			}
			defer func() {
				if recover() == nil {
					t.Error("MustRawTool did not panic")
				}
			}()
			adapter.MustRawTool("t", "", tt.in, tt.h, tt.opts)
		})
	}
	// A typed tool whose input schema override is not an object.
	if _, err := adapter.NewTool("t", "", func(context.Context, empty) (int, error) { return 0, nil },
		&adapter.ToolOptions{InputSchema: &jsonschema.Schema{Type: "array"}}); err == nil {
		t.Error("typed tool with an array input schema: want an error")
	}
}

func TestMustToolPanics(t *testing.T) {
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok || !strings.Contains(err.Error(), "bad.name") {
			t.Errorf("MustTool panicked with %v, want the construction error", r)
		}
	}()
	adapter.MustTool("bad.name", "", func(context.Context, empty) (int, error) { return 0, nil }, nil)
	t.Error("MustTool did not panic")
}

// TestRawOutputValidation: a raw tool forwarding upstream JSON that misses
// a required field fails as a tool error naming the field, on every path
// Structured can take (generic map, raw JSON, a Go struct).
func TestRawOutputValidation(t *testing.T) {
	out := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"temp_c":   {Type: "number"},
			"humidity": {Type: "integer", Minimum: jsonschema.Ptr(0.0), Maximum: jsonschema.Ptr(100.0)},
		},
		Required: []string{"temp_c", "humidity"},
	}
	upstream := `{"temp_c": 21.5}`
	tests := []struct {
		name       string
		structured func() any
		want       string
	}{
		{"generic map", func() any { var m map[string]any; _ = json.Unmarshal([]byte(upstream), &m); return m }, "humidity"},
		{"raw JSON", func() any { return json.RawMessage(upstream) }, "humidity"},
		{"struct", func() any {
			return struct {
				TempC float64 `json:"temp_c"`
			}{21.5}
		}, "humidity"},
		{"out of range", func() any { return json.RawMessage(`{"temp_c":1,"humidity":140}`) }, "$.humidity"},
		{"wrong type", func() any { return map[string]any{"temp_c": "warm", "humidity": 3} }, "$.temp_c"},
		{"not an object", func() any { return json.RawMessage(`[1]`) }, "array"},
		{"missing", func() any { return nil }, "no structured content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := adapter.NewRawTool("weather", "", objectSchema, func(context.Context, json.RawMessage) (*adapter.Result, error) {
				return &adapter.Result{Content: []adapter.Content{&adapter.TextContent{Text: upstream}}, Structured: tt.structured()}, nil
			}, &adapter.ToolOptions{OutputSchema: out})
			if err != nil {
				t.Fatal(err)
			}
			res, err := spec.CallDirect(context.Background(), json.RawMessage(`{}`))
			if res != nil {
				t.Errorf("a result leaked past output validation: %+v", res)
			}
			var ae *adapter.Error
			if !errors.As(err, &ae) || ae.Kind != adapter.KindToolError || ae.Tool != "weather" {
				t.Fatalf("err = %#v, want a tool_error of tool weather", err)
			}
			if !strings.Contains(ae.Message, tt.want) {
				t.Errorf("message %q does not name %q", ae.Message, tt.want)
			}
		})
	}
	ok, _ := adapter.NewRawTool("weather", "", objectSchema, func(context.Context, json.RawMessage) (*adapter.Result, error) {
		return &adapter.Result{Structured: json.RawMessage(`{"temp_c":21.5,"humidity":40}`)}, nil
	}, &adapter.ToolOptions{OutputSchema: out})
	if _, err := ok.CallDirect(context.Background(), nil); err != nil {
		t.Errorf("valid upstream JSON: %v", err)
	}
}

// TestArgsValidation: argument errors are args_invalid and name the JSON
// path of the offending value.
func TestArgsValidation(t *testing.T) {
	type loc struct {
		Lat float64 `json:"lat"`
		Lon float64 `json:"lon"`
	}
	type args struct {
		City  string         `json:"city"`
		Loc   *loc           `json:"loc,omitempty"`
		Days  int            `json:"days,omitempty"`
		Locs  []loc          `json:"locs,omitempty"`
		Tags  map[string]int `json:"tags,omitempty"`
		Trips [][]loc        `json:"trips,omitempty"`
	}
	spec := adapter.MustTool("forecast", "", func(context.Context, args) (string, error) { return "ok", nil }, nil)
	tests := []struct {
		args string
		want string
	}{
		{`{}`, `at $: required: missing properties: ["city"]`},
		{``, `at $: required: missing properties: ["city"]`},
		{`null`, `at $: required: missing properties: ["city"]`},
		{`{"city":1}`, `at $.city: type`},
		{`{"city":"x","loc":{"lat":"a","lon":1}}`, `at $.loc.lat: type`},
		{`{"city":"x","locs":[{"lat":1}]}`, `at $.locs[0]: required: missing properties: ["lon"]`},
		{`{"city":"x","locs":[{"lat":1,"lon":2},{"lat":3,"lon":4},{"lat":"five","lon":6}]}`, `at $.locs[2].lat: type`},
		{`{"city":"x","locs":[{"lat":1,"lon":2},{"lat":1,"lon":2},{"lat":1}]}`, `at $.locs[2]: required`},
		{`{"city":"x","trips":[[{"lat":1,"lon":2}],[{"lat":1,"lon":2},{"lon":2}]]}`, `at $.trips[1][1]: required`},
		{`{"city":"x","tags":{"a":"b"}}`, `at $.tags.*: type`},
		{`{"city":"x","days":1.5}`, `at $.days: type`},
		{`{"city":"x","extra":1}`, `unexpected additional properties ["extra"]`},
		{`[1]`, `must be a JSON object, got an array`},
		{`"x"`, `must be a JSON object, got a string`},
		{`{`, `not valid JSON`},
		{`{"city":"x"} trailing`, `not valid JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			_, err := spec.CallDirect(context.Background(), json.RawMessage(tt.args))
			var ae *adapter.Error
			if !errors.As(err, &ae) || ae.Kind != adapter.KindArgsInvalid || ae.Tool != "forecast" {
				t.Fatalf("err = %v, want args_invalid for tool forecast", err)
			}
			if !strings.Contains(ae.Message, tt.want) {
				t.Errorf("message %q does not contain %q", ae.Message, tt.want)
			}
		})
	}
	big := make([]byte, adapter.DefaultMaxArgBytes+1)
	if _, err := spec.CallDirect(context.Background(), big); !errors.Is(err, adapter.ErrArgsInvalid) || !strings.Contains(err.Error(), "limit") {
		t.Errorf("oversized args: %v, want args_invalid about the limit", err)
	}
}

// TestDefaultsApplied: schema defaults reach the handler.
func TestDefaultsApplied(t *testing.T) {
	in := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"unit": {Type: "string", Default: json.RawMessage(`"celsius"`)},
		"city": {Type: "string"},
	}}
	spec := adapter.MustRawTool("d", "", in, rawEcho, nil)
	res, err := spec.CallDirect(context.Background(), json.RawMessage(`{"city":"Nice"}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"city": "Nice", "unit": "celsius"}, normJSON(t, []byte(res.Text()))); diff != "" {
		t.Errorf("handler args (-want +got):\n%s", diff)
	}
	// Without defaults the handler gets the canonical form of the value
	// (numbers keep their text).
	plain := adapter.MustRawTool("p", "", objectSchema, rawEcho, nil)
	res, err = plain.CallDirect(context.Background(), json.RawMessage(`{"b": 1.50, "a": 2}`))
	if err != nil || res.Text() != `{"a":2,"b":1.50}` {
		t.Errorf("args without defaults: %q, %v; want the canonical form", res.Text(), err)
	}
}

func TestSpecLiteral(t *testing.T) {
	// A literal Spec is checked and compiled on first use, concurrently
	// safe (run with -race).
	spec := &adapter.Spec{Name: "lit", InputSchema: objectSchema, Handler: rawEcho}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := spec.CallDirect(context.Background(), json.RawMessage(`{"a":1}`)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()

	// Swapping a schema recompiles it.
	spec2 := &adapter.Spec{Name: "lit2", InputSchema: objectSchema, Handler: rawEcho}
	if err := spec2.Check(); err != nil {
		t.Fatal(err)
	}
	spec2.InputSchema = &jsonschema.Schema{Type: "object", Required: []string{"x"}}
	if _, err := spec2.CallDirect(context.Background(), json.RawMessage(`{}`)); !errors.Is(err, adapter.ErrArgsInvalid) {
		t.Errorf("after swapping the input schema: %v, want args_invalid", err)
	}

	bad := &adapter.Spec{Name: "bad name", InputSchema: objectSchema, Handler: rawEcho}
	if _, err := bad.CallDirect(context.Background(), nil); adapter.KindOf(err) != adapter.KindInternal {
		t.Errorf("calling an invalid spec: %v, want internal", err)
	}
}

func TestCallRecoversPanic(t *testing.T) {
	spec := adapter.MustRawTool("boom", "", objectSchema, func(context.Context, json.RawMessage) (*adapter.Result, error) {
		panic("secret internal state 0xdeadbeef")
	}, nil)
	_, err := spec.CallDirect(context.Background(), nil)
	var ae *adapter.Error
	if !errors.As(err, &ae) || ae.Kind != adapter.KindToolError {
		t.Fatalf("err = %v, want a tool_error", err)
	}
	p, _ := adapter.ModelPayload(err)
	if strings.Contains(p, "0xdeadbeef") || strings.Contains(p, "goroutine") {
		t.Errorf("payload leaks the panic: %s", p)
	}
	if !strings.Contains(ae.Err.Error(), "0xdeadbeef") {
		t.Errorf("cause %v should keep the panic value for programs", ae.Err)
	}
}

func TestAnnotations(t *testing.T) {
	f, tr := false, true
	tests := []struct {
		a                  adapter.Annotations
		destructive, world bool
	}{
		{adapter.Annotations{}, true, true},
		{adapter.Annotations{ReadOnly: true}, false, true},
		{adapter.Annotations{ReadOnly: true, Destructive: &tr}, false, true},
		{adapter.Annotations{Destructive: &f, OpenWorld: &f}, false, false},
		{adapter.Annotations{Destructive: &tr, OpenWorld: &tr}, true, true},
	}
	for i, tt := range tests {
		if got := tt.a.IsDestructive(); got != tt.destructive {
			t.Errorf("%d: IsDestructive = %v, want %v", i, got, tt.destructive)
		}
		if got := tt.a.IsOpenWorld(); got != tt.world {
			t.Errorf("%d: IsOpenWorld = %v, want %v", i, got, tt.world)
		}
	}
}

func TestSpecOptionsAndClone(t *testing.T) {
	opts := &adapter.ToolOptions{Title: "Weather", Targets: []string{adapter.TargetMCP}, Tags: []string{"geo"},
		Source: adapter.Source{Server: "wx", RemoteName: "get.weather"}}
	spec := adapter.MustRawTool("wx_get_weather", "desc", objectSchema, rawEcho, opts)
	opts.Tags[0] = "mutated" // the spec keeps its own copy
	if !spec.HasTag("geo") || spec.HasTag("mutated") {
		t.Errorf("Tags = %v, want [geo]", spec.Tags)
	}
	if !spec.HasTarget(adapter.TargetMCP) || spec.HasTarget(adapter.TargetEino) {
		t.Errorf("HasTarget wrong for targets %v", spec.Targets)
	}
	if all := adapter.MustRawTool("all", "", objectSchema, rawEcho, nil); !all.HasTarget(adapter.TargetGenkit) {
		t.Error("a spec with no targets should be exported to all")
	}
	if got := spec.String(); got != "wx_get_weather (mcp:wx)" {
		t.Errorf("String() = %q", got)
	}
	c := spec.Clone()
	c.Name = "renamed"
	c.Tags[0] = "other"
	if spec.Name != "wx_get_weather" || spec.Tags[0] != "geo" {
		t.Errorf("Clone shares state with the original: %v %v", spec.Name, spec.Tags)
	}
	if err := c.Check(); err != nil {
		t.Errorf("clone: %v", err)
	}
	if res, err := c.CallDirect(context.Background(), json.RawMessage(`{}`)); err != nil || res.Text() != "{}" {
		t.Errorf("clone call: %v %v", res, err)
	}
}

func TestResultChannels(t *testing.T) {
	r := &adapter.Result{Content: []adapter.Content{
		&adapter.TextContent{Text: "one"},
		&adapter.ImageContent{Data: []byte{1}, MIMEType: "image/png"},
		&adapter.TextContent{Text: "two"},
	}}
	if got := r.Text(); got != "one\n[image (image/png, 1 byte)]\ntwo" {
		t.Errorf("Text() = %q, want the blocks as Render writes them, joined by newlines", got)
	}
	if got := adapter.TextResult("solo").Text(); got != "solo" {
		t.Errorf("Text() = %q", got)
	}
	var nilRes *adapter.Result
	if nilRes.Text() != "" {
		t.Error("nil result has text")
	}
	if b, err := nilRes.StructuredJSON(); b != nil || err != nil {
		t.Errorf("nil result StructuredJSON = %s, %v", b, err)
	}
	raw := &adapter.Result{Structured: json.RawMessage(`{"a":1}`)}
	if b, _ := raw.StructuredJSON(); string(b) != `{"a":1}` {
		t.Errorf("raw StructuredJSON = %s", b)
	}
	m := &adapter.Result{Structured: map[string]any{"b": []int{1}}}
	if b, _ := m.StructuredJSON(); string(b) != `{"b":[1]}` {
		t.Errorf("map StructuredJSON = %s", b)
	}
	types := []string{}
	for _, c := range []adapter.Content{&adapter.TextContent{}, &adapter.ImageContent{}, &adapter.AudioContent{}, &adapter.ResourceLink{}, &adapter.EmbeddedResource{}} {
		types = append(types, c.ContentType())
	}
	if diff := cmp.Diff([]string{"text", "image", "audio", "resource_link", "resource"}, types); diff != "" {
		t.Errorf("content types (-want +got):\n%s", diff)
	}
}

// FuzzCallArgs: whatever the model sends, a call returns a result or an
// args_invalid error — never a panic, never another kind.
func FuzzCallArgs(f *testing.F) {
	type args struct {
		City string            `json:"city"`
		Days int8              `json:"days,omitempty"`
		Tags map[string]string `json:"tags,omitempty"`
		Blob []byte            `json:"blob,omitempty"`
	}
	spec := adapter.MustTool("fz", "", func(_ context.Context, a args) ([]string, error) { return []string{a.City}, nil }, nil)
	for _, s := range []string{`{"city":"x"}`, `{"city":"x","days":300}`, `{"city":"x","blob":"!!"}`, `[]`, `null`, ``, `{"city":"\ud800"}`, `{"tags":{"a":null}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := spec.CallDirect(context.Background(), b)
		if err != nil {
			if k := adapter.KindOf(err); k != adapter.KindArgsInvalid {
				t.Fatalf("args %q: kind %s (%v), want args_invalid", b, k, err)
			}
			if _, ok := adapter.ModelPayload(err); !ok {
				t.Fatalf("args %q: no model payload for %v", b, err)
			}
			return
		}
		if len(res.Content) != 1 {
			t.Fatalf("args %q: %d content blocks", b, len(res.Content))
		}
	})
}

func TestArgsErrorsHideGoTypes(t *testing.T) {
	spec := adapter.MustRawTool("n", "", objectSchema, rawEcho, nil)
	for _, args := range []string{`{"a": 1e400}`, `{"a": `, `{"a": 1}}`} {
		_, err := spec.CallDirect(context.Background(), json.RawMessage(args))
		var ae *adapter.Error
		if !errors.As(err, &ae) || ae.Kind != adapter.KindArgsInvalid {
			t.Fatalf("%s: %v, want args_invalid", args, err)
		}
		if strings.Contains(ae.Message, "Go ") || strings.Contains(ae.Message, "float64") {
			t.Errorf("%s: message %q shows Go types", args, ae.Message)
		}
	}
}

func TestHandlerErrorKinds(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		kind      adapter.Kind
		msg       string
		forbidden string
	}{
		{"plain", errors.New("city not found"), adapter.KindToolError, "city not found", ""},
		{"typed", adapter.NewError(adapter.KindApprovalDenied, "no"), adapter.KindApprovalDenied, "no", ""},
		{"deadline", fmt.Errorf("upstream: %w", context.DeadlineExceeded), adapter.KindTimeout, "deadline", ""},
		{"inner panic", fmt.Errorf("worker: %w", &runsync.PanicError{Value: "runtime error: index out of range [3] with length 2"}),
			adapter.KindToolError, "panicked", "index out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := adapter.MustRawTool("h", "", objectSchema, func(context.Context, json.RawMessage) (*adapter.Result, error) { return nil, tt.err }, nil)
			_, err := spec.CallDirect(context.Background(), nil)
			var ae *adapter.Error
			if !errors.As(err, &ae) || ae.Kind != tt.kind || ae.Tool != "h" {
				t.Fatalf("err = %v, want kind %s for tool h", err, tt.kind)
			}
			if !strings.Contains(ae.Message, tt.msg) {
				t.Errorf("message %q lacks %q", ae.Message, tt.msg)
			}
			if p, _ := adapter.ModelPayload(err); tt.forbidden != "" && strings.Contains(p, tt.forbidden) {
				t.Errorf("payload %s shows %q", p, tt.forbidden)
			}
			// A handler's *Error is copied to carry the tool name; other
			// errors stay in the chain as the cause.
			if _, typed := tt.err.(*adapter.Error); !typed && !errors.Is(err, tt.err) {
				t.Errorf("the cause %v is not in the chain", tt.err)
			}
		})
	}
	nilRes := adapter.MustRawTool("n", "", objectSchema, func(context.Context, json.RawMessage) (*adapter.Result, error) { return nil, nil }, nil)
	if _, err := nilRes.CallDirect(context.Background(), nil); adapter.KindOf(err) != adapter.KindToolError {
		t.Errorf("nil result: %v, want tool_error", err)
	}
}
