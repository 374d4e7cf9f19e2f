package kit_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestTraceRuns(t *testing.T) {
	inTrace := func(id byte) context.Context {
		sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{id}, SpanID: trace.SpanID{1}})
		return trace.ContextWithSpanContext(context.Background(), sc)
	}
	runs := kit.NewTraceRuns("myfw_")
	run := func(ctx context.Context) *adapter.Run { return adapter.RunFromContext(runs.Context(ctx)) }

	a := run(inTrace(1))
	if a == nil || a.ID() != "myfw_01000000000000000000000000000000" {
		t.Fatalf("run of trace 1 = %v; want a scope named after the trace", a)
	}
	if run(inTrace(1)) != a {
		t.Error("two calls of one trace got two scopes")
	}
	if b := run(inTrace(2)); b == nil || b == a {
		t.Errorf("run of trace 2 = %v; want a scope of its own", b)
	}
	if r := run(context.Background()); r != nil {
		t.Errorf("run outside any trace = %v; want none (left to the executor)", r)
	}
	own, _ := adapter.WithRun(inTrace(1), nil)
	if r := runs.Context(own); adapter.RunFromContext(r) != adapter.RunFromContext(own) {
		t.Error("the caller's own run scope was replaced by the trace's")
	}
}
