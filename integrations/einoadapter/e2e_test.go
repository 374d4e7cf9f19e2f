package einoadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
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
	return adapter.MustTool("add", "adds two integers", func(_ context.Context, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &closedWorld}})
}

var closedWorld = false

func mustTool(t *testing.T, s *adapter.Spec, e *adapter.Executor, o *einoadapter.Options) tool.BaseTool {
	t.Helper()
	tl, err := einoadapter.Tool(s, e, o)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func payload(kind adapter.Kind, msg, tool string) string {
	b, _ := json.Marshal(adapter.Payload{Error: adapter.PayloadError{Kind: kind, Message: msg, Tool: tool}})
	return string(b)
}

// (a) A local typed tool runs through the executor inside both agent loops;
// the model gets the tool's schema and reads its result.
func TestLocalTypedTool(t *testing.T) {
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			var seen []*adapter.ToolCall
			var mu sync.Mutex
			exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Hooks: []adapter.Hook{func(next adapter.Invoker) adapter.Invoker {
				return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
					mu.Lock()
					seen = append(seen, c)
					mu.Unlock()
					return next(ctx, c)
				}
			}}})
			defer exec.Close()
			m := newModel(call("c1", "add", `{"a":2,"b":3}`))
			run := f.build(t, setup{model: m, tools: []tool.BaseTool{mustTool(t, addSpec(), exec, nil)}})
			out, err := run(context.Background(), userMsg("2+3?"))
			if err != nil {
				t.Fatal(err)
			}
			if want := `done: c1={"sum":5}`; out.Content != want {
				t.Errorf("answer = %q, want %q", out.Content, want)
			}
			if len(m.tools) != 1 || m.tools[0].Name != "add" || m.tools[0].ParamsOneOf == nil {
				t.Fatalf("model was given tools %+v", m.tools)
			}
			js, _ := m.tools[0].ToJSONSchema()
			b, _ := json.Marshal(js)
			want := `{"additionalProperties":false,"properties":{"a":{"description":"first addend","type":"integer"},"b":{"description":"second addend","type":"integer"}},"required":["a","b"],"type":"object"}`
			if diff := cmp.Diff(decode(t, []byte(want)), decode(t, b)); diff != "" {
				t.Errorf("schema sent to the model (-want +got):\n%s", diff)
			}
			if len(seen) != 1 {
				t.Fatalf("executor saw %d calls, want 1", len(seen))
			}
			c := seen[0]
			if c.ID != "c1" || c.Integration != "eino" || c.Tool != "add" || string(c.Args) != `{"a":2,"b":3}` {
				t.Errorf("executor call = id %q integration %q tool %q args %s", c.ID, c.Integration, c.Tool, c.Args)
			}
			if _, ok := c.Native.(tool.InvokableTool); !ok {
				t.Errorf("Native = %T, want the eino tool", c.Native)
			}
		})
	}
}

