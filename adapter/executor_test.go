package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/adapter/canonical"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/runsync"
)

// catalog is a minimal adapter.Catalog over a few specs.
type catalog []*adapter.Spec

func (c catalog) Lookup(name string) (*adapter.Spec, bool) {
	for _, s := range c {
		if s.Name == name {
			return s, true
		}
	}
	return nil, false
}

// echoSchema: {x: integer (required), s: string (default "d"), nested: object}.
func echoSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"x":      {Type: "integer"},
			"s":      {Type: "string", Default: json.RawMessage(`"d"`)},
			"nested": {Type: "object"},
		},
		Required: []string{"x"},
	}
}

var readOnly = adapter.Annotations{ReadOnly: true}

// rawTool returns a read-only raw tool over echoSchema.
func rawTool(name string, h adapter.Handler, opts *adapter.ToolOptions) *adapter.Spec {
	if opts == nil {
		opts = &adapter.ToolOptions{Annotations: readOnly}
	}
	return adapter.MustRawTool(name, name+" tool", echoSchema(), h, opts)
}

// echo returns its arguments as text.
func echo(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
	return adapter.TextResult(string(args)), nil
}

// newExec builds an executor over specs with an in-memory ledger (unless
// opts sets one) and closes it when the test ends.
func newExec(t testing.TB, opts *adapter.ExecutorOptions, specs ...*adapter.Spec) (*adapter.Executor, *ledger.Memory) {
	t.Helper()
	if opts == nil {
		opts = &adapter.ExecutorOptions{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	var ml *ledger.Memory
	if opts.Ledger == nil {
		ml = ledger.NewMemory(100000)
		opts.Ledger = ml
	}
	e := adapter.NewExecutor(catalog(specs), opts)
	t.Cleanup(func() { e.Close() })
	return e, ml
}

// records flushes e and returns what ml holds.
func records(t testing.TB, e *adapter.Executor, ml *ledger.Memory) []ledger.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	return ml.Records()
}

// kindOf checks that err is an *adapter.Error and returns its kind ("" for nil).
func kindOf(t testing.TB, err error) adapter.Kind {
	t.Helper()
	if err == nil {
		return ""
	}
	var ae *adapter.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not an *adapter.Error", err, err)
	}
	return ae.Kind
}

func asAdapterError(t testing.TB, err error) *adapter.Error {
	t.Helper()
	var ae *adapter.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not an *adapter.Error", err, err)
	}
	return ae
}

