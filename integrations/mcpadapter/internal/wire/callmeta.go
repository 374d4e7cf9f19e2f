package wire

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
)

// CallMeta returns the _meta of an outgoing tools/call: extra (the
// resolver's), then, when traceContext is set, the W3C trace context of the span
// on ctx, and the log level when not empty; nil when there is none.
func CallMeta(ctx context.Context, extra map[string]any, traceContext bool, level mcp.LoggingLevel) map[string]any {
	var meta map[string]any
	for k, v := range extra {
		if meta == nil {
			meta = map[string]any{}
		}
		meta[k] = v
	}
	if traceContext {
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			if meta == nil {
				meta = map[string]any{}
			}
			meta[metaTraceparent] = traceparent(sc)
			if ts := sc.TraceState().String(); ts != "" {
				meta[metaTracestate] = ts
			}
		}
	}
	if level != "" {
		if meta == nil {
			meta = map[string]any{}
		}
		meta[mcp.MetaKeyLogLevel] = level
	}
	return meta
}

// traceparent formats a span context as a W3C traceparent header value.
func traceparent(sc trace.SpanContext) string {
	tid, sid := sc.TraceID(), sc.SpanID()
	return "00-" + hexString(tid[:]) + "-" + hexString(sid[:]) + "-" + hexString([]byte{byte(sc.TraceFlags())})
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, x := range b {
		out[2*i], out[2*i+1] = digits[x>>4], digits[x&15]
	}
	return string(out)
}
