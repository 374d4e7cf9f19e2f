package genkitadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type addIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

func addSpec() *adapter.Spec {
	return adapter.MustTool("add", "Adds two integers.", func(_ context.Context, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	}, nil)
}

// callLog is a hook recording the calls the executor saw.
type callLog struct {
	mu    sync.Mutex
	calls []adapter.ToolCall
}

func (l *callLog) hook(next adapter.Invoker) adapter.Invoker {
	return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
		l.mu.Lock()
		l.calls = append(l.calls, *c)
		l.mu.Unlock()
		return next(ctx, c)
	}
}

func (l *callLog) all() []adapter.ToolCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]adapter.ToolCall(nil), l.calls...)
}

// generateOrFlow runs one generation either directly or inside a flow.
type runner func(ctx context.Context, g *genkit.Genkit, opts ...ai.GenerateOption) (*ai.ModelResponse, error)

var runners = []struct {
	name string
	run  func(t *testing.T, g *genkit.Genkit) runner
}{
	{"Generate", func(*testing.T, *genkit.Genkit) runner { return genkit.Generate }},
	{"Flow", func(t *testing.T, g *genkit.Genkit) runner {
		var (
			mu   sync.Mutex
			opts []ai.GenerateOption
		)
		flow := genkit.DefineFlow(g, "agent", func(ctx context.Context, _ string) (*ai.ModelResponse, error) {
			mu.Lock()
			o := opts
			mu.Unlock()
			return genkit.Generate(ctx, g, o...)
		})
		return func(ctx context.Context, _ *genkit.Genkit, o ...ai.GenerateOption) (*ai.ModelResponse, error) {
			mu.Lock()
			opts = o
			mu.Unlock()
			return flow.Run(ctx, "go")
		}
	}},
}

func TestLocalTypedTool(t *testing.T) {
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) {
			ctx := context.Background()
			g := newGenkit(t)
			var log callLog
			exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Hooks: []adapter.Hook{log.hook}})
			defer exec.Close()
			spec := addSpec()
			tool, err := genkitadapter.NewTool(spec, exec, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := defineScripted(t, g, "m", callTool("add", "r1", map[string]any{"a": 2, "b": 3}), echoToolOutputs())

			resp, err := r.run(t, g)(ctx, g, ai.WithModel(m), ai.WithPrompt("2+3?"), ai.WithTools(tool))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := resp.Text(), `{"add":{"sum":5}}`; got != want {
				t.Errorf("final text = %s, want %s", got, want)
			}
			reqs := m.requests()
			if len(reqs) != 2 {
				t.Fatalf("model called %d times, want 2", len(reqs))
			}
			// The model was offered the spec's schemas unchanged.
			if len(reqs[0].Tools) != 1 {
				t.Fatalf("model offered %d tools, want 1", len(reqs[0].Tools))
			}
			def := reqs[0].Tools[0]
			if diff := cmp.Diff(schemaValue(t, spec.InputSchema), normalize(def.InputSchema)); diff != "" {
				t.Errorf("input schema offered to the model (-spec +genkit):\n%s", diff)
			}
			if len(def.OutputSchema) != 0 {
				t.Errorf("output schema offered to the model: %v; the output is the model's text", def.OutputSchema)
			}
			calls := log.all()
			if len(calls) != 1 {
				t.Fatalf("executor saw %d calls, want 1", len(calls))
			}
			c := calls[0]
			if c.Integration != "genkit" || c.Native != tool || c.RunID == "" || string(c.Args) != `{"a":2,"b":3}` {
				t.Errorf("call = integration %q, native %T, run %q, args %s; want genkit, *Tool, a run, {\"a\":2,\"b\":3}", c.Integration, c.Native, c.RunID, c.Args)
			}
		})
	}
}

func schemaValue(t *testing.T, s *jsonschema.Schema) any {
	t.Helper()
	if s == nil {
		t.Fatal("nil schema")
	}
	return normalize(s)
}