func TestLookupAndArguments(t *testing.T) {
	var got json.RawMessage
	spec := rawTool("echo", func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		got = args
		return adapter.TextResult("ok"), nil
	}, nil)
	e, _ := newExec(t, &adapter.ExecutorOptions{MaxArgBytes: 64}, spec)
	ctx := context.Background()
	tests := []struct {
		name     string
		tool     string
		args     string
		kind     adapter.Kind
		msgParts []string
		wantArgs string
	}{
		{name: "unknown tool", tool: "nope", args: `{"x":1}`, kind: adapter.KindNotFound, msgParts: []string{`"nope"`}},
		{name: "too large", tool: "echo", args: `{"x":1,"s":"` + strings.Repeat("a", 100) + `"}`, kind: adapter.KindArgsInvalid, msgParts: []string{"limit is 64"}},
		{name: "malformed", tool: "echo", args: `{"x":1,}`, kind: adapter.KindArgsInvalid, msgParts: []string{"not valid JSON", "offset 8"}},
		{name: "not an object", tool: "echo", args: `[1]`, kind: adapter.KindArgsInvalid, msgParts: []string{"must be a JSON object"}},
		{name: "missing required", tool: "echo", args: `{}`, kind: adapter.KindArgsInvalid, msgParts: []string{"x"}},
		{name: "wrong type names path", tool: "echo", args: `{"x":"one"}`, kind: adapter.KindArgsInvalid, msgParts: []string{"$.x"}},
		{name: "defaults applied", tool: "echo", args: `{"x":1}`, wantArgs: `{"s":"d","x":1}`},
		{name: "given value kept", tool: "echo", args: ` {"x":2,"s":"e"} `, wantArgs: `{"s":"e","x":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = nil
			res, err := e.Call(ctx, tt.tool, json.RawMessage(tt.args))
			if k := kindOf(t, err); k != tt.kind {
				t.Fatalf("kind = %q, want %q (err %v)", k, tt.kind, err)
			}
			if tt.kind != "" {
				if res != nil {
					t.Errorf("result %v with error", res)
				}
				if got != nil {
					t.Errorf("handler ran with %s", got)
				}
				ae := asAdapterError(t, err)
				for _, p := range tt.msgParts {
					if !strings.Contains(ae.Message, p) {
						t.Errorf("message %q lacks %q", ae.Message, p)
					}
				}
				if ae.Tool != tt.tool || ae.CallID == "" {
					t.Errorf("error tool/call id = %q/%q, want %q/non-empty", ae.Tool, ae.CallID, tt.tool)
				}
				return
			}
			if diff := cmp.Diff(canon(t, tt.wantArgs), canon(t, string(got))); diff != "" {
				t.Errorf("handler args (-want +got):\n%s", diff)
			}
		})
	}
}

func canon(t testing.TB, s string) string {
	t.Helper()
	b, err := canonical.JSON(json.RawMessage(s))
	if err != nil {
		t.Fatalf("CanonicalJSON(%s): %v", s, err)
	}
	return string(b)
}

func TestSpecInRequest(t *testing.T) {
	spec := rawTool("direct", echo, nil)
	e, _ := newExec(t, nil) // empty catalog
	res, err := e.Do(context.Background(), &adapter.Request{Spec: spec, Args: json.RawMessage(`{"x":3}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := canon(t, res.Text()), `{"s":"d","x":3}`; got != want {
		t.Errorf("result %s, want %s", got, want)
	}
}

// orderLog records the stages a call passes through, across goroutines.
type orderLog struct {
	mu    sync.Mutex
	steps []string
}

func (l *orderLog) add(s string) {
	l.mu.Lock()
	l.steps = append(l.steps, s)
	l.mu.Unlock()
}

func (l *orderLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.steps
	l.steps = nil
	return s
}

// loggingCache wraps a cache, logging each use.
type loggingCache struct {
	log *orderLog
	c   adapter.Cache
}

func (l loggingCache) Get(ctx context.Context, key string) (*adapter.Result, bool) {
	r, ok := l.c.Get(ctx, key)
	l.log.add(fmt.Sprintf("cache-get:%v", ok))
	return r, ok
}

func (l loggingCache) Add(ctx context.Context, key string, r *adapter.Result, ttl time.Duration) {
	l.log.add("cache-add")
	l.c.Add(ctx, key, r, ttl)
}

type ledgerFunc func(ctx context.Context, r *ledger.Record) error

func (f ledgerFunc) Write(ctx context.Context, r *ledger.Record) error { return f(ctx, r) }

// TestStageOrder runs a call with every stage instrumented and checks the
// documented order, for a fresh call and for a cached one (which still
// passes guards and approval).
func TestStageOrder(t *testing.T) {
	log := &orderLog{}
	spec := rawTool("t", func(ctx context.Context, args json.RawMessage) (*adapter.Result, error) {
		log.add("handler")
		return adapter.TextResult("r"), nil
	}, nil)
	opts := &adapter.ExecutorOptions{
		Hooks: []adapter.Hook{
			func(next adapter.Invoker) adapter.Invoker {
				return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
					log.add("hook1-in")
					r, err := next(ctx, c)
					log.add("hook1-out")
					return r, err
				}
			},
			func(next adapter.Invoker) adapter.Invoker {
				return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
					log.add("hook2-in")
					r, err := next(ctx, c)
					log.add("hook2-out")
					return r, err
				}
			},
		},
		Guards: []adapter.Guard{{
			Name:   "g",
			Input:  func(context.Context, *adapter.ToolCall) error { log.add("guard-in"); return nil },
			Output: func(context.Context, *adapter.ToolCall, *adapter.Result) error { log.add("guard-out"); return nil },
		}},
		Approval: adapter.ApprovalOptions{
			Policy: adapter.ApproveAlways,
			Port: approval.Func(func(context.Context, *approval.Request) (approval.Decision, error) {
				log.add("approval")
				return approval.Decision{Verdict: approval.VerdictApproved, Approver: "a"}, nil
			}),
		},
		Cache: &adapter.CacheOptions{Store: loggingCache{log, adapter.NewMemoryCache(10, time.Hour)}, Tools: map[string]time.Duration{"t": 0}},
		Ledger: ledgerFunc(func(context.Context, *ledger.Record) error {
			log.add("ledger")
			return nil
		}),
	}
	e, _ := newExec(t, opts, spec)
	ctx, run := adapter.WithRun(context.Background(), &adapter.RunOptions{Limits: adapter.Limits{MaxCalls: 2}})
	fresh := []string{"hook1-in", "hook2-in", "guard-in", "approval", "cache-get:false", "handler", "cache-add", "guard-out", "hook2-out", "hook1-out", "ledger"}
	cached := []string{"hook1-in", "hook2-in", "guard-in", "approval", "cache-get:true", "guard-out", "hook2-out", "hook1-out", "ledger"}
	// Run limits come after approval and before the cache: the third call is
	// approved, then refused by the limit, and never reaches the cache.
	limited := []string{"hook1-in", "hook2-in", "guard-in", "approval", "hook2-out", "hook1-out", "ledger"}
	for i, want := range [][]string{fresh, cached, limited} {
		_, err := e.Call(ctx, "t", json.RawMessage(`{"x":1}`))
		wantKind := adapter.Kind("")
		if i == 2 {
			wantKind = adapter.KindRunLimitExceeded
		}
		if k := kindOf(t, err); k != wantKind {
			t.Fatalf("call %d: kind %q, want %q (%v)", i, k, wantKind, err)
		}
		if err := e.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, log.take()); diff != "" {
			t.Errorf("call %d: stages (-want +got):\n%s", i, diff)
		}
	}
	if run.Calls() != 2 {
		t.Errorf("run admitted %d calls, want 2", run.Calls())
	}
}

