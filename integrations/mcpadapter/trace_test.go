package mcpadapter_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

const (
	clientTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpanID  = "00f067aa0ba902b7"
	clientParent  = "00-" + clientTraceID + "-" + clientSpanID + "-01"
)

// metaSeen is an upstream that records the _meta of each call.
type metaSeen struct {
	mu   sync.Mutex
	meta []map[string]any
}

func (m *metaSeen) last() map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.meta) == 0 {
		return nil
	}
	return m.meta[len(m.meta)-1]
}

func (m *metaSeen) server() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		m.mu.Lock()
		m.meta = append(m.meta, req.Params.Meta)
		m.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	return srv
}

// traceFront imports upstream into an executor traced by tp and serves it
// through an Exporter; it returns go-sdk clients over memory and HTTP.
func traceFront(t *testing.T, up *metaSeen, tp trace.TracerProvider, upstreamHTTP bool) map[string]*mcp.ClientSession {
	t.Helper()
	reg := registry.New()
	m := mcpadapter.NewManager(reg, nil)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{TracerProvider: tp})
	t.Cleanup(func() { m.Close(); exec.Close() })
	s := mcpadapter.Upstream{Name: "up", Trust: true}
	if upstreamHTTP {
		s.URL = httpTo(t, up.server())
	} else {
		s.Transport = inMemoryTo(t, up.server())
	}
	if err := m.Connect(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	ex := newExporter(t, reg, exec, nil)
	return map[string]*mcp.ClientSession{
		"memory": exConnect(t, ex, nil, ""),
		"http":   exConnectHTTP(t, exServeHTTP(t, ex, nil).URL, nil, nil),
	}
}

func callWithMeta(t *testing.T, cs *mcp.ClientSession, meta map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}, Meta: meta})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if res.IsError {
		t.Fatalf("CallTool: tool error %v", res.Content)
	}
}

// TestTraceContextAcrossHops: a client's traceparent in _meta is continued
// by the executor's span (its remote parent) and reaches the upstream with
// the same trace id and the executor's span as parent, tracestate kept;
// over memory and HTTP, to an upstream in memory and over HTTP.
func TestTraceContextAcrossHops(t *testing.T) {
	for _, upHTTP := range []bool{false, true} {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
		up := &metaSeen{}
		for name, cs := range traceFront(t, up, tp, upHTTP) {
			before := len(rec.Ended())
			callWithMeta(t, cs, map[string]any{"traceparent": clientParent, "tracestate": "vendor=abc,other=x"})
			spans := rec.Ended()[before:]
			if len(spans) != 1 || !strings.HasPrefix(spans[0].Name(), "execute_tool") {
				t.Fatalf("%s (upstream http %v): %d spans ended, want the one execute_tool", name, upHTTP, len(spans))
			}
			span := spans[0]
			parent := span.Parent()
			if !parent.IsRemote() || parent.TraceID().String() != clientTraceID || parent.SpanID().String() != clientSpanID {
				t.Errorf("%s: executor span's parent = %v (remote %v), want the client's span %s", name, parent.SpanID(), parent.IsRemote(), clientSpanID)
			}
			if got := span.SpanContext().TraceID().String(); got != clientTraceID {
				t.Errorf("%s: executor span in trace %s, want the client's %s", name, got, clientTraceID)
			}
			meta := up.last()
			want := "00-" + clientTraceID + "-" + span.SpanContext().SpanID().String() + "-01"
			if got := meta["traceparent"]; got != want {
				t.Errorf("%s: upstream traceparent = %v, want %s (client's trace, executor's span)", name, got, want)
			}
			if got := meta["tracestate"]; got != "vendor=abc,other=x" {
				t.Errorf("%s: upstream tracestate = %v, want the client's", name, got)
			}
		}
	}
}

