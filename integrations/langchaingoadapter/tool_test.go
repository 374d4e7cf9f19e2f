package langchaingoadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
	"github.com/agentadapter/agentadapter/registry"
)

const (
	searchSchema = `{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"limit":{"type":"integer","default":5}},"required":["query"]}`
	countSchema  = `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	noArgsSchema = `{"type":"object"}`
	arg1Schema   = `{"type":"object","properties":{"__arg1":{"type":"string"}},"required":["__arg1"]}`
)

func TestCallInputForms(t *testing.T) {
	reg := newRegistry(t,
		addSpec(),
		echoSpec(t, "search", searchSchema),
		echoSpec(t, "count", countSchema),
		echoSpec(t, "ping", noArgsSchema),
		echoSpec(t, "raw1", arg1Schema),
	)
	exec := newExecutor(t, reg, nil)
	tools := map[string]interface {
		Call(context.Context, string) (string, error)
	}{}
	for _, tl := range mustTools(t, reg, exec, nil) {
		tools[tl.Name()] = tl
	}
	addShape := `{"a": integer (first addend), "b": integer (second addend)}`

	tests := []struct {
		name, tool, input string
		want              string // the output, when the call succeeds
		wantKind          adapter.Kind
		wantMsg           []string // substrings of the payload message
	}{
		{name: "object", tool: "add", input: `{"a":2,"b":3}`, want: `{"sum":5}`},
		{name: "white space", tool: "add", input: " \n\t{\"a\":2,\"b\":3}\n ", want: `{"sum":5}`},
		{name: "json fence", tool: "add", input: "```json\n{\"a\":2,\"b\":3}\n```", want: `{"sum":5}`},
		{name: "bare fence", tool: "add", input: "```\n{\"a\":2,\"b\":3}```", want: `{"sum":5}`},
		{name: "one-line fence", tool: "add", input: "```{\"a\":2,\"b\":3}```", want: `{"sum":5}`},
		{name: "backticks", tool: "add", input: "`{\"a\":2,\"b\":3}`", want: `{"sum":5}`},
		{name: "trailing observation", tool: "add", input: "{\"a\":2,\"b\":3}\nObservation:", want: `{"sum":5}`},
		{name: "arg1 string holding object", tool: "add", input: `{"__arg1":"{\"a\":2,\"b\":3}"}`, want: `{"sum":5}`},
		{name: "arg1 object", tool: "add", input: `{"__arg1":{"a":2,"b":3}}`, want: `{"sum":5}`},
		{name: "arg1 fenced", tool: "add", input: `{"__arg1":"` + "```json\\n{\\\"a\\\":1,\\\"b\\\":1}\\n```" + `"}`, want: `{"sum":2}`},
		{name: "bare string", tool: "search", input: "weather in Paris", want: `{"limit":5,"query":"weather in Paris"}`},
		{name: "quoted string", tool: "search", input: `"Paris"`, want: `{"limit":5,"query":"Paris"}`},
		{name: "quoted object", tool: "search", input: `"{\"query\":\"Rome\"}"`, want: `{"limit":5,"query":"Rome"}`},
		{name: "arg1 bare string", tool: "search", input: `{"__arg1":"Paris"}`, want: `{"limit":5,"query":"Paris"}`},
		{name: "object with optional", tool: "search", input: `{"query":"x","limit":2}`, want: `{"limit":2,"query":"x"}`},
		{name: "bare number", tool: "count", input: "7", want: `{"n":7}`},
		{name: "arg1 number", tool: "count", input: `{"__arg1":7}`, want: `{"n":7}`},
		{name: "arg1 number as text", tool: "count", input: `{"__arg1":"7"}`, want: `{"n":7}`},
		{name: "empty, no required", tool: "ping", input: "  ", want: `{}`},
		{name: "declared __arg1 kept", tool: "raw1", input: `{"__arg1":"x"}`, want: `{"__arg1":"x"}`},

		{name: "empty, required", tool: "add", input: "", wantKind: adapter.KindArgsInvalid, wantMsg: []string{"the input is empty", addShape}},
		{name: "prose", tool: "add", input: "2 and 3", wantKind: adapter.KindArgsInvalid, wantMsg: []string{"not a JSON object", addShape}},
		{name: "broken json", tool: "add", input: `{"a":2,`, wantKind: adapter.KindArgsInvalid, wantMsg: []string{"not valid JSON", "at byte", addShape}},
		{name: "array", tool: "add", input: `[1,2]`, wantKind: adapter.KindArgsInvalid, wantMsg: []string{"not a JSON object", addShape}},
		{name: "schema mismatch", tool: "add", input: `{"a":"two","b":3}`, wantKind: adapter.KindArgsInvalid, wantMsg: []string{"a", addShape}},
		{name: "missing required", tool: "add", input: `{"a":1}`, wantKind: adapter.KindArgsInvalid, wantMsg: []string{"b", addShape}},
		{name: "non-number for number", tool: "count", input: "seven", wantKind: adapter.KindArgsInvalid, wantMsg: []string{`"seven" is not a JSON value for "n"`, `{"n": integer}`}},
		{name: "string tool shape", tool: "search", input: `{"query":1}`, wantKind: adapter.KindArgsInvalid, wantMsg: []string{"or the query as plain text"}},
		{name: "arg1 nested 4 deep", tool: "add", input: wrapArg1(`{"a":1,"b":1}`, 4), want: `{"sum":2}`},
		{name: "arg1 nested 5 deep", tool: "add", input: wrapArg1(`{"a":1,"b":1}`, 5), wantKind: adapter.KindArgsInvalid, wantMsg: []string{"too deeply"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tools[tt.tool].Call(context.Background(), tt.input)
			if err != nil {
				t.Fatalf("Call(%q) error = %v; model-facing failures must be payloads", tt.input, err)
			}
			p, isPayload := payload(out)
			if tt.wantKind == "" {
				if isPayload {
					t.Fatalf("Call(%q) = payload %+v, want %s", tt.input, p, tt.want)
				}
				if diff := cmp.Diff(tt.want, out); diff != "" {
					t.Errorf("Call(%q) output mismatch (-want +got):\n%s", tt.input, diff)
				}
				return
			}
			if !isPayload {
				t.Fatalf("Call(%q) = %q, want a %s payload", tt.input, out, tt.wantKind)
			}
			if p.Kind != tt.wantKind || p.Tool != tt.tool {
				t.Errorf("payload kind/tool = %s/%s, want %s/%s", p.Kind, p.Tool, tt.wantKind, tt.tool)
			}
			for _, sub := range tt.wantMsg {
				if !strings.Contains(p.Message, sub) {
					t.Errorf("payload message %q does not contain %q", p.Message, sub)
				}
			}
		})
	}
}