// TestStagePrecedence makes one or more stages fail and checks which
// failure wins and which later stages never ran.
func TestStagePrecedence(t *testing.T) {
	type config struct {
		badArgs, guardIn, deny, limit, toolErr, badOutput, guardOut bool
	}
	tests := []struct {
		name    string
		cfg     config
		kind    adapter.Kind
		reached []string
	}{
		{"all pass", config{}, "", []string{"guard-in", "approval", "handler", "guard-out"}},
		{"args before everything", config{badArgs: true, guardIn: true, deny: true, limit: true}, adapter.KindArgsInvalid, nil},
		{"input guard before approval", config{guardIn: true, deny: true, limit: true}, adapter.KindGuardrailBlocked, []string{"guard-in"}},
		{"approval before limits", config{deny: true, limit: true}, adapter.KindApprovalDenied, []string{"guard-in", "approval"}},
		{"limits before handler", config{limit: true, toolErr: true}, adapter.KindRunLimitExceeded, []string{"guard-in", "approval"}},
		{"tool error skips output guard", config{toolErr: true, guardOut: true}, adapter.KindToolError, []string{"guard-in", "approval", "handler"}},
		{"output validation before output guard", config{badOutput: true, guardOut: true}, adapter.KindToolError, []string{"guard-in", "approval", "handler"}},
		{"output guard", config{guardOut: true}, adapter.KindGuardrailBlocked, []string{"guard-in", "approval", "handler", "guard-out"}},
	}
	outSchema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"n": {Type: "integer"}}, Required: []string{"n"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &orderLog{}
			cfg := tt.cfg
			spec := adapter.MustRawTool("t", "", echoSchema(), func(context.Context, json.RawMessage) (*adapter.Result, error) {
				log.add("handler")
				if cfg.toolErr {
					return nil, errors.New("boom")
				}
				if cfg.badOutput {
					return &adapter.Result{Structured: map[string]any{"n": "not a number"}}, nil
				}
				return &adapter.Result{Structured: map[string]any{"n": 1}}, nil
			}, &adapter.ToolOptions{OutputSchema: outSchema})
			opts := &adapter.ExecutorOptions{
				Guards: []adapter.Guard{{
					Name: "g",
					Input: func(context.Context, *adapter.ToolCall) error {
						log.add("guard-in")
						if cfg.guardIn {
							return errors.New("no input")
						}
						return nil
					},
					Output: func(context.Context, *adapter.ToolCall, *adapter.Result) error {
						log.add("guard-out")
						if cfg.guardOut {
							return errors.New("no output")
						}
						return nil
					},
				}},
				Approval: adapter.ApprovalOptions{Port: approval.Func(func(context.Context, *approval.Request) (approval.Decision, error) {
					log.add("approval")
					if cfg.deny {
						return approval.Decision{Verdict: approval.VerdictDenied, Reason: "no"}, nil
					}
					return approval.Decision{Verdict: approval.VerdictApproved}, nil
				})},
			}
			if cfg.limit {
				opts.Limits = adapter.Limits{MaxCalls: 1}
			}
			e, ml := newExec(t, opts, spec)
			ctx, _ := adapter.WithRun(context.Background(), nil)
			if cfg.limit {
				// Use up the run's one call on another executor sharing the run.
				other, _ := newExec(t, &adapter.ExecutorOptions{Limits: adapter.Limits{MaxCalls: 1}}, rawTool("t", echo, nil))
				if _, err := other.Call(ctx, "t", json.RawMessage(`{"x":1}`)); err != nil {
					t.Fatal(err)
				}
			}
			args := `{"x":1}`
			if cfg.badArgs {
				args = `{"x":"bad"}`
			}
			_, err := e.Call(ctx, "t", json.RawMessage(args))
			if k := kindOf(t, err); k != tt.kind {
				t.Fatalf("kind = %q, want %q (%v)", k, tt.kind, err)
			}
			if diff := cmp.Diff(tt.reached, log.take()); diff != "" {
				t.Errorf("stages reached (-want +got):\n%s", diff)
			}
			recs := records(t, e, ml)
			if len(recs) != 1 {
				t.Fatalf("%d ledger records, want 1", len(recs))
			}
			want := string(tt.kind)
			if want == "" {
				want = ledger.OutcomeOK
			}
			if recs[0].Outcome != want {
				t.Errorf("ledger outcome %q, want %q", recs[0].Outcome, want)
			}
		})
	}
}

func TestGuards(t *testing.T) {
	spec := rawTool("t", echo, nil)
	e, _ := newExec(t, &adapter.ExecutorOptions{Guards: []adapter.Guard{
		{Name: "no-secrets", Input: func(_ context.Context, c *adapter.ToolCall) error {
			if strings.Contains(string(c.Args), "secret") {
				return errors.New("arguments mention a secret")
			}
			return nil
		}},
		{Name: "short", Output: func(_ context.Context, _ *adapter.ToolCall, r *adapter.Result) error {
			if len(r.Text()) > 30 {
				return errors.New("result too long")
			}
			return nil
		}},
	}}, spec)
	ctx := context.Background()
	tests := []struct {
		args, guard, reason string
	}{
		{`{"x":1,"s":"secret"}`, "no-secrets", "arguments mention a secret"},
		{`{"x":1,"s":"a long string that makes the result long"}`, "short", "result too long"},
		{`{"x":1}`, "", ""},
	}
	for _, tt := range tests {
		_, err := e.Call(ctx, "t", json.RawMessage(tt.args))
		if tt.guard == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.args, err)
			}
			continue
		}
		ae := asAdapterError(t, err)
		if ae.Kind != adapter.KindGuardrailBlocked || ae.Guard != tt.guard || !strings.Contains(ae.Message, tt.reason) || !strings.Contains(ae.Message, tt.guard) {
			t.Errorf("%s: got %+v, want guardrail_blocked by %s with %q", tt.args, ae, tt.guard, tt.reason)
		}
		if p, ok := adapter.ModelPayload(err); !ok || !strings.Contains(p, "guardrail_blocked") {
			t.Errorf("payload %q, %v", p, ok)
		}
	}
}