// (c) Failing tools: the agent keeps going and the model reads a payload;
// infrastructure faults still end the run.
func TestFailingTools(t *testing.T) {
	fail := adapter.MustTool("fail", "always fails", func(context.Context, struct{}) (addOut, error) {
		return addOut{}, errors.New("disk full")
	}, nil)
	broken := adapter.MustRawTool("broken", "loses its connection", &adapterObject, func(context.Context, json.RawMessage) (*adapter.Result, error) {
		return nil, &adapter.Error{Kind: adapter.KindConnection, Message: "server gone"}
	}, nil)
	guarded := adapter.MustRawTool("guarded", "blocked by a guard", &adapterObject, func(context.Context, json.RawMessage) (*adapter.Result, error) {
		t.Error("a blocked tool ran")
		return adapter.TextResult("no"), nil
	}, nil)
	foreign, err := utils.InferTool("foreign", "an eino tool we did not build", func(context.Context, addIn) (string, error) {
		return "", errors.New("quota exceeded")
	})
	if err != nil {
		t.Fatal(err)
	}
	exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Guards: []adapter.Guard{{Name: "no-guarded",
		Input: func(_ context.Context, c *adapter.ToolCall) error {
			if c.Tool == "guarded" {
				return errors.New("not today")
			}
			return nil
		}}}})
	defer exec.Close()

	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			m := newModel(
				call("c1", "fail", `{}`),
				call("c2", "add", `{"a":"two"}`),
				call("c3", "guarded", `{}`),
				call("c4", "foreign", `{"a":1,"b":2}`),
				call("c5", "add", `{"a":1,"b":1}`),
			)
			tools := []tool.BaseTool{mustTool(t, fail, exec, nil), mustTool(t, addSpec(), exec, nil), mustTool(t, guarded, exec, nil), foreign}
			run := f.build(t, setup{model: m, tools: tools, middlewares: []compose.ToolMiddleware{einoadapter.Middleware()}})
			out, err := run(context.Background(), userMsg("go"))
			if err != nil {
				t.Fatalf("the run ended with %v; failures should reach the model", err)
			}
			got := map[string]string{}
			for id, msg := range m.toolResults() {
				got[id] = msg.Content
			}
			want := map[string]string{
				"c1": payload(adapter.KindToolError, "disk full", "fail"),
				"c3": payload(adapter.KindGuardrailBlocked, "blocked by guard no-guarded: not today", "guarded"),
				"c5": `{"sum":2}`,
			}
			argsInvalid, foreignErr := got["c2"], got["c4"]
			delete(got, "c2")
			delete(got, "c4")
			// eino's InferTool wraps the function's error in its own words.
			if !strings.HasPrefix(foreignErr, `{"error":{"kind":"tool_error","message":"`) || !strings.Contains(foreignErr, "quota exceeded") {
				t.Errorf("foreign tool's failure reached the model as %q", foreignErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("tool results the model read (-want +got):\n%s", diff)
			}
			var p adapter.Payload
			if err := json.Unmarshal([]byte(argsInvalid), &p); err != nil || p.Error.Kind != adapter.KindArgsInvalid || p.Error.Tool != "add" || !strings.Contains(p.Error.Message, "a") {
				t.Errorf("bad arguments gave %q, want an args_invalid payload", argsInvalid)
			}
			if !strings.HasPrefix(out.Content, "done: ") || m.turns() != 2 {
				t.Errorf("the agent did not continue: answer %q after %d model turns", out.Content, m.turns())
			}

			// An infrastructure fault is a Go error: the run ends.
			m2 := newModel(call("c1", "broken", `{}`))
			run2 := f.build(t, setup{model: m2, tools: []tool.BaseTool{mustTool(t, broken, exec, nil)}, middlewares: []compose.ToolMiddleware{einoadapter.Middleware()}})
			_, err = run2(context.Background(), userMsg("go"))
			var ae *adapter.Error
			if !errors.As(err, &ae) || ae.Kind != adapter.KindConnection {
				t.Errorf("connection fault gave %v, want a Go error of kind connection", err)
			}
			if m2.turns() != 1 {
				t.Errorf("the model was called %d times after a connection fault", m2.turns())
			}

			// Without the middleware, a foreign tool's error aborts eino's run:
			// the reason the middleware exists.
			m3 := newModel(call("c1", "foreign", `{"a":1,"b":2}`))
			run3 := f.build(t, setup{model: m3, tools: []tool.BaseTool{foreign}})
			if _, err := run3(context.Background(), userMsg("go")); err == nil || !strings.Contains(err.Error(), "quota exceeded") {
				t.Errorf("foreign tool without middleware: err = %v, want the run to fail", err)
			}
		})
	}
}

var adapterObject = jsonschema.Schema{Type: "object"}

