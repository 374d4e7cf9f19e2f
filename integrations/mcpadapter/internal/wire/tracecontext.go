package wire

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// W3C trace context in a request's _meta (SEP-414).
const (
	metaTraceparent = "traceparent"
	metaTracestate  = "tracestate"
)

// Bounds on the trace context a client sends: a traceparent is 55
// characters in version 00 (later versions may append); W3C asks that at
// least 512 characters of tracestate be propagated.
const (
	maxTraceparent = 256
	maxTracestate  = 512
)

// WithRemoteTrace continues the W3C trace context (SEP-414) in a request's
// _meta: the executor's span becomes a child of the client's, and the
// upstream call carries the same trace. A context that already has a span
// (an otelhttp handler's, say) keeps it. A malformed traceparent is ignored,
// so nothing of it goes upstream; a malformed or oversized tracestate is
// dropped and the traceparent kept, as W3C asks.
func WithRemoteTrace(ctx context.Context, meta map[string]any) context.Context {
	tp, _ := meta[metaTraceparent].(string)
	if tp == "" || len(tp) > maxTraceparent || trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	carrier := propagation.MapCarrier{metaTraceparent: tp}
	if ts, _ := meta[metaTracestate].(string); ts != "" && len(ts) <= maxTracestate {
		carrier[metaTracestate] = ts
	}
	return propagation.TraceContext{}.Extract(ctx, carrier)
}