func hookFunc(f func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error)) adapter.Hook {
	return func(next adapter.Invoker) adapter.Invoker {
		return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) { return f(ctx, c, next) }
	}
}

func TestHooks(t *testing.T) {
	var handlerArgs []string
	var mu sync.Mutex
	spec := rawTool("t", func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		mu.Lock()
		handlerArgs = append(handlerArgs, string(args))
		mu.Unlock()
		if strings.Contains(string(args), `"fail"`) {
			return nil, errors.New("asked to fail")
		}
		return adapter.TextResult("handled"), nil
	}, nil)
	tests := []struct {
		name       string
		hook       adapter.Hook
		args       string
		kind       adapter.Kind
		text       string
		handlerSaw []string
		ledgerArgs string
		checkErr   func(t *testing.T, err error)
	}{
		{
			name: "observe sees validated args with defaults",
			hook: hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
				if got := canonString(c.Args); got != `{"s":"d","x":1}` || c.Tool != "t" || c.Spec == nil || c.CallID == "" || c.ID != c.CallID {
					return nil, fmt.Errorf("hook saw tool %q args %s id %q", c.Tool, c.Args, c.CallID)
				}
				return next(ctx, c)
			}),
			args: `{"x":1}`, text: "handled", handlerSaw: []string{`{"s":"d","x":1}`}, ledgerArgs: `{"s":"d","x":1}`,
		},
		{
			name: "rewrite args is validated again",
			hook: hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
				c.Args = json.RawMessage(`{"x":7}`)
				return next(ctx, c)
			}),
			args: `{"x":1}`, text: "handled", handlerSaw: []string{`{"s":"d","x":7}`}, ledgerArgs: `{"s":"d","x":7}`,
		},
		{
			name: "invalid rewrite is args_invalid",
			hook: hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
				c.Args = json.RawMessage(`{"x":"seven"}`)
				return next(ctx, c)
			}),
			args: `{"x":1}`, kind: adapter.KindArgsInvalid,
		},
		{
			name: "short-circuit",
			hook: hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
				return adapter.TextResult("from hook"), nil
			}),
			args: `{"x":1}`, text: "from hook", ledgerArgs: `{"s":"d","x":1}`,
		},
		{
			name: "short-circuit with an error",
			hook: hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
				return nil, adapter.NewError(adapter.KindGuardrailBlocked, "hook says no")
			}),
			args: `{"x":1}`, kind: adapter.KindGuardrailBlocked,
		},
		{
			name: "observe and replace an error",
			hook: hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
				r, err := next(ctx, c)
				if adapter.KindOf(err) == adapter.KindToolError {
					return adapter.TextResult("recovered: " + err.Error()), nil
				}
				return r, err
			}),
			args: `{"x":1,"s":"fail"}`, text: "recovered: tool_error: asked to fail", handlerSaw: []string{`{"s":"fail","x":1}`},
		},
		{
			name: "observe and replace a result",
			hook: hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
				r, err := next(ctx, c)
				if err != nil {
					return nil, err
				}
				return adapter.TextResult(r.Text() + "!"), nil
			}),
			args: `{"x":1}`, text: "handled!", handlerSaw: []string{`{"s":"d","x":1}`},
		},
		{
			name: "plain error from a hook is a tool error",
			hook: hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
				return nil, errors.New("plain")
			}),
			args: `{"x":1}`, kind: adapter.KindToolError,
		},
		{
			name: "nil result and nil error is a tool error",
			hook: hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
				return nil, nil
			}),
			args: `{"x":1}`, kind: adapter.KindToolError,
		},
		{
			name: "panicking hook is contained",
			hook: hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
				panic("hook bug")
			}),
			args: `{"x":1}`, kind: adapter.KindInternal,
			checkErr: func(t *testing.T, err error) {
				var pe *runsync.PanicError
				if !errors.As(err, &pe) || pe.Value != "hook bug" || len(pe.Stack) == 0 {
					t.Errorf("cause %v is not the hook's panic with a stack", err)
				}
				if _, ok := adapter.ModelPayload(err); ok {
					t.Error("an internal error became a model payload")
				}
			},
		},
		{
			name: "panicking hook after next is contained",
			hook: hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
				next(ctx, c)
				panic(errors.New("late hook bug"))
			}),
			args: `{"x":1}`, kind: adapter.KindInternal, handlerSaw: []string{`{"s":"d","x":1}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			handlerArgs = nil
			e, ml := newExec(t, &adapter.ExecutorOptions{Hooks: []adapter.Hook{tt.hook}}, spec)
			res, err := e.Call(context.Background(), "t", json.RawMessage(tt.args))
			if k := kindOf(t, err); k != tt.kind {
				t.Fatalf("kind %q, want %q (%v)", k, tt.kind, err)
			}
			if tt.checkErr != nil {
				tt.checkErr(t, err)
			}
			if tt.kind == "" && res.Text() != tt.text {
				t.Errorf("text %q, want %q", res.Text(), tt.text)
			}
			var saw []string
			for _, a := range handlerArgs {
				saw = append(saw, canonString(json.RawMessage(a)))
			}
			if diff := cmp.Diff(tt.handlerSaw, saw); diff != "" {
				t.Errorf("handler calls (-want +got):\n%s", diff)
			}
			recs := records(t, e, ml)
			if len(recs) != 1 {
				t.Fatalf("%d records, want 1", len(recs))
			}
			wantOutcome := string(tt.kind)
			if tt.kind == "" {
				wantOutcome = ledger.OutcomeOK
			}
			if recs[0].Outcome != wantOutcome {
				t.Errorf("ledger outcome %q, want %q", recs[0].Outcome, wantOutcome)
			}
			if tt.ledgerArgs != "" && canonString(recs[0].Args) != tt.ledgerArgs {
				t.Errorf("ledger args %s, want %s", recs[0].Args, tt.ledgerArgs)
			}
		})
	}
}

func canonString(b json.RawMessage) string {
	c, err := canonical.JSON(b)
	if err != nil {
		return "!" + string(b)
	}
	return string(c)
}

func TestHookOrderOutermostFirst(t *testing.T) {
	var order []string
	mk := func(name string) adapter.Hook {
		return hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
			order = append(order, name)
			return next(ctx, c)
		})
	}
	e, _ := newExec(t, &adapter.ExecutorOptions{Hooks: []adapter.Hook{mk("a"), mk("b"), mk("c")}}, rawTool("t", echo, nil))
	if _, err := e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, order); diff != "" {
		t.Errorf("hook order (-want +got):\n%s", diff)
	}
}

func TestOutputValidation(t *testing.T) {
	out := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"items": {Type: "array", Items: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"id": {Type: "integer"}}}},
	}}
	tests := []struct {
		name       string
		structured any
		kind       adapter.Kind
		part       string
	}{
		{"valid", map[string]any{"items": []any{map[string]any{"id": 1}}}, "", ""},
		{"wrong field type names the path", map[string]any{"items": []any{map[string]any{"id": "x"}}}, adapter.KindToolError, "$.items[0].id"},
		{"missing structured", nil, adapter.KindToolError, "no structured content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := adapter.MustRawTool("t", "", echoSchema(), func(context.Context, json.RawMessage) (*adapter.Result, error) {
				return &adapter.Result{Structured: tt.structured}, nil
			}, &adapter.ToolOptions{OutputSchema: out})
			e, _ := newExec(t, nil, spec)
			_, err := e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`))
			if k := kindOf(t, err); k != tt.kind {
				t.Fatalf("kind %q, want %q (%v)", k, tt.kind, err)
			}
			if tt.part != "" && !strings.Contains(asAdapterError(t, err).Message, tt.part) {
				t.Errorf("message %q lacks %q", asAdapterError(t, err).Message, tt.part)
			}
		})
	}
}

func TestHandlerErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		kind adapter.Kind
		msg  string
	}{
		{"plain error", errors.New("disk full"), adapter.KindToolError, "disk full"},
		{"typed error keeps its kind", adapter.NewError(adapter.KindConnection, "server gone"), adapter.KindConnection, "server gone"},
		{"deadline from the handler", fmt.Errorf("upstream: %w", context.DeadlineExceeded), adapter.KindTimeout, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := newExec(t, nil, rawTool("t", func(context.Context, json.RawMessage) (*adapter.Result, error) { return nil, tt.err }, nil))
			_, err := e.Do(context.Background(), &adapter.Request{Tool: "t", Args: json.RawMessage(`{"x":1}`), CallID: "c1"})
			ae := asAdapterError(t, err)
			if ae.Kind != tt.kind || !strings.Contains(ae.Message, tt.msg) || ae.Tool != "t" || ae.CallID != "c1" {
				t.Errorf("got %+v, want kind %s message with %q tool t call c1", ae, tt.kind, tt.msg)
			}
			var target error = tt.err
			if _, typed := tt.err.(*adapter.Error); typed {
				target = adapter.ErrConnection // a typed error is copied, keeping its kind
			}
			if !errors.Is(err, target) {
				t.Errorf("errors.Is(err, %v) is false for %v", target, err)
			}
		})
	}
}

func panickingHandler(context.Context, json.RawMessage) (*adapter.Result, error) {
	var m map[string]int
	m["boom"]++ // nil map write: a runtime panic
	return nil, nil
}