// Arguments reach the executor as JSON, not as genkit's schema-normalised
// values: nulls stay, nested objects and arrays stay, integers keep their
// digits.
func TestArgumentsAreFaithfulJSON(t *testing.T) {
	ctx := context.Background()
	var rec recorder
	in := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"n":     {Type: "integer"},
		"x":     {Type: "number"},
		"note":  {Types: []string{"null", "string"}},
		"tags":  {Type: "array", Items: &jsonschema.Schema{Type: "integer"}},
		"inner": {Type: "object", Properties: map[string]*jsonschema.Schema{"deep": {Type: "array", Items: &jsonschema.Schema{Type: "object"}}}},
	}}
	spec := adapter.MustRawTool("echo", "Records its arguments.", in, rec.handler("ok"), nil)
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	tool, err := genkitadapter.NewTool(spec, exec, nil)
	if err != nil {
		t.Fatal(err)
	}

	// Through Generate: genkit copies the model message through
	// encoding/json first, so 2^53-1 is the largest integer it keeps.
	g := newGenkit(t)
	const viaModel = `{"inner":{"deep":[{"k":[1,2,{"z":null}]}]},"n":9007199254740991,"note":null,"tags":[1,2,3],"x":1.5}`
	var input any
	if err := json.Unmarshal([]byte(viaModel), &input); err != nil {
		t.Fatal(err)
	}
	m := defineScripted(t, g, "m", callTool("echo", "", input), say("done"))
	if _, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("go"), ai.WithTools(tool)); err != nil {
		t.Fatal(err)
	}

	// Called directly, larger integers keep every digit.
	const direct = `{"n":9007199254740993,"tags":[9223372036854775807]}`
	if _, err := tool.RunRaw(ctx, map[string]any{"n": int64(9007199254740993), "tags": []any{json.Number("9223372036854775807")}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{viaModel, direct}, rec.calls()); diff != "" {
		t.Errorf("arguments the handler ran with (-want +got):\n%s", diff)
	}

	// Genkit's own tool path, for contrast, drops the null and rounds the
	// large integer.
	var native []string
	gt := ai.NewTool("echo_native", "", func(_ *ai.ToolContext, in any) (any, error) {
		b, _ := json.Marshal(in)
		native = append(native, string(b))
		return "ok", nil
	}, ai.WithInputSchema(map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}, "note": map[string]any{"type": []any{"null", "string"}}}}))
	if _, err := gt.RunRaw(ctx, map[string]any{"n": int64(9007199254740993), "note": nil}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`{"n":9007199254740992}`}, native); diff != "" {
		t.Errorf("genkit's native tool input (-want +got):\n%s", diff)
	}
}

// A failing call does not abort the generation: the model reads the
// model-facing payload as the tool's output and carries on.
func TestModelFacingErrorsBecomeOutput(t *testing.T) {
	fails := adapter.MustTool("fails", "Always fails.", func(context.Context, addIn) (addOut, error) {
		return addOut{}, errors.New("division by zero")
	}, nil)
	slow := adapter.MustTool("slow", "Sleeps.", func(ctx context.Context, _ addIn) (addOut, error) {
		<-ctx.Done()
		return addOut{}, ctx.Err()
	}, &adapter.ToolOptions{Timeout: 20 * time.Millisecond})
	blocked := adapter.MustTool("blocked", "Guarded.", func(context.Context, addIn) (addOut, error) { return addOut{}, nil }, nil)
	guard := adapter.Guard{Name: "no-blocked", Input: func(_ context.Context, c *adapter.ToolCall) error {
		if c.Tool == "blocked" {
			return errors.New("not today")
		}
		return nil
	}}
	tests := []struct {
		name  string
		spec  *adapter.Spec
		input any
		kind  adapter.Kind
		want  any // the exact payload, when its message is ours
	}{
		{"tool_error", fails, map[string]any{"a": 1, "b": 2}, adapter.KindToolError, payload(adapter.KindToolError, "division by zero", "fails")},
		{"args_invalid", addSpec(), map[string]any{"a": "two", "b": 3}, adapter.KindArgsInvalid, nil},
		{"timeout", slow, map[string]any{"a": 1, "b": 1}, adapter.KindTimeout, nil},
		{"guardrail_blocked", blocked, map[string]any{"a": 1, "b": 1}, adapter.KindGuardrailBlocked, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			g := newGenkit(t)
			exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Guards: []adapter.Guard{guard}})
			defer exec.Close()
			tool, err := genkitadapter.NewTool(tt.spec, exec, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := defineScripted(t, g, "m", callTool(tt.spec.Name, "r1", tt.input), echoToolOutputs())
			resp, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("go"), ai.WithTools(tool))
			if err != nil {
				t.Fatalf("Generate aborted: %v", err)
			}
			reqs := m.requests()
			if len(reqs) != 2 {
				t.Fatalf("model called %d times, want 2 (generation should continue)", len(reqs))
			}
			got := toolOutputs(reqs[1])[tt.spec.Name]
			e, _ := got.(map[string]any)["error"].(map[string]any)
			if msg, _ := e["message"].(string); e["kind"] != string(tt.kind) || e["tool"] != tt.spec.Name || msg == "" {
				t.Errorf("model read %v, want a %s payload", got, tt.kind)
			}
			if tt.want != nil {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("output the model read (-want +got):\n%s", diff)
				}
			}
			if resp.Text() == "" {
				t.Error("no final answer")
			}
		})
	}
}

