// Package kittest checks that an integration gives a model what every
// integration gives it, in the spirit of testing/slogtest: the integration
// drives calls through its framework, the kit checks what the model read.
//
//	func TestKit(t *testing.T) {
//		kittest.Run(t, kittest.Harness{Run: func(ctx context.Context, reg *registry.Registry, exec *adapter.Executor, calls []kittest.Call) ([]string, error) {
//			// Build the tools of reg on exec, let a scripted model ask for
//			// calls in order through the framework's own agent loop, and
//			// return the text the model read of each.
//		}})
//	}
//
// Each case is a subtest named for the promise it checks: render/<case>
// (every result of the render golden reads byte for byte as the golden
// says), payload/<kind> (model-facing errors are payloads and the run goes
// on), fault (an infrastructure fault aborts the run with a Go error),
// unknown (a made-up tool name reads not_found and the run goes on),
// approval (a held call reads as pending with its ticket, or stops the run
// as [Harness.Held] reports; once approved the retried call runs once) and
// runlimit (run limits count the calls of one run, and a new run starts a
// new count).
package kittest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

// Call is one tool call the scripted model asks for.
type Call struct {
	// Tool is the name the model uses; it may name no tool.
	Tool string
	// Args are the arguments, a JSON object.
	Args string
}

// Harness is what an integration gives [Run].
type Harness struct {
	// Run drives one agent run through the integration: the tools are the
	// specs of reg (built as the integration builds them, for its target),
	// every call runs through exec, and a scripted model asks for calls,
	// in order, each after reading the result of the one before, through
	// the framework's own agent loop. Run returns the text the model read
	// of each call, or the Go error that aborted the run. Each Run is one
	// agent run (one run scope). Required.
	Run func(ctx context.Context, reg *registry.Registry, exec *adapter.Executor, calls []Call) ([]string, error)
	// Held reports whether err, returned by Run, is the framework's
	// interrupt for a call held for approval, and its ticket. Nil means
	// the integration hands the model the approval_pending payload.
	Held func(err error) (ticket string, ok bool)
	// MediaParts reports that images and audio reach the model as parts
	// of their own, beside the text: the render cases that carry media
	// then read as the text of [adapter.RenderParts] (their other parts
	// are the integration's own test to check), the rest as the golden.
	MediaParts bool
	// TextMedia, if set with MediaParts, reports the media kinds that do
	// not reach the model as parts (a framework that takes images but no
	// audio): those read as adapter.Render's text of their block, in place.
	TextMedia func(adapter.MediaKind) bool
	// Resume, if set, runs calls as the continuation of the last run, the
	// way the integration retries a call once its approval is given (over
	// MCP: in the same session, whose caller the ticket is bound to). Nil
	// means a new run ([Harness.Run]), as a resumed eino graph or genkit
	// generation is.
	Resume func(ctx context.Context, reg *registry.Registry, exec *adapter.Executor, calls []Call) ([]string, error)
}

// Run runs the kit's cases against h, each as a subtest of t.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.Run == nil {
		t.Fatal("kittest: Harness.Run is nil")
	}
	t.Run("render", func(t *testing.T) { testRender(t, h) })
	t.Run("payload", func(t *testing.T) { testPayloads(t, h) })
	t.Run("fault", func(t *testing.T) { testFault(t, h) })
	t.Run("unknown", func(t *testing.T) { testUnknown(t, h) })
	t.Run("approval", func(t *testing.T) { testApproval(t, h) })
	t.Run("runlimit", func(t *testing.T) { testRunLimit(t, h) })
}

func newExec(t *testing.T, reg *registry.Registry, opts *adapter.ExecutorOptions) *adapter.Executor {
	exec := adapter.NewExecutor(reg, opts)
	t.Cleanup(func() { exec.Close() })
	return exec
}

func newReg(t *testing.T, specs ...*adapter.Spec) *registry.Registry {
	reg := registry.New()
	if err := reg.Register(specs...); err != nil {
		t.Fatal(err)
	}
	return reg
}

// run runs calls and checks that the model read one text per call.
func run(t *testing.T, h Harness, reg *registry.Registry, exec *adapter.Executor, calls ...Call) []string {
	t.Helper()
	read, err := h.Run(context.Background(), reg, exec, calls)
	if err != nil {
		t.Fatalf("the run aborted: %v", err)
	}
	if len(read) != len(calls) {
		t.Fatalf("the model read %d results (%q), want %d", len(read), read, len(calls))
	}
	return read
}