func TestPanickingHandler(t *testing.T) {
	e, ml := newExec(t, nil, rawTool("t", panickingHandler, nil))
	_, err := e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`))
	ae := asAdapterError(t, err)
	if ae.Kind != adapter.KindToolError {
		t.Fatalf("kind %q, want tool_error", ae.Kind)
	}
	var pe *runsync.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("cause %v is not a *runsync.PanicError", err)
	}
	if !strings.Contains(string(pe.Stack), "panickingHandler") {
		t.Errorf("stack does not name the handler:\n%s", pe.Stack)
	}
	p, ok := adapter.ModelPayload(err)
	if !ok || strings.Contains(p, "panickingHandler") || strings.Contains(p, "goroutine") {
		t.Errorf("payload %q leaks the stack or is missing", p)
	}
	if recs := records(t, e, ml); len(recs) != 1 || recs[0].Outcome != string(adapter.KindToolError) {
		t.Errorf("ledger %+v, want one tool_error", recs)
	}
}

func TestTimeouts(t *testing.T) {
	// The handler reports how long it was given.
	spec := func(timeout time.Duration) *adapter.Spec {
		return rawTool("t", func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			dl, ok := ctx.Deadline()
			if !ok {
				return adapter.TextResult("none"), nil
			}
			return adapter.TextResult(time.Until(dl).Round(time.Second).String()), nil
		}, &adapter.ToolOptions{Annotations: readOnly, Timeout: timeout})
	}
	tests := []struct {
		name       string
		executor   time.Duration
		tool       time.Duration
		request    time.Duration
		ctxTimeout time.Duration
		want       string
	}{
		{"built-in default", 0, 0, 0, 0, adapter.DefaultTimeout.String()},
		{"executor default", 20 * time.Second, 0, 0, 0, "20s"},
		{"tool beats executor", 20 * time.Second, 10 * time.Second, 0, 0, "10s"},
		{"request beats tool", 20 * time.Second, 10 * time.Second, 5 * time.Second, 0, "5s"},
		{"ctx bounds all", 20 * time.Second, 10 * time.Second, 5 * time.Second, 3 * time.Second, "3s"},
		{"longer ctx does not extend", 0, 10 * time.Second, 0, 30 * time.Second, "10s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := newExec(t, &adapter.ExecutorOptions{Timeout: tt.executor}, spec(tt.tool))
			ctx := context.Background()
			if tt.ctxTimeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctxTimeout)
				defer cancel()
			}
			res, err := e.Do(ctx, &adapter.Request{Tool: "t", Args: json.RawMessage(`{"x":1}`), Timeout: tt.request})
			if err != nil {
				t.Fatal(err)
			}
			if res.Text() != tt.want {
				t.Errorf("handler had %s, want %s", res.Text(), tt.want)
			}
		})
	}
}

// waitFor polls cond for up to 10 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestTimeoutAbandonsHandlerThatIgnoresCtx(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	spec := rawTool("stuck", func(context.Context, json.RawMessage) (*adapter.Result, error) {
		started <- struct{}{}
		<-release // ignores ctx
		return adapter.TextResult("late"), nil
	}, &adapter.ToolOptions{Annotations: readOnly, Timeout: 50 * time.Millisecond})
	e, ml := newExec(t, nil, spec)
	before := runsync.Abandoned()
	begin := time.Now()
	_, err := e.Call(context.Background(), "stuck", json.RawMessage(`{"x":1}`))
	elapsed := time.Since(begin)
	<-started
	if k := kindOf(t, err); k != adapter.KindTimeout {
		t.Fatalf("kind %q, want timeout (%v)", k, err)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, runsync.ErrAbandoned) {
		t.Errorf("cause %v should wrap DeadlineExceeded and ErrAbandoned", err)
	}
	if elapsed > 5*time.Second {
		t.Errorf("caller waited %v for a 50ms timeout", elapsed)
	}
	if got := runsync.Abandoned(); got != before+1 {
		t.Errorf("Abandoned() = %d, want %d", got, before+1)
	}
	close(release)
	waitFor(t, "the abandoned handler to return", func() bool { return runsync.Abandoned() == before })
	if recs := records(t, e, ml); len(recs) != 1 || recs[0].Outcome != string(adapter.KindTimeout) {
		t.Errorf("ledger %+v, want one timeout", recs)
	}
}

func TestCanceledCallIsCancelled(t *testing.T) {
	spec := rawTool("t", func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, nil)
	e, _ := newExec(t, nil, spec)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	_, err := e.Call(ctx, "t", json.RawMessage(`{"x":1}`))
	if k := kindOf(t, err); k != adapter.KindCancelled || !errors.Is(err, context.Canceled) || k.ModelFacing() {
		t.Errorf("got %v (kind %q), want cancelled (not model-facing) wrapping context.Canceled", err, k)
	}
}

func TestSpans(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	defer tp.Shutdown(context.Background())
	spec := rawTool("t", func(ctx context.Context, args json.RawMessage) (*adapter.Result, error) {
		if strings.Contains(string(args), "fail") {
			return nil, errors.New("failed")
		}
		return adapter.TextResult("ok"), nil
	}, nil)
	e, _ := newExec(t, &adapter.ExecutorOptions{TracerProvider: tp}, spec)
	ctx := context.Background()
	calls := []struct {
		tool, id, args string
		errType        string
	}{
		{"t", "c-ok", `{"x":1}`, ""},
		{"t", "c-fail", `{"x":1,"s":"fail"}`, "tool_error"},
		{"t", "c-bad", `{"x":"no"}`, "args_invalid"},
		{"nope", "c-missing", `{}`, "not_found"},
	}
	for _, c := range calls {
		e.Do(ctx, &adapter.Request{Tool: c.tool, CallID: c.id, Args: json.RawMessage(c.args)})
	}
	spans := sr.Ended()
	if len(spans) != len(calls) {
		t.Fatalf("%d spans, want %d", len(spans), len(calls))
	}
	for i, s := range spans {
		attrs := map[string]string{}
		for _, kv := range s.Attributes() {
			attrs[string(kv.Key)] = kv.Value.Emit()
		}
		want := map[string]string{
			"gen_ai.operation.name": "execute_tool",
			"gen_ai.tool.name":      calls[i].tool,
			"gen_ai.tool.call.id":   calls[i].id,
		}
		if calls[i].errType != "" {
			want["error.type"] = calls[i].errType
		}
		for k, v := range want {
			if attrs[k] != v {
				t.Errorf("span %d attribute %s = %q, want %q", i, k, attrs[k], v)
			}
		}
		if _, has := attrs["error.type"]; has && calls[i].errType == "" {
			t.Errorf("span %d of a successful call has error.type", i)
		}
		if s.Name() != "execute_tool "+calls[i].tool {
			t.Errorf("span name %q", s.Name())
		}
	}
}

// TestSpanParentsHandlerSpans checks that the handler's ctx carries the
// call's span, so that its own spans nest under it.
func TestSpanParentsHandlerSpans(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	defer tp.Shutdown(context.Background())
	spec := rawTool("t", func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		_, s := tp.Tracer("h").Start(ctx, "inner")
		s.End()
		return adapter.TextResult("ok"), nil
	}, nil)
	e, _ := newExec(t, &adapter.ExecutorOptions{TracerProvider: tp}, spec)
	if _, err := e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	spans := sr.Ended()
	if len(spans) != 2 || spans[0].Name() != "inner" || spans[0].Parent().SpanID() != spans[1].SpanContext().SpanID() {
		t.Errorf("inner span is not a child of the call's span: %v", spans)
	}
}

func TestDefaultExecutor(t *testing.T) {
	defer adapter.SetDefault(nil)
	builtin := adapter.Default()
	if builtin == nil {
		t.Fatal("Default() is nil before SetDefault")
	}
	if adapter.Default() != builtin {
		t.Error("Default() changes between calls")
	}
	// The built-in default has no catalog but runs calls that carry a spec.
	closed := false
	safe := rawTool("t", echo, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &closed}})
	res, err := builtin.Do(context.Background(), &adapter.Request{Spec: safe, Args: json.RawMessage(`{"x":1}`)})
	if err != nil || canonString(json.RawMessage(res.Text())) != `{"s":"d","x":1}` {
		t.Errorf("built-in default: %v, %v", res, err)
	}
	// It holds destructive and open-world tools: nobody can approve them
	// (issue 12 item 8: they used to run unapproved).
	var runs atomic.Int64
	for _, spec := range []*adapter.Spec{destructiveTool("rm", &runs), rawTool("web", echo, nil)} {
		_, err := builtin.Do(context.Background(), &adapter.Request{Spec: spec, Args: json.RawMessage(`{"x":1}`)})
		if ae := asAdapterError(t, err); ae.Kind != adapter.KindApprovalDenied || !strings.Contains(ae.Message, "no approver is configured") {
			t.Errorf("built-in default ran %s: %v, want approval_denied", spec.Name, err)
		}
	}
	if runs.Load() != 0 {
		t.Error("the built-in default ran a destructive tool")
	}
	if _, err := builtin.Call(context.Background(), "t", nil); kindOf(t, err) != adapter.KindNotFound {
		t.Errorf("built-in default found a tool: %v", err)
	}
	mine, _ := newExec(t, nil, rawTool("t", echo, nil))
	adapter.SetDefault(mine)
	if adapter.Default() != mine {
		t.Error("Default() is not the executor set")
	}
	adapter.SetDefault(nil)
	if adapter.Default() != builtin {
		t.Error("SetDefault(nil) did not restore the built-in default")
	}
}

func TestCallFromContext(t *testing.T) {
	type seen struct {
		ID, RunID, Integration, Tool string
		Native                       any
		Args                         string
		Subject                      string
	}
	var got seen
	var outside *adapter.ToolCall
	spec := rawTool("t", func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		c := adapter.ToolCallFromContext(ctx)
		if c == nil {
			return nil, errors.New("no call in ctx")
		}
		got = seen{c.CallID, c.RunID, c.Integration, c.Tool, c.Native, string(c.Args), ""}
		if c.Identity != nil {
			got.Subject = c.Identity.Subject
		}
		return adapter.TextResult("ok"), nil
	}, nil)
	e, ml := newExec(t, nil, spec)
	outside = adapter.ToolCallFromContext(context.Background())
	if outside != nil {
		t.Errorf("CallFromContext outside a call = %v", outside)
	}
	type nativeTool struct{ name string }
	native := &nativeTool{"framework-object"}
	ctx, run := adapter.WithRun(context.Background(), &adapter.RunOptions{ID: "run-1"})
	ctx = adapter.WithIdentity(ctx, &caller.Identity{Subject: "user-9"})
	_, err := e.Do(ctx, &adapter.Request{Tool: "t", Args: json.RawMessage(`{"x":1}`), CallID: "call-1", Integration: "eino", Native: native})
	if err != nil {
		t.Fatal(err)
	}
	want := seen{"call-1", "run-1", "eino", "t", native, `{"s":"d","x":1}`, "user-9"}
	got.Args = canonString(json.RawMessage(got.Args))
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b *nativeTool) bool { return a == b })); diff != "" {
		t.Errorf("call in handler (-want +got):\n%s", diff)
	}
	if run.ID() != "run-1" {
		t.Errorf("run id %q", run.ID())
	}
	recs := records(t, e, ml)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if r.CallID != "call-1" || r.RunID != "run-1" || r.Integration != "eino" || r.Subject != "user-9" || r.Source != "local" {
		t.Errorf("record %+v does not carry the call's identity", r)
	}
}

func TestGeneratedCallIDsAreUnique(t *testing.T) {
	var mu sync.Mutex
	ids := map[string]bool{}
	spec := rawTool("t", func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		mu.Lock()
		ids[adapter.ToolCallFromContext(ctx).CallID] = true
		mu.Unlock()
		return adapter.TextResult("ok"), nil
	}, nil)
	e, _ := newExec(t, nil, spec)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`))
			}
		})
	}
	wg.Wait()
	if len(ids) != 800 {
		t.Errorf("%d distinct call ids for 800 calls", len(ids))
	}
	for id := range ids {
		if !strings.HasPrefix(id, "call_") {
			t.Errorf("id %q lacks the call_ prefix", id)
		}
		break
	}
	if e.Calls() != 800 {
		t.Errorf("Calls() = %d, want 800", e.Calls())
	}
}

