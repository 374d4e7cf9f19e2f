package langchaingoadapter_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/agentadapter/agentadapter/adapter"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
)

// BenchmarkCall compares Tool.Call (and Dispatch) with the executor call it
// wraps, all in one run scope: the difference is this package's overhead.
func BenchmarkCall(b *testing.B) {
	spec := addSpec()
	reg := newRegistry(b, spec)
	exec := newExecutor(b, reg, nil)
	ctx, _ := adapter.WithRun(context.Background(), nil)
	tl := mustTools(b, reg, exec, nil)[0]
	d := mustDispatcher(b, reg, exec, nil)
	args := json.RawMessage(`{"a":1,"b":2}`)

	b.Run("executor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := exec.Do(ctx, &adapter.Request{Spec: spec, Args: args, Integration: lca.Integration})
			if err != nil || res.Text() != `{"sum":3}` {
				b.Fatal(res, err)
			}
		}
	})
	for _, in := range []struct{ name, input string }{
		{"Call/object", `{"a":1,"b":2}`},
		{"Call/arg1", `{"__arg1":"{\"a\":1,\"b\":2}"}`},
		{"Call/fenced", "```json\n{\"a\":1,\"b\":2}\n```"},
	} {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := tl.Call(ctx, in.input)
				if err != nil || out != `{"sum":3}` {
					b.Fatal(out, err)
				}
			}
		})
	}
	b.Run("Dispatch", func(b *testing.B) {
		calls := []llms.ToolCall{toolCall("c1", "add", `{"a":1,"b":2}`)}
		b.ReportAllocs()
		for b.Loop() {
			msgs, err := d.Dispatch(ctx, calls)
			if err != nil || len(msgs) != 1 {
				b.Fatal(msgs, err)
			}
		}
	})
}

// BenchmarkCallOverhead interleaves an executor call and a Tool.Call in
// every iteration, so that both see the same machine load, and reports
// their ratio.
func BenchmarkCallOverhead(b *testing.B) {
	spec := addSpec()
	reg := newRegistry(b, spec)
	exec := newExecutor(b, reg, nil)
	ctx, _ := adapter.WithRun(context.Background(), nil)
	tl := mustTools(b, reg, exec, nil)[0]
	args := json.RawMessage(`{"a":1,"b":2}`)
	var execTime, callTime time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := exec.Do(ctx, &adapter.Request{Spec: spec, Args: args, Integration: lca.Integration}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := tl.Call(ctx, `{"a":1,"b":2}`); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		execTime += t1.Sub(t0)
		callTime += t2.Sub(t1)
	}
	b.ReportMetric(float64(execTime.Nanoseconds())/float64(b.N), "executor-ns/op")
	b.ReportMetric(float64(callTime.Nanoseconds())/float64(b.N), "Call-ns/op")
	b.ReportMetric(float64(callTime)/float64(execTime), "Call/executor")
}
