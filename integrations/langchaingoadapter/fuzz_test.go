package langchaingoadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tmc/langchaingo/llms"

	"github.com/agentadapter/agentadapter/adapter"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
)

// FuzzCall feeds arbitrary agent input to Call: it must never panic nor
// return a Go error for these in-process tools, and must answer either the
// tool's result or a model-facing payload.
func FuzzCall(f *testing.F) {
	for _, seed := range []string{
		`{"a":1,"b":2}`, "```json\n{\"a\":1,\"b\":2}\n```", `{"__arg1":"{\"a\":1,\"b\":2}"}`, `{"__arg1":{"a":1}}`,
		`{"__arg1":7}`, `"quoted"`, "plain text", "7", "", "   ", "{", "}", "[1,2]", "null", `{"__arg1":"{\"__arg1\":\"x\"}"}`,
		"`x`", "```", "```\n```", "{\"a\":1}\nObservation:", `{"a":1e400,"b":0}`, "\"\\ud800\"", "\xff\xfe", `{"__arg1":null}`,
	} {
		f.Add(seed)
	}
	reg := newRegistry(f, addSpec(), echoSpec(f, "search", searchSchema), echoSpec(f, "count", countSchema), echoSpec(f, "ping", noArgsSchema))
	exec := newExecutor(f, reg, nil)
	tools := mustTools(f, reg, exec, nil)
	f.Fuzz(func(t *testing.T, input string) {
		for _, tl := range tools {
			out, err := tl.Call(context.Background(), input)
			if err != nil {
				t.Fatalf("%s.Call(%q) returned a Go error: %v", tl.Name(), input, err)
			}
			if p, ok := payload(out); ok {
				if !p.Kind.ModelFacing() || p.Message == "" {
					t.Fatalf("%s.Call(%q) = bad payload %q", tl.Name(), input, out)
				}
				if p.Kind == adapter.KindArgsInvalid && !strings.Contains(p.Message, "send a JSON object") {
					t.Fatalf("%s.Call(%q): args_invalid without the expected shape: %q", tl.Name(), input, p.Message)
				}
				continue
			}
			// A result: the add tool's is {"sum":N}, the echo tools' a JSON object.
			var v map[string]any
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("%s.Call(%q) = %q: neither a payload nor a JSON result", tl.Name(), input, out)
			}
			if _, ok := v["sum"]; tl.Name() == "add" && !ok {
				t.Fatalf("add.Call(%q) = %q", input, out)
			}
		}
	})
}

// FuzzSchema feeds arbitrary input schemas (an MCP server's are untrusted)
// to Call and to a strict Dispatch: no panic, no hang, no Go error (kit's
// FuzzSchema checks the strict schemas themselves).
func FuzzSchema(f *testing.F) {
	for _, seed := range []string{
		searchSchema, countSchema, noArgsSchema, arg1Schema,
		`{"type":"object","$defs":{"pt":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x"]}},"properties":{"p":{"$ref":"#/$defs/pt","description":"a point"},"e":{"type":"string","enum":["a","b"]},"f":{"enum":[1,2]},"o":{"type":"object","properties":{"k":{"type":"string"}}},"n":{"type":["string","null"]}}}`,
		`{"type":"object","properties":{"r":{"$ref":"#"}}}`,
		`{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"object","properties":{"k":{"enum":[1,"a",null]}}}}}}`,
		`{"type":"object","properties":{"v":{"oneOf":[{"type":"string"},{"anyOf":[{"type":"integer"}]}]},"t":{"type":["array","null"],"items":{"type":"object"}}}}`,
	} {
		f.Add(seed, `{"x":null}`)
	}
	f.Fuzz(func(t *testing.T, schemaJSON, input string) {
		var s jsonschema.Schema
		if json.Unmarshal([]byte(schemaJSON), &s) != nil {
			return
		}
		s.Type, s.Types = "object", nil // specs' input schemas are objects
		spec, err := adapter.NewRawTool("t", "d", &s, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
			return adapter.TextResult(string(args)), nil
		}, &adapter.ToolOptions{Annotations: readOnly})
		if err != nil {
			return // not a schema the adapter accepts ($ref loops among them)
		}
		exec := adapter.NewExecutor(nil, nil)
		defer exec.Close()
		tl2 := mustTools(t, newRegistry(t, spec), exec, nil)[0]
		if out, err := tl2.Call(context.Background(), input); err != nil {
			t.Fatalf("Call(%q) on schema %s: Go error %v (output %q)", input, schemaJSON, err, out)
		}
		d := mustDispatcher(t, newRegistry(t, spec), exec, &lca.DispatcherOptions{Strict: true})
		if _, err := d.Dispatch(context.Background(), []llms.ToolCall{toolCall("1", "t", input)}); err != nil {
			t.Fatalf("Dispatch(%q) on schema %s: %v", input, schemaJSON, err)
		}
	})
}