type ctxKey struct{}

// TestHandlerContext checks the context a handler gets, on both paths (a
// caller's context that can be cancelled, and one that cannot): it carries
// the caller's values and the call, has the call's deadline, and is
// cancelled once the call returns.
func TestHandlerContext(t *testing.T) {
	cancelable, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
	defer cancel()
	for _, tt := range []struct {
		name string
		ctx  context.Context
	}{
		{"background", context.WithValue(context.Background(), ctxKey{}, "v")},
		{"cancelable", cancelable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var kept context.Context
			spec := rawTool("t", func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
				kept = ctx
				if ctx.Err() != nil {
					return nil, fmt.Errorf("ctx already done: %v", ctx.Err())
				}
				if v, _ := ctx.Value(ctxKey{}).(string); v != "v" {
					return nil, fmt.Errorf("caller's value %q lost", v)
				}
				if adapter.ToolCallFromContext(ctx) == nil {
					return nil, errors.New("no call")
				}
				dl, ok := ctx.Deadline()
				if left := time.Until(dl); !ok || left <= 0 || left > time.Minute {
					return nil, fmt.Errorf("deadline %v, %v", dl, ok)
				}
				return adapter.TextResult("ok"), nil
			}, &adapter.ToolOptions{Annotations: readOnly, Timeout: time.Minute})
			e, _ := newExec(t, nil, spec)
			if _, err := e.Call(tt.ctx, "t", json.RawMessage(`{"x":1}`)); err != nil {
				t.Fatal(err)
			}
			select {
			case <-kept.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("the handler's ctx was not cancelled after the call")
			}
			if !errors.Is(kept.Err(), context.Canceled) {
				t.Errorf("Err after the call = %v, want context.Canceled", kept.Err())
			}
		})
	}
}

