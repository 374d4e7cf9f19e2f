package langchaingoadapter_test

import (
	"context"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/agentadapter/agentadapter/integrations/kit/kittest"
)

// The cross-integration golden: every case's tool, called as a langchaingo
// agent calls a tool and as the dispatcher answers a tool call, gives the
// model exactly the text in internal/kittest.
func TestRenderGolden(t *testing.T) {
	golden, err := kittest.Golden()
	if err != nil {
		t.Fatal(err)
	}
	reg := newRegistry(t)
	for _, c := range kittest.Cases() {
		reg.MustRegister(c.Spec)
	}
	exec := newExecutor(t, reg, nil)
	tools := map[string]interface {
		Call(context.Context, string) (string, error)
	}{}
	for _, tl := range mustTools(t, reg, exec, nil) {
		tools[tl.Name()] = tl
	}
	d := mustDispatcher(t, reg, exec, nil)
	for _, c := range kittest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			want := golden[c.Name]
			got, err := tools[c.Spec.Name].Call(context.Background(), "{}")
			if err != nil || got != want {
				t.Errorf("Tool.Call: model reads %q, %v\nwant %q", got, err, want)
			}
			msgs, err := d.Dispatch(context.Background(), []llms.ToolCall{toolCall("x", c.Spec.Name, "{}")})
			if err != nil {
				t.Fatal(err)
			}
			if got := toolResponses(msgs)["x"]; got != want {
				t.Errorf("Dispatch: model reads %q\nwant %q", got, want)
			}
		})
	}
}

// null arguments, which eino and genkit accept for a tool with nothing
// required, are accepted here too (and still refused where something is).
func TestNullArguments(t *testing.T) {
	reg := newRegistry(t, echoSpec(t, "ping", noArgsSchema), addSpec())
	exec := newExecutor(t, reg, nil)
	tools := mustTools(t, reg, exec, nil)
	d := mustDispatcher(t, reg, exec, nil)
	for _, tl := range tools {
		for _, in := range []string{"null", " null ", `{"__arg1":null}`, "```json\nnull\n```"} {
			out, err := tl.Call(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			_, failed := payload(out)
			if wantFail := tl.Name() == "add"; failed != wantFail {
				t.Errorf("%s.Call(%q) = %s; want failure %v", tl.Name(), in, out, wantFail)
			}
		}
	}
	msgs, err := d.Dispatch(context.Background(), []llms.ToolCall{toolCall("1", "ping", "null"), toolCall("2", "add", "null")})
	if err != nil {
		t.Fatal(err)
	}
	got := toolResponses(msgs)
	if _, failed := payload(got["1"]); failed {
		t.Errorf("ping with null arguments: %s", got["1"])
	}
	if p, failed := payload(got["2"]); !failed || p.Kind != "args_invalid" {
		t.Errorf("add with null arguments: %s, want args_invalid", got["2"])
	}
}
