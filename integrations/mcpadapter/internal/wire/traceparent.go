package wire

import "go.opentelemetry.io/otel/trace"

// Traceparent formats a span context as a W3C traceparent header value.
func Traceparent(sc trace.SpanContext) string {
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