// (d) Approval: the call interrupts the graph, the ticket is approved, the
// graph resumes from its checkpoint, and exactly the approved arguments run,
// once — even when the same checkpoint is resumed again.
func TestApprovalInterruptResume(t *testing.T) {
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			var mu sync.Mutex
			var ran []string
			transfer := adapter.MustRawTool("transfer", "moves money", &adapterObject, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
				mu.Lock()
				ran = append(ran, string(args))
				mu.Unlock()
				return adapter.TextResult("sent"), nil
			}, nil)
			deferred := &adapter.Deferred{}
			exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: deferred}})
			defer exec.Close()
			m := newModel(call("c1", "transfer", `{"to":"bob","amount":100}`), call("c2", "add", `{"a":1,"b":2}`))
			store := &memStore{}
			run := f.build(t, setup{model: m, tools: []tool.BaseTool{mustTool(t, transfer, exec, nil), mustTool(t, addSpec(), exec, nil)}, store: store})
			ctx := context.Background()

			_, err := run(ctx, userMsg("pay bob"), compose.WithCheckPointID("cp"))
			pend := einoadapter.PendingFromError(err)
			if len(pend) != 1 {
				t.Fatalf("first run: err = %v, want one pending approval", err)
			}
			p := pend[0]
			if p.Tool != "transfer" || p.CallID != "c1" || p.Args != `{"to":"bob","amount":100}` || p.Ticket == "" || p.InterruptID == "" {
				t.Errorf("pending = %+v", p)
			}
			tk, err := deferred.Ticket(ctx, p.Ticket)
			if err != nil || tk.State != adapter.TicketPending || tk.Tool != "transfer" {
				t.Fatalf("ticket %s: %+v, %v", p.Ticket, tk, err)
			}
			if len(ran) != 0 {
				t.Fatalf("the tool ran before approval: %v", ran)
			}

			must(t, deferred.Approve(ctx, p.Ticket, "alice"))
			out, err := run(compose.Resume(ctx, p.InterruptID), nil, compose.WithCheckPointID("cp"))
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if diff := cmp.Diff([]string{`{"amount":100,"to":"bob"}`}, canonAll(t, ran)); diff != "" {
				t.Errorf("arguments that ran (-want +got):\n%s", diff)
			}
			res := m.toolResults()
			if res["c1"] == nil || res["c1"].Content != "sent" || res["c2"] == nil || res["c2"].Content != `{"sum":3}` {
				t.Errorf("after resume the model read %v", contents(res))
			}
			if out.Content != `done: c1=sent | c2={"sum":3}` {
				t.Errorf("answer = %q", out.Content)
			}
			if tk, _ := deferred.Ticket(ctx, p.Ticket); tk.State != adapter.TicketConsumed || tk.Approver != "alice" {
				t.Errorf("ticket after the run: %+v", tk)
			}

			// Resuming the same checkpoint again re-runs the tools node; the
			// used ticket does not let the call run twice.
			_, err = run(compose.Resume(ctx, p.InterruptID), nil, compose.WithCheckPointID("cp"))
			again := einoadapter.PendingFromError(err)
			if len(again) != 1 || again[0].Ticket == p.Ticket {
				t.Errorf("second resume: err = %v, want a new pending ticket", err)
			}
			if len(ran) != 1 {
				t.Errorf("the approved call ran %d times", len(ran))
			}
		})
	}
}