func testRender(t *testing.T, h Harness) {
	golden, err := Golden()
	if err != nil {
		t.Fatal(err)
	}
	cases := Cases()
	specs := make([]*adapter.Spec, len(cases))
	for i, c := range cases {
		specs[i] = c.Spec
	}
	reg := newReg(t, specs...)
	exec := newExec(t, reg, nil)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			want, ok := golden[c.Name]
			if !ok {
				t.Fatalf("no golden for %s", c.Name)
			}
			if h.MediaParts {
				want = textParts(t, exec, c, want, h.TextMedia)
			}
			if got := run(t, h, reg, exec, Call{Tool: c.Spec.Name, Args: `{}`})[0]; got != want {
				t.Errorf("the model reads %q\nwant (golden)   %q", got, want)
			}
		})
	}
}

// textParts is the text of a case's parts when it carries media, else
// golden.
func textParts(t *testing.T, exec *adapter.Executor, c Case, golden string, text func(adapter.MediaKind) bool) string {
	res, err := exec.Do(context.Background(), &adapter.Request{Spec: c.Spec})
	if err != nil {
		return golden
	}
	parts := kit.TextMedia(adapter.RenderParts(res, nil), text, nil)
	for _, p := range parts {
		if p.Media != nil {
			return adapter.PartsText(parts)
		}
	}
	return golden
}

type num struct {
	N int `json:"n"`
}

