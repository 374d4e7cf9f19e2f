package openaiadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/integrations/openaiadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// rmTool removes nothing but counts its runs by path.
type rmTool struct {
	mu   atomic.Int32
	runs map[string]*atomic.Int32
}

func newRM() (*rmTool, *adapter.Spec) {
	r := &rmTool{runs: map[string]*atomic.Int32{"/tmp/a": {}, "/etc": {}}}
	return r, adapter.MustTool("rm", "removes a file", func(_ context.Context, in struct {
		Path string `json:"path"`
	}) (string, error) {
		r.mu.Add(1)
		if c, ok := r.runs[in.Path]; ok {
			c.Add(1)
		}
		return "removed " + in.Path, nil
	}, &adapter.ToolOptions{Output: adapter.OutputText})
}

// payloadKind is the kind of the payload a model read, or "".
func payloadKind(s string) string {
	var p struct {
		Error struct {
			Kind string `json:"kind"`
		} `json:"error"`
	}
	_ = json.Unmarshal([]byte(s), &p)
	return p.Error.Kind
}

// script asks for each turn's calls in order, then answers "done".
func script(turns ...[]openai.ChatCompletionMessageToolCallUnion) func(int, wireRequest) any {
	return func(n int, _ wireRequest) any {
		if n < len(turns) {
			return completion("", turns[n]...)
		}
		return completion("done")
	}
}

type fixture struct {
	rm     *rmTool
	reg    *registry.Registry
	exec   *adapter.Executor
	led    *adapter.MemoryLedger
	port   *approval.Deferred
	ts     *openaiadapter.Toolset
	params openai.ChatCompletionNewParams
}

// newFixture is a registry holding rm, held for approval when hold.
func newFixture(t *testing.T, hold bool, opts *adapter.ExecutorOptions) *fixture {
	f := &fixture{reg: registry.New(), led: adapter.NewMemoryLedger(100), port: &approval.Deferred{}}
	var spec *adapter.Spec
	f.rm, spec = newRM()
	if !hold {
		spec.Annotations.ReadOnly = true
	}
	f.reg.MustRegister(spec)
	if opts == nil {
		opts = &adapter.ExecutorOptions{}
	}
	opts.Ledger, opts.Approval.Port = f.led, f.port
	if !hold {
		opts.Approval.Policy = adapter.ApproveNever
	}
	f.exec = adapter.NewExecutor(f.reg, opts)
	t.Cleanup(func() { f.exec.Close() })
	var err error
	if f.ts, err = openaiadapter.New(f.reg, f.exec, nil); err != nil {
		t.Fatal(err)
	}
	f.params = openai.ChatCompletionNewParams{Model: "gpt-test", Messages: userMsg("go")}
	return f
}

// TestAttackArguments: arguments a model made up, oversized or malformed,
// read args_invalid, run nothing and the loop goes on to the model's answer.
func TestAttackArguments(t *testing.T) {
	huge := `{"path":"` + strings.Repeat("A", adapter.DefaultMaxArgBytes+1) + `"}`
	for name, args := range map[string]string{
		"oversized": huge, "malformed": `{"path":`, "not an object": `["/tmp/a"]`, "wrong type": `{"path":7}`,
		"extra key": `{"path":"/tmp/a","recursive":true}`, "duplicate key": `{"path":"/tmp/a","path":"/etc"}`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, false, nil)
			api := newFakeAPI(t, script([]openai.ChatCompletionMessageToolCallUnion{toolCall("c1", "rm", args)}))
			client := api.client()
			conv, err := f.ts.Loop(bg, &client.Chat.Completions, f.params)
			if err != nil {
				t.Fatalf("the loop aborted: %v", err)
			}
			if got := conv.Completion.Choices[0].Message.Content; got != "done" {
				t.Errorf("the loop ended on %q", got)
			}
			read, _ := api.requests()[1].toolText("c1")
			if name == "duplicate key" || name == "extra key" {
				// Accepted or refused, never a run on the other path.
				if f.rm.runs["/etc"].Load() != 0 {
					t.Errorf("the call ran on /etc: %q", read)
				}
				return
			}
			if payloadKind(read) != string(adapter.KindArgsInvalid) || f.rm.mu.Load() != 0 {
				t.Errorf("the model read %.200q after %d runs, want args_invalid and none", read, f.rm.mu.Load())
			}
			if len(read) > 4096 {
				t.Errorf("the payload is %d bytes: it echoes the input", len(read))
			}
		})
	}
}