// A denied ticket reaches the model as approval_denied, and arguments
// changed between interrupt and resume do not match the approved ticket.
func TestApprovalDeniedAndTampered(t *testing.T) {
	for _, f := range flavours {
		for _, mode := range []string{"deny", "tamper"} {
			t.Run(f.name+"/"+mode, func(t *testing.T) {
				ranCount := 0
				transfer := adapter.MustRawTool("transfer", "moves money", &adapterObject, func(context.Context, json.RawMessage) (*adapter.Result, error) {
					ranCount++
					return adapter.TextResult("sent"), nil
				}, nil)
				deferred := &adapter.Deferred{}
				exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: deferred}})
				defer exec.Close()
				var tamper bool
				var tmu sync.Mutex
				argsHandler := func(_ context.Context, _ string, args string) (string, error) {
					tmu.Lock()
					defer tmu.Unlock()
					if tamper {
						return `{"to":"mallory","amount":100}`, nil
					}
					return args, nil
				}
				m := newModel(call("c1", "transfer", `{"to":"bob","amount":100}`))
				run := f.build(t, setup{model: m, tools: []tool.BaseTool{mustTool(t, transfer, exec, nil)}, store: &memStore{}, argsHandler: argsHandler})
				ctx := context.Background()
				_, err := run(ctx, userMsg("pay"), compose.WithCheckPointID("cp"))
				pend := einoadapter.PendingFromError(err)
				if len(pend) != 1 {
					t.Fatalf("want one pending, got %v", err)
				}
				if mode == "deny" {
					must(t, deferred.Deny(ctx, pend[0].Ticket, "too much", "alice"))
				} else {
					must(t, deferred.Approve(ctx, pend[0].Ticket, "alice"))
					tmu.Lock()
					tamper = true
					tmu.Unlock()
				}
				if _, err := run(compose.Resume(ctx, pend[0].InterruptID), nil, compose.WithCheckPointID("cp")); err != nil {
					t.Fatalf("resume: %v", err)
				}
				if ranCount != 0 {
					t.Errorf("the tool ran %d times", ranCount)
				}
				var p adapter.Payload
				got := m.toolResults()["c1"]
				if got == nil || json.Unmarshal([]byte(got.Content), &p) != nil || p.Error.Kind != adapter.KindApprovalDenied {
					t.Fatalf("model read %v, want approval_denied", got)
				}
				want := map[string]string{"deny": "too much", "tamper": "other arguments"}[mode]
				if !strings.Contains(p.Error.Message, want) {
					t.Errorf("message %q does not say %q", p.Error.Message, want)
				}
			})
		}
	}
}

// Without a checkpoint store, PendingAsPayload hands the model the ticket.
func TestPendingAsPayload(t *testing.T) {
	deferred := &adapter.Deferred{}
	exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: deferred, Policy: adapter.ApproveAlways}})
	defer exec.Close()
	m := newModel(call("c1", "add", `{"a":1,"b":2}`))
	run := buildReact(t, setup{model: m, tools: []tool.BaseTool{mustTool(t, addSpec(), exec, &einoadapter.Options{PendingAsPayload: true})}})
	if _, err := run(context.Background(), userMsg("go")); err != nil {
		t.Fatal(err)
	}
	var p adapter.Payload
	got := m.toolResults()["c1"]
	if got == nil || json.Unmarshal([]byte(got.Content), &p) != nil || p.Error.Kind != adapter.KindApprovalPending || p.Error.Ticket == "" {
		t.Fatalf("model read %v, want a pending payload with a ticket", got)
	}
	if tk, err := deferred.Ticket(context.Background(), p.Error.Ticket); err != nil || tk.State != adapter.TicketPending {
		t.Errorf("ticket %s: %+v %v", p.Error.Ticket, tk, err)
	}
}

