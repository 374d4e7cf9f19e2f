package langchaingoadapter_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"

	"github.com/agentadapter/agentadapter/adapter"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// promptRecorder wraps a model and keeps the text of every prompt, which is
// where a text agent's observations reach the model.
type promptRecorder struct {
	llms.Model
	mu      sync.Mutex
	prompts []string
}

func (r *promptRecorder) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	r.mu.Lock()
	r.prompts = append(r.prompts, promptText(msgs))
	r.mu.Unlock()
	return r.Model.GenerateContent(ctx, msgs, opts...)
}

func (r *promptRecorder) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, r, prompt, opts...)
}

// agentCase is one tool an agent test drives: the input the model writes,
// and the observation it must read back.
type agentCase struct {
	name  string
	tool  string
	input string // the model's tool input (OneShot) or arguments (function calling)
	want  string // the observation, exactly
}

func localCases() []agentCase {
	return []agentCase{
		{name: "local typed tool", tool: "add", input: `{"a": 2, "b": 3}`, want: `{"sum":5}`},
		{name: "failing tool", tool: "fail", input: `{"path": "/var/x"}`,
			want: `{"error":{"kind":"tool_error","message":"disk full while writing /var/x","tool":"fail"}}`},
	}
}

func TestOneShotAgent(t *testing.T) {
	reg := newRegistry(t, addSpec(), failSpec())
	runOneShot(t, reg, localCases())
}

// runOneShot runs a OneShot agent on llms/fake: one action per case, then
// a final answer; each observation must reach the model's next prompt.
func runOneShot(t *testing.T, reg *registry.Registry, cases []agentCase) {
	t.Helper()
	exec := newExecutor(t, reg, nil)
	cb := &recordingHandler{}
	var script []string
	for _, c := range cases {
		script = append(script, "Thought: I should use "+c.tool+".\nAction: "+c.tool+"\nAction Input: "+c.input)
	}
	script = append(script, "Thought: done.\nFinal Answer: all tools ran")
	model := &promptRecorder{Model: fake.NewFakeLLM(script)}
	tools := mustTools(t, reg, exec, &lca.Options{Callbacks: cb})
	agent := agents.NewOneShotAgent(model, tools, agents.WithMaxIterations(len(cases)+1))

	out, err := lca.Run(context.Background(), agents.NewExecutor(agent, agents.WithMaxIterations(len(cases)+1)), "use the tools", nil)
	if err != nil {
		t.Fatalf("agent run failed: %v", err)
	}
	if out != "all tools ran" {
		t.Errorf("agent output = %q", out)
	}
	if len(model.prompts) != len(cases)+1 {
		t.Fatalf("model was prompted %d times, want %d", len(model.prompts), len(cases)+1)
	}
	for _, tl := range tools {
		if !strings.Contains(model.prompts[0], "- "+tl.Name()+": "+tl.Description()) {
			t.Errorf("first prompt does not list %s with its description %q:\n%s", tl.Name(), tl.Description(), model.prompts[0])
		}
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obs := "Observation: " + c.want + "\n"
			if !strings.Contains(model.prompts[i+1], obs) {
				t.Errorf("prompt %d lacks %q:\n%s", i+1, obs, model.prompts[i+1])
			}
		})
	}
	var starts int
	for _, e := range cb.Events() {
		if strings.HasPrefix(e, "start ") {
			starts++
		}
	}
	if starts != len(cases) {
		t.Errorf("HandleToolStart fired %d times, want %d: %q", starts, len(cases), cb.Events())
	}
}

func TestOpenAIFunctionsAgent(t *testing.T) {
	reg := newRegistry(t, addSpec(), failSpec())
	runFunctionsAgent(t, reg, localCases())
}