// TestAttackUnknownTool: a name not in the registry, and a custom tool
// call, read not_found, are recorded in the ledger, and the loop goes on.
func TestAttackUnknownTool(t *testing.T) {
	f := newFixture(t, false, nil)
	custom := openai.ChatCompletionMessageToolCallUnion{ID: "c2", Type: "custom",
		Custom: openai.ChatCompletionMessageCustomToolCallCustom{Name: "rm", Input: `{"path":"/etc"}`}}
	api := newFakeAPI(t, script([]openai.ChatCompletionMessageToolCallUnion{toolCall("c1", "rm_rf_everything", `{}`), custom}))
	client := api.client()
	if _, err := f.ts.Loop(bg, &client.Chat.Completions, f.params); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c1", "c2"} {
		if read, _ := api.requests()[1].toolText(id); payloadKind(read) != string(adapter.KindNotFound) {
			t.Errorf("%s: the model read %q, want not_found", id, read)
		}
	}
	if f.rm.mu.Load() != 0 {
		t.Error("the custom call ran the function of its name")
	}
	f.exec.Flush(bg)
	var found int
	for _, r := range f.led.Records() {
		if (r.Tool == "rm_rf_everything" || r.Tool == "custom:rm") && r.Outcome == string(adapter.KindNotFound) && r.Integration == openaiadapter.Integration {
			found++
		}
	}
	if found != 2 {
		t.Errorf("%d not_found records in the ledger, want 2: %+v", found, f.led.Records())
	}
}

// heldLoop runs a loop whose model asks for rm on /tmp/a, held for approval.
func heldLoop(t *testing.T, f *fixture, api *fakeAPI) *openaiadapter.Conversation {
	t.Helper()
	client := api.client()
	conv, err := f.ts.Loop(bg, &client.Chat.Completions, f.params)
	if !errors.Is(err, openaiadapter.ErrPending) || len(conv.Held) != 1 {
		t.Fatalf("Loop = %v, held %v; want ErrPending and one held call", err, conv.Held)
	}
	if h := conv.Held[0]; h.Tool != "rm" || h.CallID != "c1" || h.Args != `{"path":"/tmp/a"}` || h.Ticket == "" {
		t.Fatalf("held %+v", h)
	}
	if f.rm.mu.Load() != 0 {
		t.Fatal("the held call ran")
	}
	return conv
}

// TestAttackApprovalReplay: the conversation a loop stopped on, resumed
// twice, runs the approved call once; the replay's call is held again.
func TestAttackApprovalReplay(t *testing.T) {
	f := newFixture(t, true, nil)
	api := newFakeAPI(t, func(n int, r wireRequest) any {
		if n == 0 {
			return completion("", toolCall("c1", "rm", `{"path":"/tmp/a"}`))
		}
		return completion("done")
	})
	conv := heldLoop(t, f, api)
	if err := f.port.Approve(bg, conv.Held[0].Ticket, "test"); err != nil {
		t.Fatal(err)
	}
	client := api.client()
	done, err := f.ts.Resume(bg, &client.Chat.Completions, conv, f.params)
	if err != nil || done.Completion.Choices[0].Message.Content != "done" {
		t.Fatalf("Resume = %v", err)
	}
	reqs := api.requests()
	if read, _ := reqs[len(reqs)-1].toolText("c1"); read != "removed /tmp/a" {
		t.Errorf("the model read %q after the resume", read)
	}
	again, err := f.ts.Resume(bg, &client.Chat.Completions, conv, f.params)
	if !errors.Is(err, openaiadapter.ErrPending) || len(again.Held) != 1 || again.Held[0].Ticket == conv.Held[0].Ticket {
		t.Errorf("the replay = %v, held %v; want the call held again under a new ticket", err, again.Held)
	}
	if n := f.rm.runs["/tmp/a"].Load(); n != 1 {
		t.Errorf("the approved call ran %d times, want 1", n)
	}
}