func TestCallErrors(t *testing.T) {
	boom := errors.New("socket closed")
	conn := adapter.MustRawTool("remote", "A remote tool whose connection fails.", mustSchema(t, noArgsSchema),
		func(context.Context, json.RawMessage) (*adapter.Result, error) {
			return nil, &adapter.Error{Kind: adapter.KindConnection, Message: "the server went away", Err: boom}
		}, &adapter.ToolOptions{Annotations: readOnly})
	slow := adapter.MustRawTool("slow", "Never answers in time.", mustSchema(t, noArgsSchema),
		func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, &adapter.ToolOptions{Annotations: readOnly, Timeout: 20 * time.Millisecond})
	reg := newRegistry(t, addSpec(), failSpec(), conn, slow)
	exec := newExecutor(t, reg, nil)
	cb := &recordingHandler{}
	byName := map[string]*lca.Tool{}
	for _, tl := range mustTools(t, reg, exec, &lca.Options{Callbacks: cb}) {
		byName[tl.Name()] = tl.(*lca.Tool)
	}

	t.Run("tool error is a payload", func(t *testing.T) {
		out, err := byName["fail"].Call(context.Background(), `{"path":"/tmp/x"}`)
		if err != nil {
			t.Fatalf("err = %v, want nil", err)
		}
		want := `{"error":{"kind":"tool_error","message":"disk full while writing /tmp/x","tool":"fail"}}`
		if diff := cmp.Diff(want, out); diff != "" {
			t.Errorf("payload mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("timeout is a payload", func(t *testing.T) {
		out, err := byName["slow"].Call(context.Background(), "")
		if err != nil {
			t.Fatalf("err = %v, want nil", err)
		}
		if p, ok := payload(out); !ok || p.Kind != adapter.KindTimeout {
			t.Errorf("Call = %q, want a timeout payload", out)
		}
	})
	t.Run("connection fault is a Go error", func(t *testing.T) {
		out, err := byName["remote"].Call(context.Background(), "{}")
		if !errors.Is(err, adapter.ErrConnection) || !errors.Is(err, boom) {
			t.Fatalf("err = %v, want a connection error wrapping the cause", err)
		}
		if out != "" {
			t.Errorf("output = %q, want empty beside an error", out)
		}
	})
	t.Run("removed tool is not_found", func(t *testing.T) {
		reg2 := newRegistry(t, echoSpec(t, "gone", noArgsSchema))
		tl := mustTools(t, reg2, exec, nil)[0]
		if err := reg2.Unregister("gone"); err != nil {
			t.Fatal(err)
		}
		out, err := tl.Call(context.Background(), "{}")
		if p, ok := payload(out); err != nil || !ok || p.Kind != adapter.KindNotFound {
			t.Errorf("Call = %q, %v; want a not_found payload", out, err)
		}
	})

	want := []string{
		`start {"path":"/tmp/x"}`, "error tool_error",
		"start ", "error timeout",
		"start {}", "error connection",
	}
	if diff := cmp.Diff(want, cb.Events()); diff != "" {
		t.Errorf("callbacks mismatch (-want +got):\n%s", diff)
	}
}

func TestCallbacksOnSuccess(t *testing.T) {
	reg := newRegistry(t, addSpec())
	cb := &recordingHandler{}
	tl := mustTools(t, reg, newExecutor(t, reg, nil), &lca.Options{Callbacks: cb})[0]
	if _, err := tl.Call(context.Background(), `{"a":1,"b":2}`); err != nil {
		t.Fatal(err)
	}
	want := []string{`start {"a":1,"b":2}`, `end {"sum":3}`}
	if diff := cmp.Diff(want, cb.Events()); diff != "" {
		t.Errorf("callbacks mismatch (-want +got):\n%s", diff)
	}
}

// A nil executor is refused at construction: no call may run without the
// policy it was meant to follow.
func TestNilExecutor(t *testing.T) {
	reg := newRegistry(t, addSpec())
	if _, err := lca.NewTool(addSpec(), nil, nil); err == nil || !strings.Contains(err.Error(), "nil executor") {
		t.Errorf("NewTool: err = %v", err)
	}
	if _, err := lca.Tools(reg, nil, nil); err == nil || !strings.Contains(err.Error(), "nil executor") {
		t.Errorf("Tools: err = %v", err)
	}
	if _, err := lca.NewDispatcher(reg, nil, nil); err == nil || !strings.Contains(err.Error(), "nil executor") {
		t.Errorf("NewDispatcher: err = %v", err)
	}
}

func TestNewToolRejectsBadSpec(t *testing.T) {
	exec := newExecutor(t, nil, nil)
	if _, err := lca.NewTool(nil, exec, nil); err == nil {
		t.Error("NewTool(nil) succeeded")
	}
	if _, err := lca.NewTool(&adapter.Spec{Name: "bad name!"}, exec, nil); err == nil {
		t.Error("NewTool(invalid name) succeeded")
	}
}

func TestToolsFilter(t *testing.T) {
	mcpOnly := echoSpec(t, "mcponly", noArgsSchema)
	mcpOnly.Targets = []string{adapter.TargetMCP}
	tagged := echoSpec(t, "tagged", noArgsSchema)
	tagged.Tags = []string{"math"}
	reg := newRegistry(t, addSpec(), mcpOnly, tagged)
	var names []string
	exec := newExecutor(t, reg, nil)
	for _, tl := range mustTools(t, reg, exec, nil) {
		names = append(names, tl.Name())
	}
	if diff := cmp.Diff([]string{"add", "tagged"}, names); diff != "" {
		t.Errorf("Tools(reg) names (-want +got):\n%s", diff)
	}
	names = nil
	for _, tl := range mustTools(t, reg, exec, &lca.Options{Filter: registry.Filter{Tags: []string{"math"}, Target: adapter.TargetMCP}}) {
		names = append(names, tl.Name())
	}
	if diff := cmp.Diff([]string{"tagged"}, names); diff != "" {
		t.Errorf("Tools(reg, tag filter) names (-want +got):\n%s", diff)
	}
}

func TestRunScope(t *testing.T) {
	reg := newRegistry(t, addSpec())
	exec := newExecutor(t, reg, &adapter.ExecutorOptions{Limits: adapter.Limits{MaxCalls: 2}})
	tl := mustTools(t, reg, exec, nil)[0]

	// In one scope the third call is refused, as a payload.
	ctx, run := adapter.WithRun(context.Background(), nil)
	var outs []string
	for range 3 {
		out, err := tl.Call(ctx, `{"a":1,"b":1}`)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	if p, ok := payload(outs[2]); !ok || p.Kind != adapter.KindRunLimitExceeded {
		t.Errorf("third call in a run = %q, want run_limit_exceeded", outs[2])
	}
	if run.Calls() != 2 {
		t.Errorf("run.Calls() = %d, want 2", run.Calls())
	}
}

func wrapArg1(s string, n int) string {
	for range n {
		b, _ := json.Marshal(map[string]string{"__arg1": s})
		s = string(b)
	}
	return s
}

func mustSchema(t testing.TB, s string) *jsonschema.Schema {
	t.Helper()
	var sc jsonschema.Schema
	if err := json.Unmarshal([]byte(s), &sc); err != nil {
		t.Fatal(err)
	}
	return &sc
}

// TestToolFollowsRegistry: a tool from a registry uses the spec registered
// now (an MCP server that reconnected replaces its specs), with the new
// schema's positional parameter.
func TestToolFollowsRegistry(t *testing.T) {
	reg := newRegistry(t, echoSpec(t, "lookup", `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`))
	exec := newExecutor(t, reg, nil)
	tl := mustTools(t, reg, exec, nil)[0]
	if out, _ := tl.Call(context.Background(), "42"); out != `{"id":"42"}` {
		t.Fatalf("before Replace: %q", out)
	}
	if err := reg.Replace(echoSpec(t, "lookup", `{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}`)); err != nil {
		t.Fatal(err)
	}
	if out, _ := tl.Call(context.Background(), "42"); out != `{"key":"42"}` {
		t.Errorf("after Replace: %q, want the new spec's parameter", out)
	}
}