// runFunctionsAgent runs langchaingo's OpenAIFunctionsAgent on a scripted
// model that asks for every case's tool in one turn, in the wrappers the
// agent's models use, then answers.
func runFunctionsAgent(t *testing.T, reg *registry.Registry, cases []agentCase) {
	t.Helper()
	exec := newExecutor(t, reg, nil)
	var calls []llms.ToolCall
	for i, c := range cases {
		// Alternate the conventions: {"__arg1": "<json>"} (which the agent
		// unwraps itself) and {"__arg1": {...}} (which it passes through).
		args := wrapArg1(c.input, 1)
		if i%2 == 1 {
			args = `{"__arg1": ` + c.input + `}`
		}
		calls = append(calls, toolCall("call_"+c.tool, c.tool, args))
	}
	model := &scriptedModel{turns: []turn{callTools(calls...), answer("finished")}}
	tools := mustTools(t, reg, exec, nil)
	agent := agents.NewOpenAIFunctionsAgent(model, tools)
	out, err := lca.Run(context.Background(), agents.NewExecutor(agent), "use the tools", nil)
	if err != nil {
		t.Fatalf("agent run failed: %v", err)
	}
	if out != "finished" {
		t.Errorf("agent output = %q", out)
	}
	reqs := model.requests()
	if len(reqs) != 2 {
		t.Fatalf("model called %d times, want 2", len(reqs))
	}
	// The agent advertised our descriptions (with the input line).
	descs := map[string]string{}
	for _, f := range model.opts[0].Functions {
		descs[f.Name] = f.Description
	}
	for _, tl := range tools {
		if descs[tl.Name()] != tl.Description() {
			t.Errorf("function %s advertised with %q, want %q", tl.Name(), descs[tl.Name()], tl.Description())
		}
	}
	got := toolResponses(reqs[1])
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, got["call_"+c.tool]); diff != "" {
				t.Errorf("tool response the model received (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDispatcherLoop(t *testing.T) {
	reg := newRegistry(t, addSpec(), failSpec())
	runLoop(t, reg, localCases())
}

// runLoop runs Dispatcher.Loop on a scripted model that asks for every
// case's tool (plus an unknown one) in one turn and then echoes the last
// tool response.
func runLoop(t *testing.T, reg *registry.Registry, cases []agentCase) {
	t.Helper()
	exec := newExecutor(t, reg, nil)
	cb := &recordingHandler{}
	var calls []llms.ToolCall
	for _, c := range cases {
		calls = append(calls, toolCall("call_"+c.tool, c.tool, c.input))
	}
	calls = append(calls, toolCall("call_nope", "nope", `{}`))
	model := &scriptedModel{turns: []turn{callTools(calls...), answerWithLastTool("last: ")}}
	d := mustDispatcher(t, reg, exec, &lca.DispatcherOptions{Callbacks: cb})

	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "use the tools")}
	conv, final, err := d.Loop(context.Background(), model, msgs, nil)
	if err != nil {
		t.Fatalf("Loop: %v", err)
	}
	wantLast := `last: {"error":{"kind":"not_found","message":"no tool named \"nope\"","tool":"nope"}}`
	if final == nil || final.Content != wantLast {
		t.Errorf("final = %+v, want content %q", final, wantLast)
	}
	// human, assistant (tool calls), one tool message per call, assistant.
	if want := 1 + 1 + len(calls) + 1; len(conv) != want {
		t.Fatalf("conversation has %d messages, want %d", len(conv), want)
	}
	if conv[1].Role != llms.ChatMessageTypeAI || len(conv[1].Parts) != len(calls) {
		t.Errorf("assistant message = %+v, want %d tool calls", conv[1], len(calls))
	}
	for i := range calls {
		m := conv[2+i]
		if m.Role != llms.ChatMessageTypeTool || len(m.Parts) != 1 {
			t.Errorf("message %d = %+v, want one tool response", 2+i, m)
		}
	}
	// The model was sent the full schemas, not {"__arg1": string}.
	opts := model.opts[0]
	if len(opts.Tools) != reg.Len() {
		t.Fatalf("model got %d tools, want %d", len(opts.Tools), reg.Len())
	}
	for _, def := range opts.Tools {
		spec, _ := reg.Lookup(def.Function.Name)
		want, _ := lca.Definition(spec, false)
		if diff := cmp.Diff(want.Function.Parameters, def.Function.Parameters); diff != "" {
			t.Errorf("%s parameters (-want +got):\n%s", def.Function.Name, diff)
		}
	}
	got := toolResponses(model.requests()[1])
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, got["call_"+c.tool]); diff != "" {
				t.Errorf("tool response the model received (-want +got):\n%s", diff)
			}
		})
	}
	if n := len(cb.Events()); n != 2*len(calls) {
		t.Errorf("callbacks fired %d times, want %d (start + end/error per call): %q", n, 2*len(calls), cb.Events())
	}
}

// TestDeferredApprovalInAgent: the model reads approval_pending with the
// ticket; an approver approves; the model repeats the call and it runs.
func TestDeferredApprovalInAgent(t *testing.T) {
	var ran int
	var mu sync.Mutex
	del := adapter.MustTool("delete", "Deletes a file.", func(_ context.Context, in struct {
		Path string `json:"path"`
	}) (string, error) {
		mu.Lock()
		ran++
		mu.Unlock()
		return "deleted " + in.Path, nil
	}, &adapter.ToolOptions{Output: adapter.OutputText}) // destructive by default: needs approval
	reg := newRegistry(t, del)
	var tickets []string
	deferred := &adapter.Deferred{}
	deferred.OnPending = func(tk *adapter.Ticket) {
		tickets = append(tickets, tk.ID)
		// The approver answers while the model is still thinking.
		if err := deferred.Approve(context.Background(), tk.ID, "alice"); err != nil {
			t.Errorf("Approve: %v", err)
		}
	}
	exec := newExecutor(t, reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: deferred}})
	model := &promptRecorder{Model: fake.NewFakeLLM([]string{
		"Action: delete\nAction Input: {\"path\": \"/tmp/a\"}",
		"Thought: it is pending; try again.\nAction: delete\nAction Input: {  \"path\":\"/tmp/a\" }",
		"Final Answer: done",
	})}
	agent := agents.NewOneShotAgent(model, mustTools(t, reg, exec, nil))
	if _, err := lca.Run(context.Background(), agents.NewExecutor(agent), "delete /tmp/a", nil); err != nil {
		t.Fatal(err)
	}
	if len(tickets) != 1 {
		t.Fatalf("tickets issued: %v, want one", tickets)
	}
	pending := `Observation: {"error":{"kind":"approval_pending","message":"the call is waiting for approval (ticket ` + tickets[0] +
		`); retry the same call once it is approved","tool":"delete","ticket":"` + tickets[0] + `"}}`
	if !strings.Contains(model.prompts[1], pending) {
		t.Errorf("second prompt lacks %s:\n%s", pending, model.prompts[1])
	}
	if !strings.Contains(model.prompts[2], "Observation: deleted /tmp/a") {
		t.Errorf("third prompt lacks the result:\n%s", model.prompts[2])
	}
	if ran != 1 {
		t.Errorf("tool ran %d times, want 1", ran)
	}
}