// Run scopes: RunScope opens one per agent run; calls of one run share it,
// limits apply per run.
func TestRunScope(t *testing.T) {
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			var mu sync.Mutex
			var runIDs []string
			probe := adapter.MustRawTool("probe", "records its run", &adapterObject, func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
				mu.Lock()
				runIDs = append(runIDs, adapter.ToolCallFromContext(ctx).RunID)
				mu.Unlock()
				return adapter.TextResult("ok"), nil
			}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
			exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Limits: adapter.Limits{MaxCalls: 2}})
			defer exec.Close()
			m := newModel(call("c1", "probe", `{}`), call("c2", "probe", `{}`), call("c3", "probe", `{}`))
			run := f.build(t, setup{model: m, tools: []tool.BaseTool{mustTool(t, probe, exec, nil)}})
			scope := compose.WithCallbacks(einoadapter.RunScope(nil))
			for i := range 2 {
				runIDs = nil
				if _, err := run(context.Background(), userMsg("go"), scope); err != nil {
					t.Fatal(err)
				}
				if len(runIDs) != 2 || runIDs[0] == "" || runIDs[0] != runIDs[1] {
					t.Fatalf("run %d: run ids %q, want two equal non-empty ids (the limit stops the third)", i, runIDs)
				}
				limited := 0
				for _, msg := range m.toolResults() {
					if strings.Contains(msg.Content, `"kind":"run_limit_exceeded"`) {
						limited++
					}
				}
				if limited != 1 {
					t.Errorf("run %d: %d calls hit the run limit, want 1: %v", i, limited, contents(m.toolResults()))
				}
			}

			// Without a scope, the calls count in the caller's implicit
			// run: the limit still holds.
			runIDs = nil
			if _, err := run(context.Background(), userMsg("go")); err != nil {
				t.Fatal(err)
			}
			if len(runIDs) != 2 || runIDs[0] != "" {
				t.Errorf("without a scope: run ids %q, want two calls outside a run (the limit stops the third)", runIDs)
			}
			// A ctx that carries a run keeps it.
			runIDs = nil
			ctx, r := adapter.WithRun(context.Background(), &adapter.RunOptions{ID: "outer"})
			if _, err := run(ctx, userMsg("go"), scope); err != nil {
				t.Fatal(err)
			}
			if len(runIDs) != 2 || runIDs[0] != "outer" || r.Calls() != 2 {
				t.Errorf("outer run: ids %q, calls %d", runIDs, r.Calls())
			}
		})
	}
}

// Per-call knobs travel as eino tool options.
func TestPerCallOptions(t *testing.T) {
	slow := adapter.MustRawTool("slow", "waits for its deadline", &adapterObject, func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, &adapter.ToolOptions{Timeout: time.Minute, Annotations: adapter.Annotations{ReadOnly: true}})
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	other := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: adapter.ApprovalFunc(
		func(context.Context, *adapter.ApprovalRequest) (adapter.Decision, error) {
			return adapter.Decision{Verdict: adapter.VerdictDenied, Reason: "other executor"}, nil
		}), Policy: adapter.ApproveAlways}})
	defer other.Close()
	deny := adapter.ApprovalFunc(func(_ context.Context, r *adapter.ApprovalRequest) (adapter.Decision, error) {
		return adapter.Decision{Verdict: adapter.VerdictDenied, Reason: "per-call port says no to " + r.Tool}, nil
	})
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			cases := []struct {
				name string
				tool string
				opt  tool.Option
				kind adapter.Kind
				msg  string
			}{
				{"timeout", "slow", einoadapter.WithTimeout(20 * time.Millisecond), adapter.KindTimeout, "20ms"},
				// transfer sets no hints, so it counts as destructive and the port is asked.
				{"approval", "transfer", einoadapter.WithApproval(deny), adapter.KindApprovalDenied, "per-call port says no to transfer"},
				{"executor", "add", einoadapter.WithExecutor(other), adapter.KindApprovalDenied, "other executor"},
			}
			transfer := adapter.MustRawTool("transfer", "moves money", &adapterObject, func(context.Context, json.RawMessage) (*adapter.Result, error) {
				return adapter.TextResult("sent"), nil
			}, nil)
			for _, c := range cases {
				m := newModel(call("c1", c.tool, `{}`))
				run := f.build(t, setup{model: m, tools: []tool.BaseTool{mustTool(t, slow, exec, nil), mustTool(t, transfer, exec, nil), mustTool(t, addSpec(), exec, nil)}})
				start := time.Now()
				if c.tool == "add" {
					m.calls[0].Function.Arguments = `{"a":1,"b":1}`
				}
				if _, err := run(context.Background(), userMsg("go"), compose.WithToolsNodeOption(compose.WithToolOption(c.opt))); err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if d := time.Since(start); d > 20*time.Second {
					t.Errorf("%s: took %v", c.name, d)
				}
				var p adapter.Payload
				got := m.toolResults()["c1"]
				if got == nil || json.Unmarshal([]byte(got.Content), &p) != nil || p.Error.Kind != c.kind || !strings.Contains(p.Error.Message, c.msg) {
					t.Errorf("%s: model read %v, want %s mentioning %q", c.name, got, c.kind, c.msg)
				}
			}
		})
	}
}