// Infrastructure faults stay Go errors and abort the generation.
func TestInternalErrorAbortsGenerate(t *testing.T) {
	ctx := context.Background()
	g := newGenkit(t)
	exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Hooks: []adapter.Hook{func(adapter.Invoker) adapter.Invoker {
		return func(context.Context, *adapter.ToolCall) (*adapter.Result, error) { panic("broken hook") }
	}}})
	defer exec.Close()
	tool, err := genkitadapter.NewTool(addSpec(), exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := defineScripted(t, g, "m", callTool("add", "r1", map[string]any{"a": 1, "b": 2}), say("unreachable"))
	_, err = genkit.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("go"), ai.WithTools(tool))
	if err == nil || !strings.Contains(err.Error(), "internal") {
		t.Fatalf("Generate error = %v, want the internal error", err)
	}
	if n := len(m.requests()); n != 1 {
		t.Errorf("model called %d times after the fault, want 1", n)
	}
	// Called directly, the *adapter.Error is there for errors.As.
	_, err = tool.RunRaw(ctx, map[string]any{"a": 1, "b": 2})
	if !errors.Is(err, adapter.ErrInternal) {
		t.Errorf("RunRaw error = %v, want adapter.ErrInternal", err)
	}
}

// The calls of every turn of one generation share a run scope; another
// generation gets another; a flow run is one scope across its generations.
func TestRunScopePerGeneration(t *testing.T) {
	ctx := context.Background()
	g := newGenkit(t)
	var log callLog
	exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Hooks: []adapter.Hook{log.hook}, Limits: adapter.Limits{MaxCalls: 2}})
	defer exec.Close()
	tool, err := genkitadapter.NewTool(addSpec(), exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"a": 1, "b": 1}
	// Three turns of calls in one generation: the third exceeds MaxCalls.
	m := defineScripted(t, g, "m",
		callTool("add", "1", args), callTool("add", "2", args), callTool("add", "3", args), echoToolOutputs(),
		callTool("add", "4", args), echoToolOutputs())
	resp, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("go"), ai.WithTools(tool))
	if err != nil {
		t.Fatal(err)
	}
	var third struct {
		Add struct{ Error adapter.PayloadError } `json:"add"`
	}
	if err := json.Unmarshal([]byte(resp.Text()), &third); err != nil || third.Add.Error.Kind != adapter.KindRunLimitExceeded {
		t.Errorf("third call: model read %s, want a run_limit_exceeded payload", resp.Text())
	}
	// A new generation is a new run: its call succeeds.
	resp, err = genkit.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("again"), ai.WithTools(tool))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != `{"add":{"sum":2}}` {
		t.Errorf("new generation: model read %s, want the sum", resp.Text())
	}
	calls := log.all()
	if len(calls) != 4 {
		t.Fatalf("executor saw %d calls, want 4", len(calls))
	}
	if calls[0].RunID != calls[1].RunID || calls[1].RunID != calls[2].RunID || calls[3].RunID == calls[0].RunID {
		t.Errorf("run ids = %s %s %s | %s; want the first three equal, the fourth different", calls[0].RunID, calls[1].RunID, calls[2].RunID, calls[3].RunID)
	}

	// A caller's own run scope wins.
	rctx, run := adapter.WithRun(ctx, &adapter.RunOptions{ID: "mine"})
	m2 := defineScripted(t, g, "m2", callTool("add", "5", args), say("ok"))
	if _, err := genkit.Generate(rctx, g, ai.WithModel(m2), ai.WithPrompt("go"), ai.WithTools(tool)); err != nil {
		t.Fatal(err)
	}
	if got := log.all()[4].RunID; got != "mine" || run.Calls() != 1 {
		t.Errorf("with a caller's run: run id %q, run calls %d; want \"mine\", 1", got, run.Calls())
	}

	// Two generations inside one flow run share the scope.
	m3 := defineScripted(t, g, "m3", callTool("add", "6", args), say("one"), callTool("add", "7", args), say("two"))
	flow := genkit.DefineFlow(g, "twice", func(ctx context.Context, _ string) (string, error) {
		for range 2 {
			if _, err := genkit.Generate(ctx, g, ai.WithModel(m3), ai.WithPrompt("go"), ai.WithTools(tool)); err != nil {
				return "", err
			}
		}
		return "", nil
	})
	if _, err := flow.Run(ctx, ""); err != nil {
		t.Fatal(err)
	}
	calls = log.all()
	if a, b := calls[5].RunID, calls[6].RunID; a != b || a == calls[3].RunID {
		t.Errorf("flow run ids = %s, %s; want one scope of its own", a, b)
	}
}

