package adapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// BenchmarkOverhead puts the executor beside the bare decode-call-encode
// of add, as impl=... sub-benchmarks of one benchmark so that scripts/bench
// interleaves their rounds (benchstat -col /impl): impl=bare is the floor;
// the executor runs with a MemoryLedger (and with a ledger that discards
// records), on a background and on a cancellable context, and with a real
// span processor (the SDK's simple processor and
// a discarding exporter) as well as without tracing, and (impl=executor-inline)
// with the handler declared as honouring its context, so that it runs on
// the caller's goroutine without a hand-off to a worker.
func BenchmarkOverhead(b *testing.B) {
	bare := func(b *testing.B) {
		ctx := context.Background()
		for b.Loop() {
			var in addIn
			if err := json.Unmarshal(addArgs, &in); err != nil {
				b.Fatal(err)
			}
			out, err := add(ctx, in)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(out); err != nil {
				b.Fatal(err)
			}
		}
	}
	call := func(ctx context.Context, opts *adapter.ExecutorOptions, honors ...bool) func(b *testing.B) {
		return func(b *testing.B) {
			spec := adapter.MustTool("add", "adds", add, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}, HonorsContext: len(honors) > 0})
			if opts.Ledger == nil {
				opts.Ledger = ledger.NewMemory(1024)
			}
			e := adapter.NewExecutor(catalog{spec}, opts)
			b.Cleanup(func() { e.Close() })
			for b.Loop() {
				if _, err := e.Call(ctx, "add", addArgs); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sdktrace.NewSimpleSpanProcessor(tracetest.NewNoopExporter())))
	defer tp.Shutdown(context.Background())
	for _, bc := range []struct {
		name string
		fn   func(*testing.B)
	}{
		{"bare", bare},
		{"executor", call(context.Background(), &adapter.ExecutorOptions{})},
		{"executor-ledger-discard", call(context.Background(), &adapter.ExecutorOptions{Ledger: discardLedger{}})},
		{"executor-cancellable", call(cancellable, &adapter.ExecutorOptions{})},
		{"executor-traced", call(context.Background(), &adapter.ExecutorOptions{TracerProvider: tp})},
		{"executor-inline", call(context.Background(), &adapter.ExecutorOptions{}, true)},
	} {
		b.Run("impl="+bc.name, func(b *testing.B) {
			b.ReportAllocs()
			reportCPU(b, func() { bc.fn(b) })
		})
	}
}

// discardLedger takes records and keeps nothing: the executor's own cost
// without MemoryLedger's hash chain (JSON and SHA-256 per record).
type discardLedger struct{}

func (discardLedger) Write(context.Context, *ledger.Record) error { return nil }

// BenchmarkCacheHitVarying serves add from the cache with a ledger, over
// 64 argument texts (different values and spacing) warmed beforehand, so
// that no single text stays hot in every cache on the way.
func BenchmarkCacheHitVarying(b *testing.B) {
	e := benchExecutor(b, true)
	ctx := context.Background()
	var texts []json.RawMessage
	for i := range 64 {
		sp := ""
		if i%2 == 1 {
			sp = " "
		}
		texts = append(texts, json.RawMessage(fmt.Sprintf(`{"a":%s%d,"b":%d}`, sp, i, i*7)))
	}
	for _, t := range texts {
		if _, err := e.Call(ctx, "add", t); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	reportCPU(b, func() {
		i := 0
		for b.Loop() {
			if _, err := e.Call(ctx, "add", texts[i&63]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// reportCPU runs fn, the benchmark's loop, and reports the process's CPU
// per call (cpu-ns/op): the ledger writer's, the handler worker's and the
// garbage collector's included.
func reportCPU(b *testing.B, fn func()) {
	cpu := cpuTime()
	fn()
	if cpu := cpuTime() - cpu; cpu > 0 && b.N > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
