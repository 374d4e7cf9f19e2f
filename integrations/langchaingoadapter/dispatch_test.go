package langchaingoadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"

	"github.com/agentadapter/agentadapter/adapter"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
)

func TestDispatchBoundedParallelInOrder(t *testing.T) {
	var inflight, peak atomic.Int32
	reached := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	wait := adapter.MustRawTool("wait", "Waits.", mustSchema(t, `{"type":"object","properties":{"i":{"type":"integer"}},"required":["i"]}`),
		func(ctx context.Context, args json.RawMessage) (*adapter.Result, error) {
			n := inflight.Add(1)
			defer inflight.Add(-1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			if n == 2 {
				once.Do(func() { close(reached) })
			}
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return adapter.TextResult("done " + string(args)), nil
		}, &adapter.ToolOptions{Annotations: readOnly})
	reg := newRegistry(t, wait)
	d := mustDispatcher(t, reg, newExecutor(t, reg, nil), &lca.DispatcherOptions{Parallelism: 2})

	var calls []llms.ToolCall
	for i := range 6 {
		calls = append(calls, toolCall(fmt.Sprintf("c%d", i), "wait", fmt.Sprintf(`{"i":%d}`, i)))
	}
	type result struct {
		msgs []llms.MessageContent
		err  error
	}
	done := make(chan result, 1)
	go func() {
		msgs, err := d.Dispatch(context.Background(), calls)
		done <- result{msgs, err}
	}()
	select {
	case <-reached: // two calls ran at once
	case <-time.After(10 * time.Second):
		t.Fatal("two calls never ran at the same time")
	}
	close(release)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if p := peak.Load(); p != 2 {
		t.Errorf("peak concurrency = %d, want 2", p)
	}
	for i, m := range r.msgs {
		resp := m.Parts[0].(llms.ToolCallResponse)
		want := llms.ToolCallResponse{ToolCallID: fmt.Sprintf("c%d", i), Name: "wait", Content: fmt.Sprintf(`done {"i":%d}`, i)}
		if diff := cmp.Diff(want, resp); diff != "" {
			t.Errorf("message %d (-want +got):\n%s", i, diff)
		}
	}
}

func TestDispatchOneRunScope(t *testing.T) {
	reg := newRegistry(t, addSpec())
	var mu sync.Mutex
	var seen []adapter.ToolCall
	hook := func(next adapter.Invoker) adapter.Invoker {
		return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
			mu.Lock()
			seen = append(seen, *c)
			mu.Unlock()
			return next(ctx, c)
		}
	}
	exec := newExecutor(t, reg, &adapter.ExecutorOptions{Limits: adapter.Limits{MaxCalls: 3}, Hooks: []adapter.Hook{hook}})
	d := mustDispatcher(t, reg, exec, nil)
	var calls []llms.ToolCall
	for i := range 4 {
		calls = append(calls, toolCall(fmt.Sprintf("id%d", i), "add", `{"a":1,"b":1}`))
	}
	// The turn is part of the agent run whose scope ctx carries.
	ctx, _ := adapter.WithRun(context.Background(), nil)
	msgs, err := d.Dispatch(ctx, calls)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, content := range toolResponses(msgs) {
		if p, ok := payload(content); ok {
			kinds[string(p.Kind)]++
		} else {
			kinds[content]++
		}
	}
	if diff := cmp.Diff(map[string]int{`{"sum":2}`: 3, "run_limit_exceeded": 1}, kinds); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	runs := map[string]bool{}
	ids := map[string]bool{}
	for _, c := range seen {
		runs[c.RunID] = true
		ids[c.ID] = true
		if c.Integration != "langchaingo" {
			t.Errorf("Integration = %q", c.Integration)
		}
		if tc, ok := c.Native.(llms.ToolCall); !ok || tc.ID != c.ID {
			t.Errorf("Native = %#v, want the llms.ToolCall with id %s", c.Native, c.ID)
		}
	}
	if len(runs) != 1 || runs[""] {
		t.Errorf("run ids = %v, want one shared run", runs)
	}
	if diff := cmp.Diff(map[string]bool{"id0": true, "id1": true, "id2": true, "id3": true}, ids); diff != "" {
		t.Errorf("call ids (-want +got):\n%s", diff)
	}
}