// A nil executor is refused at construction: no call may run without the
// policy it was meant to follow.
func TestNilExecutor(t *testing.T) {
	if _, err := einoadapter.Tool(addSpec(), nil, nil); err == nil || !strings.Contains(err.Error(), "nil executor") {
		t.Errorf("Tool with a nil executor: err = %v", err)
	}
	reg := registry.New()
	reg.MustRegister(addSpec())
	if _, err := einoadapter.Tools(reg, nil, nil); err == nil || !strings.Contains(err.Error(), "nil executor") {
		t.Errorf("Tools with a nil executor: err = %v", err)
	}
}

// Options.Timeout bounds every call of the tools built with it.
func TestOptionsTimeout(t *testing.T) {
	slow := adapter.MustTool("slow", "waits", func(ctx context.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}, nil)
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	tl := mustTool(t, slow, exec, &einoadapter.Options{Timeout: time.Millisecond})
	out, err := tl.(tool.InvokableTool).InvokableRun(context.Background(), `{}`)
	if err != nil || !strings.Contains(out, `"kind":"timeout"`) {
		t.Errorf("InvokableRun = %q, %v; want a timeout payload", out, err)
	}
}

// Multimodal specs are enhanced tools: an image reaches the model as an
// image part, not as a JSON dump.
func TestMultimodal(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G', 1, 2, 3}
	pic := adapter.MustRawTool("pic", "draws", &adapterObject, func(context.Context, json.RawMessage) (*adapter.Result, error) {
		return &adapter.Result{Content: []adapter.Content{
			&adapter.TextContent{Text: "a picture"},
			&adapter.ImageContent{Data: png, MIMEType: "image/png"},
			&adapter.EmbeddedResource{Resource: &adapter.ResourceContents{URI: "file:///a.txt", Text: "notes"}},
		}}, nil
	}, &adapter.ToolOptions{Tags: []string{einoadapter.TagMultimodal}, Annotations: adapter.Annotations{ReadOnly: true}})
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	tl := mustTool(t, pic, exec, nil)
	if _, ok := tl.(tool.EnhancedInvokableTool); !ok {
		t.Fatalf("a multimodal spec gave %T, want an EnhancedInvokableTool", tl)
	}
	if _, ok := mustTool(t, pic, exec, &einoadapter.Options{Multimodal: func(*adapter.Spec) bool { return false }}).(tool.InvokableTool); !ok {
		t.Errorf("Options.Multimodal returning false did not give a text tool")
	}
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			m := newModel(call("c1", "pic", `{}`))
			run := f.build(t, setup{model: m, tools: []tool.BaseTool{tl}})
			if _, err := run(context.Background(), userMsg("draw")); err != nil {
				t.Fatal(err)
			}
			msg := m.toolResults()["c1"]
			if msg == nil {
				t.Fatal("no tool result")
			}
			var types []schema.ChatMessagePartType
			var img *schema.MessageInputImage
			for _, p := range msg.UserInputMultiContent {
				types = append(types, p.Type)
				if p.Image != nil {
					img = p.Image
				}
			}
			if diff := cmp.Diff([]schema.ChatMessagePartType{schema.ChatMessagePartTypeText, schema.ChatMessagePartTypeImageURL, schema.ChatMessagePartTypeText}, types); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
			if img == nil || img.Base64Data == nil || *img.Base64Data != "iVBORwECAw==" || img.MIMEType != "image/png" {
				t.Errorf("image part = %+v", img)
			}
		})
	}
}