// TestAttackSwappedArguments: arguments swapped in the held call before
// the resume are denied and run nothing, on either path.
func TestAttackSwappedArguments(t *testing.T) {
	f := newFixture(t, true, nil)
	api := newFakeAPI(t, script([]openai.ChatCompletionMessageToolCallUnion{toolCall("c1", "rm", `{"path":"/tmp/a"}`)}))
	conv := heldLoop(t, f, api)
	if err := f.port.Approve(bg, conv.Held[0].Ticket, "test"); err != nil {
		t.Fatal(err)
	}
	swapped := *conv.Held[0]
	swapped.Args = `{"path":"/etc"}`
	conv.Held = []*kit.HeldCall{&swapped}
	client := api.client()
	_, err := f.ts.Resume(bg, &client.Chat.Completions, conv, f.params)
	if err != nil {
		t.Fatalf("Resume = %v", err)
	}
	reqs := api.requests()
	if read, _ := reqs[len(reqs)-1].toolText("c1"); payloadKind(read) != string(adapter.KindApprovalDenied) {
		t.Errorf("the model read %q, want approval_denied", read)
	}
	if f.rm.mu.Load() != 0 {
		t.Errorf("a swapped resume ran the tool %d times", f.rm.mu.Load())
	}
}

// TestRunSpansResume: run limits count the whole conversation, across a
// resume, and a new conversation starts a new count.
func TestRunSpansResume(t *testing.T) {
	f := newFixture(t, true, &adapter.ExecutorOptions{Limits: adapter.Limits{MaxCalls: 2}})
	turn := 0
	api := newFakeAPI(t, func(n int, r wireRequest) any {
		turn++
		if turn <= 3 {
			return completion("", toolCall(fmt.Sprint("c", turn), "rm", `{"path":"/tmp/a"}`))
		}
		return completion("done")
	})
	client := api.client()
	conv, err := f.ts.Loop(bg, &client.Chat.Completions, f.params)
	if !errors.Is(err, openaiadapter.ErrPending) {
		t.Fatalf("Loop = %v", err)
	}
	if err := f.port.Approve(bg, conv.Held[0].Ticket, "test"); err != nil {
		t.Fatal(err)
	}
	for {
		conv, err = f.ts.Resume(bg, &client.Chat.Completions, conv, f.params)
		if !errors.Is(err, openaiadapter.ErrPending) {
			break
		}
		if err := f.port.Approve(bg, conv.Held[0].Ticket, "test"); err != nil {
			t.Fatal(err)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	reqs := api.requests()
	if read, _ := reqs[len(reqs)-1].toolText("c3"); payloadKind(read) != string(adapter.KindRunLimitExceeded) {
		t.Errorf("the third call of the conversation read %q, want run_limit_exceeded", read)
	}
	if n := f.rm.mu.Load(); n != 2 {
		t.Errorf("%d runs, want 2", n)
	}
}

// TestUntypedToolCall: a tool call with no "type", as some OpenAI-compatible
// servers send it, is a function call: the loop runs it, the next request
// carries it (typed) with its answer, and ChatAnswers alone runs it too.
func TestUntypedToolCall(t *testing.T) {
	f := newFixture(t, false, nil)
	untyped := json.RawMessage(`{"id":"chatcmpl-untyped","object":"chat.completion","created":1,"model":"compat",
		"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
		"tool_calls":[{"id":"c1","function":{"name":"rm","arguments":"{\"path\":\"/tmp/a\"}"}}]}}]}`)
	api := newFakeAPI(t, func(n int, _ wireRequest) any {
		if n == 0 {
			return untyped
		}
		return completion("done")
	})
	client := api.client()
	conv, err := f.ts.Loop(bg, &client.Chat.Completions, f.params)
	if err != nil || conv.Completion.Choices[0].Message.Content != "done" {
		t.Fatalf("Loop = %v", err)
	}
	if read, _ := api.requests()[1].toolText("c1"); read != "removed /tmp/a" {
		t.Errorf("the model read %q, want removed /tmp/a", read)
	}
	var c openai.ChatCompletion
	if err := json.Unmarshal(untyped, &c); err != nil {
		t.Fatal(err)
	}
	msgs, held, err := f.ts.ChatAnswers(bg, c.Choices[0].Message)
	if err != nil || len(held) != 0 || len(msgs) != 1 || msgs[0].OfTool.Content.OfString.Value != "removed /tmp/a" {
		t.Errorf("ChatAnswers = %d messages, held %v, %v", len(msgs), held, err)
	}
	if n := f.rm.runs["/tmp/a"].Load(); n != 2 {
		t.Errorf("rm ran %d times, want 2 (the loop's call, ChatAnswers')", n)
	}
}

// TestFaultBesideHeld: a turn with a fault and a held call ends the loop
// with the fault, the held call in conv.Held all the same (the fault's call
// answered with a fault payload); once approved, Resume runs the held call
// once and the loop goes on to the model's answer.
func TestFaultBesideHeld(t *testing.T) {
	rm, spec := newRM()
	fetch := adapter.MustTool("fetch", "fetches a page", func(context.Context, struct{}) (string, error) {
		return "", &adapter.Error{Kind: adapter.KindConnection, Message: "the upstream is gone"}
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: new(bool)}}) // not held
	reg := registry.New()
	reg.MustRegister(spec, fetch)
	port := &approval.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: port}})
	defer exec.Close()
	ts, err := openaiadapter.New(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	api := newFakeAPI(t, script([]openai.ChatCompletionMessageToolCallUnion{
		toolCall("c1", "fetch", `{}`), toolCall("c2", "rm", `{"path":"/tmp/a"}`)}))
	client := api.client()
	params := openai.ChatCompletionNewParams{Model: "gpt-test", Messages: userMsg("go")}
	conv, err := ts.Loop(bg, &client.Chat.Completions, params)
	if adapter.KindOf(err) != adapter.KindConnection || errors.Is(err, openaiadapter.ErrPending) {
		t.Fatalf("Loop = %v, want the fault (not ErrPending)", err)
	}
	if len(conv.Held) != 1 || conv.Held[0].CallID != "c2" || len(conv.Messages) != 3 || conv.Messages[2].OfTool == nil {
		t.Fatalf("conv: held %v, %d messages; want c2 held, user, assistant and c1's answer", conv.Held, len(conv.Messages))
	}
	if err := port.Approve(bg, conv.Held[0].Ticket, "test"); err != nil {
		t.Fatal(err)
	}
	done, err := ts.Resume(bg, &client.Chat.Completions, conv, params)
	if err != nil || done.Completion.Choices[0].Message.Content != "done" {
		t.Fatalf("Resume = %v", err)
	}
	reqs := api.requests()
	last := reqs[len(reqs)-1]
	if read, _ := last.toolText("c1"); payloadKind(read) != string(adapter.KindConnection) {
		t.Errorf("c1 read %q, want the fault payload", read)
	}
	if read, _ := last.toolText("c2"); read != "removed /tmp/a" {
		t.Errorf("c2 read %q after the resume, want removed /tmp/a", read)
	}
	if n := rm.runs["/tmp/a"].Load(); n != 1 {
		t.Errorf("the held call ran %d times, want 1", n)
	}
}