// echo answers "n=<n>".
func echo(name string) *adapter.Spec {
	return adapter.MustTool(name, "echoes n", func(_ context.Context, in num) (string, error) {
		return "n=" + itoa(in.N), nil
	}, &adapter.ToolOptions{Output: adapter.OutputText, Annotations: adapter.Annotations{ReadOnly: true}})
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// payloadOf decodes a model payload, {"error":{"kind":...}}.
func payloadOf(s string) (adapter.PayloadError, bool) {
	var p struct {
		Error adapter.PayloadError `json:"error"`
	}
	if err := json.Unmarshal([]byte(s), &p); err != nil || p.Error.Kind == "" {
		return adapter.PayloadError{}, false
	}
	return p.Error, true
}

func wantKind(t *testing.T, read string, kind adapter.Kind) adapter.PayloadError {
	t.Helper()
	p, ok := payloadOf(read)
	if !ok || p.Kind != kind {
		t.Errorf("the model read %q, want a %s payload", read, kind)
	}
	return p
}

func testPayloads(t *testing.T, h Harness) {
	fail := adapter.MustTool("kit_fail", "fails", func(context.Context, num) (string, error) {
		return "", errors.New("the disk is full")
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
	blocked := adapter.MustTool("kit_blocked", "blocked by a guard", func(context.Context, num) (string, error) {
		return "ran", nil
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
	reg := newReg(t, echo("kit_echo"), fail, blocked)
	guard := adapter.Guard{Name: "kittest", Input: func(_ context.Context, c *adapter.ToolCall) error {
		if c.Spec.Name == "kit_blocked" {
			return errors.New("not this one")
		}
		return nil
	}}
	exec := newExec(t, reg, &adapter.ExecutorOptions{Guards: []adapter.Guard{guard}})
	for _, tt := range []struct {
		kind adapter.Kind
		call Call
	}{
		{adapter.KindToolError, Call{"kit_fail", `{"n":1}`}},
		{adapter.KindArgsInvalid, Call{"kit_echo", `{"n":"one"}`}},
		{adapter.KindGuardrailBlocked, Call{"kit_blocked", `{"n":1}`}},
	} {
		t.Run(string(tt.kind), func(t *testing.T) {
			// The run goes on: the next call is read too.
			read := run(t, h, reg, exec, tt.call, Call{"kit_echo", `{"n":2}`})
			wantKind(t, read[0], tt.kind)
			if read[1] != "n=2" {
				t.Errorf("after the %s payload the model read %q, want n=2", tt.kind, read[1])
			}
		})
	}
}

func testFault(t *testing.T, h Harness) {
	fault := adapter.MustTool("kit_fault", "breaks", func(context.Context, num) (string, error) {
		return "", &adapter.Error{Kind: adapter.KindConnection, Message: "the upstream is gone"}
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
	reg := newReg(t, fault, echo("kit_echo"))
	exec := newExec(t, reg, nil)
	read, err := h.Run(context.Background(), reg, exec, []Call{{"kit_fault", `{"n":1}`}, {"kit_echo", `{"n":2}`}})
	if err == nil {
		t.Errorf("a connection fault did not abort the run; the model read %q", read)
		return
	}
	// The run's error is the fault (a framework may flatten it to text):
	// not some other failure that happened to end the run.
	if adapter.KindOf(err) != adapter.KindConnection && !strings.Contains(err.Error(), "the upstream is gone") {
		t.Errorf("the run ended with %v; want the tool's connection fault", err)
	}
}

func testUnknown(t *testing.T, h Harness) {
	reg := newReg(t, echo("kit_echo"))
	l := adapter.NewMemoryLedger(0)
	exec := newExec(t, reg, &adapter.ExecutorOptions{Ledger: l})
	read := run(t, h, reg, exec, Call{"kit_made_up", `{"n":1}`}, Call{"kit_echo", `{"n":2}`})
	wantKind(t, read[0], adapter.KindNotFound)
	if read[1] != "n=2" {
		t.Errorf("after an unknown tool the model read %q, want n=2", read[1])
	}
	if err := exec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var unknown int
	for _, r := range l.Records() {
		if r.Tool == "kit_made_up" && r.Outcome == string(adapter.KindNotFound) {
			unknown++
		}
	}
	if unknown != 1 {
		t.Errorf("the unknown call left %d not_found records, want 1: %+v", unknown, l.Records())
	}
}

func testApproval(t *testing.T, h Harness) {
	var runs atomic.Int32
	del := adapter.MustTool("kit_delete", "deletes a file (destructive: held for approval)", func(_ context.Context, in struct {
		Path string `json:"path"`
	}) (string, error) {
		runs.Add(1)
		return "deleted " + in.Path, nil
	}, &adapter.ToolOptions{Output: adapter.OutputText})
	reg := newReg(t, del)
	port := &adapter.Deferred{}
	exec := newExec(t, reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: port}})
	call := Call{"kit_delete", `{"path":"/tmp/a"}`}
	ctx := context.Background()

	again := h.Run
	held := func() string {
		t.Helper()
		read, err := again(ctx, reg, exec, []Call{call})
		if h.Held != nil {
			ticket, ok := h.Held(err)
			if !ok || ticket == "" {
				t.Fatalf("a held call did not stop the run with its ticket: read %q, err %v", read, err)
			}
			return ticket
		}
		if err != nil || len(read) != 1 {
			t.Fatalf("a held call aborted the run: read %q, err %v", read, err)
		}
		p := wantKind(t, read[0], adapter.KindApprovalPending)
		if p.Ticket == "" {
			t.Fatalf("the pending payload %q has no ticket", read[0])
		}
		return p.Ticket
	}
	ticket := held()
	if h.Resume != nil {
		again = h.Resume
	}
	if runs.Load() != 0 {
		t.Fatal("the held call ran before approval")
	}
	if err := port.Approve(ctx, ticket, "kittest"); err != nil {
		t.Fatal(err)
	}
	read, err := again(ctx, reg, exec, []Call{call})
	if err != nil || len(read) != 1 {
		t.Fatalf("the approved call aborted the run: read %q, err %v", read, err)
	}
	if got := read[0]; got != "deleted /tmp/a" {
		t.Errorf("the approved call read %q, want deleted /tmp/a", got)
	}
	if runs.Load() != 1 {
		t.Errorf("the approved call ran %d times, want 1", runs.Load())
	}
	// The ticket is spent: the same call is held again.
	if next := held(); next == ticket {
		t.Errorf("the call after the approved one reused ticket %s", ticket)
	}
	if runs.Load() != 1 {
		t.Errorf("a spent ticket let the call run again (%d runs)", runs.Load())
	}
}

func testRunLimit(t *testing.T, h Harness) {
	reg := newReg(t, echo("kit_echo"))
	exec := newExec(t, reg, &adapter.ExecutorOptions{Limits: adapter.Limits{MaxCalls: 1}})
	for i := range 2 {
		read := run(t, h, reg, exec, Call{"kit_echo", `{"n":1}`}, Call{"kit_echo", `{"n":2}`})
		if read[0] != "n=1" {
			t.Errorf("run %d: the first call read %q, want n=1 (each run has its own count)", i, read[0])
		}
		wantKind(t, read[1], adapter.KindRunLimitExceeded)
	}
}