// TestTraceContextPassThrough: an executor whose spans go nowhere (a no-op
// provider, as agentadapter serve has) still forwards the client's trace
// context upstream as it came, so the upstream joins the client's trace.
func TestTraceContextPassThrough(t *testing.T) {
	up := &metaSeen{}
	for name, cs := range traceFront(t, up, noop.NewTracerProvider(), false) {
		callWithMeta(t, cs, map[string]any{"traceparent": clientParent, "tracestate": "vendor=abc"})
		if got := up.last()["traceparent"]; got != clientParent {
			t.Errorf("%s: upstream traceparent = %v, want the client's %s", name, got, clientParent)
		}
		if got := up.last()["tracestate"]; got != "vendor=abc" {
			t.Errorf("%s: upstream tracestate = %v, want the client's", name, got)
		}
	}
}

// TestTraceContextMalformed: a malformed traceparent is ignored: the call
// succeeds, no span has it as parent, nothing of it goes upstream. A bad
// tracestate is dropped and the traceparent kept.
func TestTraceContextMalformed(t *testing.T) {
	bad := []any{
		"garbage",
		"00-" + clientTraceID + "-" + clientSpanID,                    // no flags
		"00-00000000000000000000000000000000-" + clientSpanID + "-01", // zero trace id
		"00-" + clientTraceID + "-0000000000000000-01",                // zero span id
		"ff-" + clientTraceID + "-" + clientSpanID + "-01",            // version ff
		"00-" + strings.ToUpper(clientTraceID) + "-" + clientSpanID + "-01",
		"00-" + clientTraceID + "-" + clientSpanID + "-01-extra", // extra in version 00
		"01-" + clientTraceID + "-" + clientSpanID + "-01-" + strings.Repeat("x", 1<<16),
		42.0,
		map[string]any{"traceparent": clientParent},
		[]any{clientParent},
	}
	for _, tpName := range []string{"recording", "noop"} {
		var tp trace.TracerProvider = noop.NewTracerProvider()
		rec := tracetest.NewSpanRecorder()
		if tpName == "recording" {
			stp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			t.Cleanup(func() { _ = stp.Shutdown(context.Background()) })
			tp = stp
		}
		up := &metaSeen{}
		for name, cs := range traceFront(t, up, tp, false) {
			for _, v := range bad {
				callWithMeta(t, cs, map[string]any{"traceparent": v, "tracestate": "vendor=abc"})
				got, _ := up.last()["traceparent"].(string)
				if tpName == "noop" && got != "" {
					t.Errorf("%s/%s: traceparent %.80v: upstream got %q, want none", tpName, name, v, got)
				}
				if strings.Contains(got, strings.ToLower(clientTraceID)) {
					t.Errorf("%s/%s: traceparent %.80v: upstream got %q, in the malformed one's trace", tpName, name, v, got)
				}
				if tpName == "recording" {
					if got == "" {
						t.Errorf("%s/%s: traceparent %.80v: upstream got none, want the executor's own trace", tpName, name, v)
					}
					spans := rec.Ended()
					if p := spans[len(spans)-1].Parent(); p.IsValid() {
						t.Errorf("%s/%s: traceparent %.80v: executor span has parent %v, want a root", tpName, name, v, p.SpanID())
					}
				}
			}
			var many []string // more members than W3C's 32, under the length bound
			for i := range 40 {
				many = append(many, fmt.Sprintf("k%d=v", i))
			}
			for _, ts := range []any{strings.Repeat("a=b,", 300), strings.Join(many, ","), "not a trace state!", 7.0} {
				callWithMeta(t, cs, map[string]any{"traceparent": clientParent, "tracestate": ts})
				meta := up.last()
				if got, _ := meta["traceparent"].(string); !strings.Contains(got, clientTraceID) {
					t.Errorf("%s/%s: tracestate %.40v: upstream traceparent %q, want the client's trace", tpName, name, ts, got)
				}
				if got, ok := meta["tracestate"]; ok {
					t.Errorf("%s/%s: tracestate %.40v: upstream got tracestate %.40v, want none", tpName, name, ts, got)
				}
			}
		}
	}
}
