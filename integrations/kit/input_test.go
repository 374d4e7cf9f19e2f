package kit_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

const schAdd = `{"type":"object","properties":{"a":{"type":"integer","description":"first addend"},"b":{"type":"integer","description":"second addend"}},"required":["a","b"]}`

// nestArg1 wraps s in n {"__arg1": "..."} wrappers.
func nestArg1(s string, n int) string {
	for range n {
		b, _ := json.Marshal(map[string]string{"__arg1": s})
		s = string(b)
	}
	return s
}

// TestParseInput checks the forms ParseInput reads at the level of the
// arguments it returns; the integrations check the same forms end to end.
func TestParseInput(t *testing.T) {
	shapes := map[string]*kit.Shape{
		"add":    kit.NewShape(schemaOf(t, schAdd)),
		"search": kit.NewShape(schemaOf(t, schSearch)),
		"count":  kit.NewShape(schemaOf(t, schCount)),
		"ping":   kit.NewShape(schemaOf(t, schNoArgs)),
		"raw1":   kit.NewShape(schemaOf(t, schArg1)),
		"none":   nil,
	}
	addShape := `{"a": integer (first addend), "b": integer (second addend)}`
	tests := []struct {
		name, tool, input string
		want              string   // the arguments, when the input is read
		wantMsg           []string // substrings of the error message otherwise
	}{
		{name: "object", tool: "add", input: `{"a":2,"b":3}`, want: `{"a":2,"b":3}`},
		{name: "white space", tool: "add", input: " \n\t{\"a\":2,\"b\":3}\n ", want: `{"a":2,"b":3}`},
		{name: "json fence", tool: "add", input: "```json\n{\"a\":2,\"b\":3}\n```", want: `{"a":2,"b":3}`},
		{name: "bare fence", tool: "add", input: "```\n{\"a\":2,\"b\":3}```", want: `{"a":2,"b":3}`},
		{name: "one-line fence", tool: "add", input: "```{\"a\":2,\"b\":3}```", want: `{"a":2,"b":3}`},
		{name: "backticks", tool: "add", input: "`{\"a\":2,\"b\":3}`", want: `{"a":2,"b":3}`},
		{name: "trailing observation", tool: "add", input: "{\"a\":2,\"b\":3}\nObservation:", want: `{"a":2,"b":3}`},
		{name: "arg1 string holding object", tool: "add", input: `{"__arg1":"{\"a\":2,\"b\":3}"}`, want: `{"a":2,"b":3}`},
		{name: "arg1 object", tool: "add", input: `{"__arg1": {"a":2,"b":3} }`, want: `{"a":2,"b":3}`},
		{name: "arg1 fenced", tool: "add", input: `{"__arg1":"` + "```json\\n{\\\"a\\\":1,\\\"b\\\":1}\\n```" + `"}`, want: `{"a":1,"b":1}`},
		{name: "arg1 nested 4 deep", tool: "add", input: nestArg1(`{"a":1,"b":1}`, 4), want: `{"a":1,"b":1}`},
		{name: "bare string", tool: "search", input: "weather in Paris", want: `{"query":"weather in Paris"}`},
		{name: "quoted string", tool: "search", input: `"Paris"`, want: `{"query":"Paris"}`},
		{name: "quoted object", tool: "search", input: `"{\"query\":\"Rome\"}"`, want: `{"query":"Rome"}`},
		{name: "arg1 bare string", tool: "search", input: `{"__arg1":"Paris"}`, want: `{"query":"Paris"}`},
		{name: "bare number", tool: "count", input: "7", want: `{"n":7}`},
		{name: "arg1 number", tool: "count", input: `{"__arg1":7}`, want: `{"n":7}`},
		{name: "arg1 number as text", tool: "count", input: `{"__arg1":"7"}`, want: `{"n":7}`},
		{name: "empty, no required", tool: "ping", input: "  ", want: `{}`},
		{name: "null, no required", tool: "ping", input: "null", want: `{}`},
		{name: "nil shape", tool: "none", input: "", want: `{}`},
		{name: "declared __arg1 kept", tool: "raw1", input: `{"__arg1":"x"}`, want: `{"__arg1":"x"}`},

		{name: "empty, required", tool: "add", input: "", wantMsg: []string{"the input is empty", addShape}},
		{name: "null, required", tool: "add", input: "null", wantMsg: []string{"not a JSON object", addShape}},
		{name: "prose", tool: "add", input: "2 and 3", wantMsg: []string{"not a JSON object", addShape}},
		{name: "broken json", tool: "add", input: `{"a":2,`, wantMsg: []string{"not valid JSON", "at byte", addShape}},
		{name: "array", tool: "add", input: `[1,2]`, wantMsg: []string{"not a JSON object", addShape}},
		{name: "non-number for number", tool: "count", input: "seven", wantMsg: []string{`"seven" is not a JSON value for "n"`, `{"n": integer}`}},
		{name: "string tool shape", tool: "search", input: `{"query":`, wantMsg: []string{"or the query as plain text"}},
		{name: "arg1 nested 5 deep", tool: "add", input: nestArg1(`{"a":1,"b":1}`, 5), wantMsg: []string{"too deeply"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, perr := kit.ParseInput(tt.input, shapes[tt.tool])
			err, _ := perr.(*adapter.Error)
			if tt.wantMsg == nil {
				if perr != nil {
					t.Fatalf("ParseInput(%q) error = %v, want %s", tt.input, perr, tt.want)
				}
				if diff := cmp.Diff(tt.want, string(args)); diff != "" {
					t.Errorf("ParseInput(%q) mismatch (-want +got):\n%s", tt.input, diff)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseInput(%q) = %s, %v; want an *adapter.Error", tt.input, args, perr)
			}
			if err.Kind != adapter.KindArgsInvalid || args != nil {
				t.Errorf("ParseInput(%q) = %s, %s error; want no arguments and args_invalid", tt.input, args, err.Kind)
			}
			for _, sub := range append(tt.wantMsg, "send a JSON object") {
				if !strings.Contains(err.Message, sub) {
					t.Errorf("error message %q does not contain %q", err.Message, sub)
				}
			}
		})
	}
}

func TestShapeExplain(t *testing.T) {
	shape := kit.NewShape(schemaOf(t, schSearch))
	invalid := &adapter.Error{Kind: adapter.KindArgsInvalid, Tool: "search", Message: "missing property query"}
	got := shape.Explain(invalid)
	var e *adapter.Error
	if !errors.As(got, &e) {
		t.Fatalf("Explain returned %T, want *adapter.Error", got)
	}
	want := `missing property query; send a JSON object {"limit"?: integer = 5, "query": string (what to look for)}, or the query as plain text`
	if diff := cmp.Diff(want, e.Message); diff != "" {
		t.Errorf("Explain message (-want +got):\n%s", diff)
	}
	if e.Kind != adapter.KindArgsInvalid || e.Tool != "search" {
		t.Errorf("Explain changed kind/tool to %s/%s", e.Kind, e.Tool)
	}
	if invalid.Message != "missing property query" {
		t.Errorf("Explain modified its argument: %q", invalid.Message)
	}
	other := &adapter.Error{Kind: adapter.KindToolError, Message: "disk full"}
	if got := shape.Explain(other); got != error(other) {
		t.Errorf("Explain(tool_error) = %v, want it unchanged", got)
	}
	if got := shape.Explain(nil); got != nil {
		t.Errorf("Explain(nil) = %v, want nil", got)
	}
}

// FuzzParseInput feeds arbitrary agent text to ParseInput: it must never
// panic, and must return either a JSON object or an args_invalid error
// that shows the shape to send.
func FuzzParseInput(f *testing.F) {
	for _, seed := range []string{
		`{"a":1,"b":2}`, "```json\n{\"a\":1,\"b\":2}\n```", `{"__arg1":"{\"a\":1,\"b\":2}"}`, `{"__arg1":{"a":1}}`,
		`{"__arg1":7}`, `"quoted"`, "plain text", "7", "", "   ", "{", "}", "[1,2]", "null", `{"__arg1":"{\"__arg1\":\"x\"}"}`,
		"`x`", "```", "```\n```", "{\"a\":1}\nObservation:", `{"a":1e400,"b":0}`, "\"\\ud800\"", "\xff\xfe", `{"__arg1":null}`,
	} {
		f.Add(seed)
	}
	var shapes []*kit.Shape
	for _, s := range []string{schAdd, schSearch, schCount, schNoArgs, schArg1} {
		shapes = append(shapes, kit.NewShape(schemaOf(f, s)))
	}
	f.Fuzz(func(t *testing.T, input string) {
		for _, shape := range shapes {
			args, perr := kit.ParseInput(input, shape)
			if perr != nil {
				err, ok := perr.(*adapter.Error)
				if !ok {
					t.Fatalf("ParseInput(%q) for %s: error %T, want *adapter.Error", input, shape, perr)
				}
				if err.Kind != adapter.KindArgsInvalid || !strings.Contains(err.Message, "send a JSON object") {
					t.Fatalf("ParseInput(%q) for %s: bad error %+v", input, shape, err)
				}
				continue
			}
			// Valid JSON, not decoded: 1e400 is valid JSON no float holds.
			if !json.Valid(args) || args[0] != '{' {
				t.Fatalf("ParseInput(%q) for %s = %q, not a JSON object", input, shape, args)
			}
		}
	})
}