func TestInfo(t *testing.T) {
	no := false
	s := adapter.MustTool("add", "adds", func(_ context.Context, in addIn) (addOut, error) { return addOut{}, nil },
		&adapter.ToolOptions{Title: "Adder", Tags: []string{"math"}, Annotations: adapter.Annotations{Idempotent: true, OpenWorld: &no},
			Source: adapter.Source{Server: "calc", RemoteName: "calc.add"}, Meta: map[string]any{"k": "v"}})
	info, err := einoadapter.Info(s)
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "add" || info.Desc != "adds" {
		t.Errorf("info = %+v", info)
	}
	out, ok := info.Extra[einoadapter.ExtraOutputSchema]
	delete(info.Extra, einoadapter.ExtraOutputSchema)
	want := map[string]any{
		"title": "Adder", "source": "mcp:calc", "remoteName": "calc.add", "tags": []string{"math"},
		"annotations": map[string]bool{"readOnlyHint": false, "idempotentHint": true, "openWorldHint": false},
		"_meta":       map[string]any{"k": "v"},
	}
	if diff := cmp.Diff(want, info.Extra); diff != "" {
		t.Errorf("Extra (-want +got):\n%s", diff)
	}
	b, _ := json.Marshal(out)
	if !ok || !strings.Contains(string(b), `"sum"`) {
		t.Errorf("output schema = %s", b)
	}
}

func TestTools(t *testing.T) {
	reg := registry.New()
	onlyMCP := adapter.MustTool("mcponly", "not for eino", func(context.Context, addIn) (addOut, error) { return addOut{}, nil },
		&adapter.ToolOptions{Targets: []string{adapter.TargetMCP}})
	tagged := adapter.MustTool("tagged", "tagged", func(context.Context, addIn) (addOut, error) { return addOut{}, nil },
		&adapter.ToolOptions{Tags: []string{"x"}})
	reg.MustRegister(addSpec(), onlyMCP, tagged)
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	names := func(o *einoadapter.Options) []string {
		tools, err := einoadapter.Tools(reg, exec, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range tools {
			info, _ := tl.Info(context.Background())
			out = append(out, info.Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"add", "tagged"}, names(nil)); diff != "" {
		t.Errorf("Tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tagged"}, names(&einoadapter.Options{Filter: registry.Filter{Tags: []string{"x"}, Target: adapter.TargetMCP}})); diff != "" {
		t.Errorf("Tools with a filter (-want +got):\n%s", diff)
	}
	if _, err := einoadapter.Tool(nil, exec, nil); err == nil {
		t.Error("Tool(nil) succeeded")
	}
	if _, err := einoadapter.Tool(&adapter.Spec{Name: "bad name!"}, exec, nil); err == nil {
		t.Error("Tool with an invalid spec succeeded")
	}
}

func canonAll(t *testing.T, args []string) []string {
	var out []string
	for _, a := range args {
		c, err := adapter.CanonicalJSON(json.RawMessage(a))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(c))
	}
	slices.Sort(out)
	return out
}

func contents(m map[string]*schema.Message) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = toolText(v)
	}
	return out
}

