package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// argsRecorder is a raw handler that keeps the arguments it ran with.
type argsRecorder struct {
	mu   sync.Mutex
	last json.RawMessage
}

func (r *argsRecorder) handle(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
	r.mu.Lock()
	r.last = append(json.RawMessage(nil), args...)
	r.mu.Unlock()
	return adapter.TextResult("ok"), nil
}

func (r *argsRecorder) got() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := string(r.last)
	r.last = nil
	return s
}

// nullsSchema has one required property and optional ones of every kind
// the null rule tells apart.
func nullsSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "object",
		Defs: map[string]*jsonschema.Schema{"flag": {Type: "boolean"}},
		Properties: map[string]*jsonschema.Schema{
			"region":   {Type: "string"},
			"query":    {Type: "string"},
			"verbose":  {Type: "boolean", Extra: map[string]any{"x-mcp-header": "Verbose"}},
			"priority": {Type: "integer"},
			"mode":     {Enum: []any{"fast", "slow"}},
			"byref":    {Ref: "#/$defs/flag"},
			"union":    {Types: []string{"boolean", "null"}},
			"anyof":    {AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "null"}}},
			"anything": {},
			"opts": {Type: "object", Properties: map[string]*jsonschema.Schema{
				"deep": {Type: "boolean"},
			}},
		},
		Required:             []string{"region"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

// TestNullForOptionalIsAbsent: at the top level, a null for an optional
// property whose schema refuses null is the property left out; every
// other null is validated as before.
func TestNullForOptionalIsAbsent(t *testing.T) {
	rec := &argsRecorder{}
	ledger := ledger.NewMemory(64)
	tool := adapter.MustRawTool("query", "runs a query", nullsSchema(), rec.handle, &adapter.ToolOptions{Annotations: readOnly})
	e := adapter.NewExecutor(catalog{tool}, &adapter.ExecutorOptions{Ledger: syncLedger{ledger}})
	t.Cleanup(func() { e.Close() })
	for _, tt := range []struct {
		name string
		args string
		want string // the arguments the tool ran with; "" when refused
		msg  string // part of the args_invalid message when refused
	}{
		{"conformance test_custom_headers_null", `{"region":"us-east1","priority":1,"verbose":null,"query":"SELECT 1"}`, `{"priority":1,"query":"SELECT 1","region":"us-east1"}`, ""},
		{"optional boolean", `{"region":"us-east1","priority":1,"verbose":null}`, `{"priority":1,"region":"us-east1"}`, ""},
		{"every optional refusing null", `{"verbose":null,"priority":null,"mode":null,"byref":null,"opts":null,"region":"r"}`, `{"region":"r"}`, ""},
		{"white space", "{ \"region\" : \"r\" ,\n \"verbose\" :\tnull }", `{"region":"r"}`, ""},
		{"no null", `{"region":"r","verbose":true}`, `{"region":"r","verbose":true}`, ""},
		{"null only in a string", `{"region":"a: null"}`, `{"region":"a: null"}`, ""},
		{"union with null kept", `{"region":"r","union":null}`, `{"region":"r","union":null}`, ""},
		{"anyOf with null kept", `{"region":"r","anyof":null}`, `{"anyof":null,"region":"r"}`, ""},
		{"empty schema kept", `{"region":"r","anything":null}`, `{"anything":null,"region":"r"}`, ""},
		{"required null refused", `{"region":null,"verbose":null}`, "", "$.region"},
		{"nested null refused", `{"region":"r","opts":{"deep":null}}`, "", "$.opts.deep"},
		{"undeclared null refused", `{"region":"r","other":null}`, "", "other"},
		{"wrong type still refused", `{"region":"r","verbose":"yes"}`, "", "$.verbose"},
		{"repeated key still refused", `{"region":"r","verbose":null,"verbose":true}`, "", "duplicate key"},
		{"array not an object", `[null]`, "", "must be a JSON object"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := len(ledger.Records())
			_, err := e.Call(context.Background(), "query", json.RawMessage(tt.args))
			got := rec.got()
			if tt.want == "" {
				var ae *adapter.Error
				if !errors.As(err, &ae) || ae.Kind != adapter.KindArgsInvalid || !strings.Contains(ae.Message, tt.msg) {
					t.Fatalf("Call(%s) = %v, want args_invalid naming %q", tt.args, err, tt.msg)
				}
				if got != "" {
					t.Errorf("the tool ran with %s", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Call(%s): %v", tt.args, err)
			}
			if got != tt.want {
				t.Errorf("the tool ran with %s, want %s", got, tt.want)
			}
			recs := ledger.Records()
			if len(recs) != n+1 {
				t.Fatalf("%d ledger records, want %d", len(recs), n+1)
			}
			if r := recs[len(recs)-1]; string(r.Args) != tt.want {
				t.Errorf("the ledger recorded %s, want the arguments the tool ran with, %s", r.Args, tt.want)
			}
		})
	}
}

// TestNullForOptionalRequiredErrorUnchanged: a null for a required
// property is refused with the error it got before the null rule, which
// is the one a schema without optional properties gives.
func TestNullForOptionalRequiredErrorUnchanged(t *testing.T) {
	rec := &argsRecorder{}
	withOptional := adapter.MustRawTool("a", "a", &jsonschema.Schema{Type: "object",
		Properties: map[string]*jsonschema.Schema{"region": {Type: "string"}, "verbose": {Type: "boolean"}},
		Required:   []string{"region"}}, rec.handle, &adapter.ToolOptions{Annotations: readOnly})
	allRequired := adapter.MustRawTool("a", "a", &jsonschema.Schema{Type: "object",
		Properties: map[string]*jsonschema.Schema{"region": {Type: "string"}, "verbose": {Type: "boolean"}},
		Required:   []string{"region", "verbose"}}, rec.handle, &adapter.ToolOptions{Annotations: readOnly})
	args := json.RawMessage(`{"region":null,"verbose":true}`)
	_, errOpt := adapter.NewExecutor(catalog{withOptional}, nil).Call(context.Background(), "a", args)
	_, errReq := adapter.NewExecutor(catalog{allRequired}, nil).Call(context.Background(), "a", args)
	var a, b *adapter.Error
	if !errors.As(errOpt, &a) || !errors.As(errReq, &b) {
		t.Fatalf("errors %v and %v, want *adapter.Error", errOpt, errReq)
	}
	if a.Kind != adapter.KindArgsInvalid || a.Kind != b.Kind || a.Message != b.Message {
		t.Errorf("required null: %s %q, want %s %q", a.Kind, a.Message, b.Kind, b.Message)
	}
}

// TestNullForOptionalDefault: a dropped null lets the property's default
// apply, as if the model had left it out.
func TestNullForOptionalDefault(t *testing.T) {
	rec := &argsRecorder{}
	tool := adapter.MustRawTool("d", "d", &jsonschema.Schema{Type: "object",
		Properties: map[string]*jsonschema.Schema{"level": {Type: "integer", Default: json.RawMessage(`3`)}}},
		rec.handle, &adapter.ToolOptions{Annotations: readOnly})
	if _, err := tool.CallDirect(context.Background(), json.RawMessage(`{"level":null}`)); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.got(), `{"level":3}`; got != want {
		t.Errorf("the tool ran with %s, want %s", got, want)
	}
}

type nullsIn struct {
	Region  string `json:"region"`
	Verbose bool   `json:"verbose,omitempty"`
	Limit   *int   `json:"limit,omitempty"`
}

// TestNullForOptionalTyped: the rule holds for typed tools, whose
// arguments a strict decoder validates: an omitempty field refusing null
// is left at its zero value, a pointer field takes null as nil, and a
// required field refuses null.
func TestNullForOptionalTyped(t *testing.T) {
	var got nullsIn
	tool := adapter.MustTool("typed", "typed", func(_ context.Context, in nullsIn) (string, error) {
		got = in
		return "ok", nil
	}, &adapter.ToolOptions{Annotations: readOnly})
	e := adapter.NewExecutor(catalog{tool}, nil)
	t.Cleanup(func() { e.Close() })
	if _, err := e.Call(context.Background(), "typed", json.RawMessage(`{"region":"r","verbose":null,"limit":null}`)); err != nil {
		t.Fatalf("optional nulls: %v", err)
	}
	if got.Region != "r" || got.Verbose || got.Limit != nil {
		t.Errorf("the tool ran with %+v", got)
	}
	_, err := e.Call(context.Background(), "typed", json.RawMessage(`{"region":null}`))
	var ae *adapter.Error
	if !errors.As(err, &ae) || ae.Kind != adapter.KindArgsInvalid {
		t.Errorf("required null: %v, want args_invalid", err)
	}
}

// TestNullForOptionalAllocs: arguments without a null cost a tool with
// optional properties no allocation more than one whose properties are
// all required (where the rule has nothing to look for).
func TestNullForOptionalAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	noop := adapter.TextResult("ok")
	h := func(context.Context, json.RawMessage) (*adapter.Result, error) { return noop, nil }
	schema := func(required ...string) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
			"region": {Type: "string"}, "verbose": {Type: "boolean"}}, Required: required}
	}
	optional := adapter.MustRawTool("optional", "o", schema("region"), h, &adapter.ToolOptions{Annotations: readOnly})
	required := adapter.MustRawTool("required", "r", schema("region", "verbose"), h, &adapter.ToolOptions{Annotations: readOnly})
	e := adapter.NewExecutor(catalog{optional, required}, nil)
	t.Cleanup(func() { e.Close() })
	args := json.RawMessage(`{"region":"nullable region","verbose":true}`)
	count := func(tool string) float64 {
		if _, err := e.Call(context.Background(), tool, args); err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(200, func() {
			if _, err := e.Call(context.Background(), tool, args); err != nil {
				t.Fatal(err)
			}
		})
	}
	if o, r := count("optional"), count("required"); o > r {
		t.Errorf("%v allocations per call with an optional property, %v with none", o, r)
	}
}