// TestMaxTurnsPerResume: Options.MaxTurns bounds a Loop and, afresh, each
// Resume: one turn each, a conversation of three model calls ends.
func TestMaxTurnsPerResume(t *testing.T) {
	f := newFixture(t, true, nil)
	ts, err := openaiadapter.New(f.reg, f.exec, &openaiadapter.Options{MaxTurns: 1})
	if err != nil {
		t.Fatal(err)
	}
	api := newFakeAPI(t, script([]openai.ChatCompletionMessageToolCallUnion{toolCall("c1", "rm", `{"path":"/tmp/a"}`)},
		[]openai.ChatCompletionMessageToolCallUnion{toolCall("c2", "rm", `{"path":"/tmp/a"}`)}))
	client := api.client()
	conv, err := ts.Loop(bg, &client.Chat.Completions, f.params)
	for i := 0; errors.Is(err, openaiadapter.ErrPending) && i < 3; i++ {
		if err := f.port.Approve(bg, conv.Held[0].Ticket, "test"); err != nil {
			t.Fatal(err)
		}
		conv, err = ts.Resume(bg, &client.Chat.Completions, conv, f.params)
	}
	if err != nil || conv.Completion.Choices[0].Message.Content != "done" {
		t.Fatalf("the conversation ended with %v", err)
	}
	if n := len(api.requests()); n != 3 {
		t.Errorf("%d model calls, want 3", n)
	}
	if n := f.rm.runs["/tmp/a"].Load(); n != 2 {
		t.Errorf("rm ran %d times, want 2", n)
	}
}