// Two calls held at once: approving and resuming one leaves the other
// pending under the same ticket; the first does not run again when the
// second is resumed.
func TestApprovalTwoPending(t *testing.T) {
	for _, f := range flavours {
		t.Run(f.name, func(t *testing.T) {
			var mu sync.Mutex
			ran := map[string]int{}
			transfer := adapter.MustRawTool("transfer", "moves money", &adapterObject, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
				c, _ := adapter.CanonicalJSON(args)
				mu.Lock()
				ran[string(c)]++
				mu.Unlock()
				return adapter.TextResult("sent " + string(c)), nil
			}, nil)
			deferred := &adapter.Deferred{}
			exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: deferred}})
			defer exec.Close()
			m := newModel(call("c1", "transfer", `{"to":"bob"}`), call("c2", "transfer", `{"to":"eve"}`))
			run := f.build(t, setup{model: m, tools: []tool.BaseTool{mustTool(t, transfer, exec, nil)}, store: &memStore{}})
			ctx := context.Background()
			_, err := run(ctx, userMsg("pay both"), compose.WithCheckPointID("cp"))
			pend := einoadapter.PendingFromError(err)
			if len(pend) != 2 {
				t.Fatalf("want two pending, got %v", err)
			}
			byCall := map[string]*einoadapter.Pending{}
			for _, p := range pend {
				byCall[p.CallID] = p
			}
			bob, eve := byCall["c1"], byCall["c2"]
			if bob == nil || eve == nil {
				t.Fatalf("pending = %+v", pend)
			}
			must(t, deferred.Approve(ctx, bob.Ticket, "alice"))
			_, err = run(compose.Resume(ctx, bob.InterruptID), nil, compose.WithCheckPointID("cp"))
			still := einoadapter.PendingFromError(err)
			if len(still) != 1 || still[0].CallID != "c2" || still[0].Ticket != eve.Ticket {
				t.Fatalf("after resuming bob: err = %v, want eve still pending under ticket %s", err, eve.Ticket)
			}
			must(t, deferred.Approve(ctx, eve.Ticket, "alice"))
			out, err := run(compose.Resume(ctx, still[0].InterruptID), nil, compose.WithCheckPointID("cp"))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int{`{"to":"bob"}`: 1, `{"to":"eve"}`: 1}
			if diff := cmp.Diff(want, ran); diff != "" {
				t.Errorf("runs per arguments (-want +got):\n%s", diff)
			}
			if out.Content != `done: c1=sent {"to":"bob"} | c2=sent {"to":"eve"}` {
				t.Errorf("answer = %q", out.Content)
			}
		})
	}
}

// Called outside a graph, a held call returns the interrupt error, which
// PendingFromError still reads.
func TestPendingOutsideGraph(t *testing.T) {
	deferred := &adapter.Deferred{}
	exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: deferred, Policy: adapter.ApproveAlways}})
	defer exec.Close()
	spec := addSpec()
	tl := mustTool(t, spec, exec, nil)
	if got, ok := einoadapter.SpecOf(tl); !ok || got != spec {
		t.Errorf("SpecOf = %v, %v", got, ok)
	}
	if _, ok := einoadapter.SpecOf(nil); ok {
		t.Error("SpecOf(nil) reported a spec")
	}
	_, err := tl.(tool.InvokableTool).InvokableRun(context.Background(), `{"a":1,"b":2}`)
	pend := einoadapter.PendingFromError(err)
	if len(pend) != 1 || pend[0].Tool != "add" || pend[0].Ticket == "" {
		t.Fatalf("err = %v, pending = %+v", err, pend)
	}
	if einoadapter.PendingFromError(errors.New("other")) != nil || einoadapter.PendingFromError(nil) != nil {
		t.Error("PendingFromError found approvals in unrelated errors")
	}
}

// RunScope also opens a run when the agent streams.
func TestRunScopeStream(t *testing.T) {
	var runID string
	probe := adapter.MustRawTool("probe", "records its run", &adapterObject, func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		runID = adapter.ToolCallFromContext(ctx).RunID
		return adapter.TextResult("ok"), nil
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	ctx := context.Background()
	a, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: newModel(call("c1", "probe", `{}`)),
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{mustTool(t, probe, exec, nil)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	sr, err := a.Stream(ctx, userMsg("go"), agent.WithComposeOptions(compose.WithCallbacks(einoadapter.RunScope(nil))))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for {
		msg, err := sr.Recv()
		if err != nil {
			break
		}
		text.WriteString(msg.Content)
	}
	sr.Close()
	if text.String() != "done: c1=ok" || runID == "" {
		t.Errorf("streamed %q; tool ran in run %q", text.String(), runID)
	}
}