// TestHookCallsNextTwice: a retrying hook runs the rest of the pipeline
// twice; each run gets a working context.
func TestHookCallsNextTwice(t *testing.T) {
	var runs atomic.Int64
	spec := rawTool("t", func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if runs.Add(1) == 1 {
			return nil, errors.New("first try fails")
		}
		return adapter.TextResult("second try"), nil
	}, nil)
	retry := hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
		r, err := next(ctx, c)
		if err != nil {
			return next(ctx, c)
		}
		return r, err
	})
	e, _ := newExec(t, &adapter.ExecutorOptions{Hooks: []adapter.Hook{retry}}, spec)
	res, err := e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`))
	if err != nil || res.Text() != "second try" || runs.Load() != 2 {
		t.Errorf("got %v, %v after %d runs", res, err, runs.Load())
	}
}

// TestGlobalTracerProviderInstalledLater: an executor made before a global
// provider is installed starts spans once it is. (It installs a global
// provider for the rest of the test binary; other tests pass their own.)
func TestGlobalTracerProviderInstalledLater(t *testing.T) {
	if !installedGlobal.CompareAndSwap(false, true) {
		t.Skip("a global provider was installed by an earlier run (-count > 1)")
	}
	e, _ := newExec(t, nil, rawTool("t", echo, nil))
	if _, err := e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	sr := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr)))
	if _, err := e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	if spans := sr.Ended(); len(spans) != 1 || spans[0].Name() != "execute_tool t" {
		t.Errorf("spans after installing a global provider: %v", spans)
	}
}

var installedGlobal atomic.Bool