// Image content travels as a media part of the tool response.
func TestMediaContent(t *testing.T) {
	ctx := context.Background()
	spec := adapter.MustRawTool("pic", "Returns an image.", &jsonschema.Schema{Type: "object"},
		func(context.Context, json.RawMessage) (*adapter.Result, error) {
			return &adapter.Result{Content: []adapter.Content{
				&adapter.TextContent{Text: "a red dot"},
				&adapter.ImageContent{Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"},
			}}, nil
		}, nil)
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	tool, err := genkitadapter.NewTool(spec, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := tool.RunRawMultipart(ctx, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Output != "a red dot" || len(r.Content) != 1 || r.Content[0].ContentType != "image/png" || r.Content[0].Text != "data:image/png;base64,iVBORw==" {
		t.Errorf("response = output %v, content %+v; want the text and one PNG media part", r.Output, r.Content)
	}
}

// A nil executor is refused at construction: no call may run without the
// policy it was meant to follow.
func TestNilExecutor(t *testing.T) {
	g := newGenkit(t)
	reg := registry.New()
	reg.MustRegister(addSpec())
	if _, err := genkitadapter.NewTool(addSpec(), nil, nil); err == nil || !strings.Contains(err.Error(), "nil executor") {
		t.Errorf("NewTool: err = %v", err)
	}
	if _, err := genkitadapter.Tools(g, reg, nil, nil); err == nil || !strings.Contains(err.Error(), "nil executor") {
		t.Errorf("Tools: err = %v", err)
	}
	if _, err := genkitadapter.DefineTools(g, reg, nil, nil); err == nil || !strings.Contains(err.Error(), "nil executor") {
		t.Errorf("DefineTools: err = %v", err)
	}
}

// A nil spec is an error, never a panic.
func TestNilSpec(t *testing.T) {
	g := newGenkit(t)
	exec := adapter.NewExecutor(registry.New(), nil)
	defer exec.Close()
	if _, err := genkitadapter.NewTool(nil, exec, nil); err == nil {
		t.Error("NewTool(nil spec) succeeded")
	}
	if _, err := genkitadapter.DefineTools(g, nil, exec, nil); err == nil {
		t.Error("DefineTools(nil registry) succeeded")
	}
	if _, err := genkitadapter.Definition(nil); err == nil {
		t.Error("Definition(nil spec) succeeded")
	}
}

// A spec named like a registered genkit tool is reported, because genkit
// would silently run the registered one.
func TestNameClash(t *testing.T) {
	ctx := context.Background()
	g := newGenkit(t)
	var ranGenkit bool
	genkit.DefineTool(g, "add", "genkit's add", func(_ *ai.ToolContext, in addIn) (string, error) {
		ranGenkit = true
		return "genkit's", nil
	})
	reg := registry.New()
	reg.MustRegister(addSpec(), adapter.MustRawTool("other", "", &jsonschema.Schema{Type: "object"}, (&recorder{}).handler("x"), nil))
	clashExec := adapter.NewExecutor(reg, nil)
	defer clashExec.Close()

	if _, err := genkitadapter.Tools(g, reg, clashExec, nil); !errors.Is(err, genkitadapter.ErrNameClash) || !strings.Contains(err.Error(), `"add"`) {
		t.Errorf("Tools error = %v, want ErrNameClash naming add", err)
	}
	if _, err := genkitadapter.DefineTools(g, reg, clashExec, nil); !errors.Is(err, genkitadapter.ErrNameClash) {
		t.Errorf("DefineTools error = %v, want ErrNameClash", err)
	}
	if genkit.LookupTool(g, "other") != nil {
		t.Error("DefineTools registered a tool despite the clash")
	}
	one := registry.New()
	one.MustRegister(addSpec())
	if _, err := genkitadapter.DefineTools(g, one, clashExec, nil); !errors.Is(err, genkitadapter.ErrNameClash) {
		t.Errorf("DefineTools of one spec: error = %v, want ErrNameClash", err)
	}

	// What the check prevents: an unchecked tool of that name is shadowed.
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	shadowed, err := genkitadapter.NewTool(addSpec(), exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := defineScripted(t, g, "m", callTool("add", "", map[string]any{"a": 1, "b": 2}), echoToolOutputs())
	resp, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("go"), ai.WithTools(shadowed))
	if err != nil {
		t.Fatal(err)
	}
	if !ranGenkit || resp.Text() != `{"add":"genkit's"}` || exec.Calls() != 0 {
		t.Errorf("shadowing: genkit's ran %v, answer %s, our calls %d; want genkit's tool to have run instead", ranGenkit, resp.Text(), exec.Calls())
	}
}

// Registry tools: only those exported to genkit, registered on g so that
// generation can name them.
func TestDefineToolsFromRegistry(t *testing.T) {
	ctx := context.Background()
	g := newGenkit(t)
	reg := registry.New()
	mcpOnly := adapter.MustRawTool("mcp_only", "", &jsonschema.Schema{Type: "object"}, (&recorder{}).handler("x"), &adapter.ToolOptions{Targets: []string{adapter.TargetMCP}})
	reg.MustRegister(addSpec(), mcpOnly)
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	tools, err := genkitadapter.DefineTools(g, reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Name() != "add" || genkit.LookupTool(g, "mcp_only") != nil {
		t.Fatalf("defined %d tools, want only add", len(tools))
	}
	m := defineScripted(t, g, "m", callTool("add", "", map[string]any{"a": 20, "b": 22}), echoToolOutputs())
	resp, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("go"), ai.WithTools(ai.ToolName("add")))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != `{"add":{"sum":42}}` {
		t.Errorf("answer %s, want the sum", resp.Text())
	}
}

// BenchmarkLocalCall measures this package's share of a call: the same
// local tool through the executor alone and through the genkit tool.
func BenchmarkLocalCall(b *testing.B) {
	ctx := context.Background()
	spec := addSpec()
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	tool, err := genkitadapter.NewTool(spec, exec, nil)
	if err != nil {
		b.Fatal(err)
	}
	raw := json.RawMessage(`{"a":7,"b":2}`)
	in := map[string]any{"a": 7, "b": 2}
	b.Run("executor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := exec.Do(ctx, &adapter.Request{Spec: spec, Args: raw}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("genkit-tool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tool.RunRaw(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