func TestDispatchStrictNulls(t *testing.T) {
	reg := newRegistry(t,
		echoSpec(t, "search", searchSchema),
		echoSpec(t, "ship", `{"type":"object","properties":{"to":{"type":"object","properties":{"street":{"type":"string"},"zip":{"type":"string"}},"required":["street"]},
			"note":{"type":["string","null"]}},"required":["to"]}`),
	)
	exec := newExecutor(t, reg, nil)
	tests := []struct {
		name, tool, args string
		strict           bool
		want             string // output, or the payload kind
	}{
		{"strict drops null for omitted", "search", `{"query":"x","limit":null}`, true, `{"limit":5,"query":"x"}`},
		{"non-strict: the executor drops a top-level null for an optional", "search", `{"query":"x","limit":null}`, false, `{"limit":5,"query":"x"}`},
		{"non-strict keeps a nested null", "ship", `{"to":{"street":"Main","zip":null}}`, false, "args_invalid"},
		{"strict nested", "ship", `{"to":{"street":"Main","zip":null},"note":null}`, true, `{"note":null,"to":{"street":"Main"}}`},
		{"required null is not dropped", "search", `{"query":null,"limit":null}`, true, "args_invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustDispatcher(t, reg, exec, &lca.DispatcherOptions{Strict: tt.strict})
			msgs, err := d.Dispatch(context.Background(), []llms.ToolCall{toolCall("x", tt.tool, tt.args)})
			if err != nil {
				t.Fatal(err)
			}
			got := toolResponses(msgs)["x"]
			if p, ok := payload(got); ok {
				got = string(p.Kind)
			}
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	d := mustDispatcher(t, reg, newExecutor(t, reg, nil), &lca.DispatcherOptions{Strict: true})
	for _, def := range d.Tools() {
		if !def.Function.Strict {
			t.Errorf("%s not strict", def.Function.Name)
		}
	}
	if len(d.Issues()) != 1 || d.Issues()[0].Keyword != "default" {
		t.Errorf("Issues() = %v, want the dropped default", d.Issues())
	}
}

func TestDispatchFaultsAndNotFound(t *testing.T) {
	cause := errors.New("EOF")
	conn := adapter.MustRawTool("remote", "Fails to connect.", mustSchema(t, noArgsSchema),
		func(context.Context, json.RawMessage) (*adapter.Result, error) {
			return nil, &adapter.Error{Kind: adapter.KindConnection, Message: "server gone", Err: cause}
		}, &adapter.ToolOptions{Annotations: readOnly})
	hidden := echoSpec(t, "hidden", noArgsSchema)
	hidden.Targets = []string{adapter.TargetMCP}
	reg := newRegistry(t, addSpec(), conn, hidden)
	cb := &recordingHandler{}
	d := mustDispatcher(t, reg, newExecutor(t, reg, nil), &lca.DispatcherOptions{Callbacks: cb, Parallelism: 1})
	if len(d.Tools()) != 2 {
		t.Errorf("Tools() has %d definitions, want 2 (hidden is MCP only)", len(d.Tools()))
	}
	calls := []llms.ToolCall{
		toolCall("1", "add", `{"a":1,"b":2}`),
		toolCall("2", "remote", `{}`),
		toolCall("3", "hidden", `{}`),
		{ID: "4", Type: "function"},
		toolCall("5", "add", "not json"),
	}
	msgs, err := d.Dispatch(context.Background(), calls)
	if !errors.Is(err, adapter.ErrConnection) || !errors.Is(err, cause) {
		t.Errorf("err = %v, want the connection fault", err)
	}
	got := toolResponses(msgs)
	kinds := map[string]string{}
	for id, c := range got {
		if p, ok := payload(c); ok {
			kinds[id] = string(p.Kind)
		} else {
			kinds[id] = c
		}
	}
	want := map[string]string{"1": `{"sum":3}`, "2": "connection", "3": "not_found", "4": "not_found", "5": "args_invalid"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("responses (-want +got):\n%s", diff)
	}
	if got["2"] != `{"error":{"kind":"connection","message":"the tool is unavailable"}}` {
		t.Errorf("fault content = %s; it must not leak the cause", got["2"])
	}
	wantEvents := []string{`start {"a":1,"b":2}`, `end {"sum":3}`, "start {}", "error connection", "start {}", "error not_found", "start ", "error not_found", "start not json", "error args_invalid"}
	if diff := cmp.Diff(wantEvents, cb.Events()); diff != "" {
		t.Errorf("callbacks (-want +got):\n%s", diff)
	}
	if msgs, err := d.Dispatch(context.Background(), nil); msgs != nil || err != nil {
		t.Errorf("Dispatch(nil) = %v, %v", msgs, err)
	}
}

func TestLoopLimits(t *testing.T) {
	reg := newRegistry(t, addSpec())
	d := mustDispatcher(t, reg, newExecutor(t, reg, nil), nil)
	forever := &scriptedModel{}
	for range 3 {
		forever.turns = append(forever.turns, callTools(toolCall("x", "add", `{"a":1,"b":1}`)))
	}
	conv, final, err := d.Loop(context.Background(), forever, nil, &lca.LoopOptions{MaxTurns: 3})
	if !errors.Is(err, lca.ErrMaxTurns) || final != nil {
		t.Errorf("Loop = %v, %v; want ErrMaxTurns", final, err)
	}
	if len(conv) != 6 {
		t.Errorf("conversation has %d messages, want 6 (3 × assistant + tool)", len(conv))
	}
	broken := &scriptedModel{} // no turns: the model fails
	if _, _, err := d.Loop(context.Background(), broken, nil, nil); err == nil {
		t.Error("Loop with a failing model succeeded")
	}
	for name, resp := range map[string]*llms.ContentResponse{"nil": nil, "no choices": {}, "a nil choice": {Choices: []*llms.ContentChoice{nil}}} {
		empty := &scriptedModel{turns: []turn{func([]llms.MessageContent, llms.CallOptions) *llms.ContentResponse { return resp }}}
		if _, final, err := d.Loop(context.Background(), empty, nil, nil); err == nil || final != nil {
			t.Errorf("Loop with a reply of %s = %v, %v; want an error", name, final, err)
		}
	}
}
