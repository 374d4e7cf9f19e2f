package adapter_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

func add(_ context.Context, in addIn) (addOut, error) { return addOut{Sum: in.A + in.B}, nil }

var addArgs = json.RawMessage(`{"a":1,"b":2}`)

// BenchmarkExecutorBare is the floor for add: what any caller must do
// without the executor (decode the arguments, call, encode the result).
func BenchmarkExecutorBare(b *testing.B) {
	b.ReportAllocs()
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

// benchExecutor returns an executor over add (typed: input and output
// schemas) with an in-memory ledger and no hooks, guards or approval port.
func benchExecutor(b *testing.B, cache bool) *adapter.Executor {
	b.Helper()
	spec := adapter.MustTool("add", "adds", add, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
	opts := &adapter.ExecutorOptions{Ledger: ledger.NewMemory(1024)}
	if cache {
		opts.Cache = &adapter.CacheOptions{TTL: time.Hour, Tools: map[string]time.Duration{"add": 0}}
	}
	e := adapter.NewExecutor(catalog{spec}, opts)
	b.Cleanup(func() { e.Close() })
	return e
}

// BenchmarkExecutorCall is a typed tool through the full pipeline:
// lookup, argument validation, timeout, output validation, ledger, span.
func BenchmarkExecutorCall(b *testing.B) {
	e := benchExecutor(b, false)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Call(ctx, "add", addArgs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecutorCacheHit serves add from the cache.
func BenchmarkExecutorCacheHit(b *testing.B) {
	e := benchExecutor(b, true)
	ctx := context.Background()
	if _, err := e.Call(ctx, "add", addArgs); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	reportCPU(b, func() {
		for b.Loop() {
			if _, err := e.Call(ctx, "add", addArgs); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkExecutorParallel runs calls from GOMAXPROCS goroutines; run
// with -cpu 1,2: ns/op should fall with more CPUs if nothing global
// serialises calls. The no-ledger variants leave out the ledger writer,
// which is one goroutine by design (it competes for the same CPUs).
func BenchmarkExecutorParallel(b *testing.B) {
	for _, bc := range []struct {
		name          string
		cache, ledger bool
	}{
		{"call", false, true},
		{"cache-hit", true, true},
		{"call-no-ledger", false, false},
		{"cache-hit-no-ledger", true, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := benchExecutor(b, bc.cache)
			if !bc.ledger {
				e = benchExecutorNoLedger(b, bc.cache)
			}
			ctx := context.Background()
			if _, err := e.Call(ctx, "add", addArgs); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := e.Call(ctx, "add", addArgs); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

func benchExecutorNoLedger(b *testing.B, cache bool) *adapter.Executor {
	spec := adapter.MustTool("add", "adds", add, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
	opts := &adapter.ExecutorOptions{}
	if cache {
		opts.Cache = &adapter.CacheOptions{TTL: time.Hour, Tools: map[string]time.Duration{"add": 0}}
	}
	e := adapter.NewExecutor(catalog{spec}, opts)
	b.Cleanup(func() { e.Close() })
	return e
}

// BenchmarkExecutorForecast runs the handler of BenchmarkBareDecodeCallEncode
// (bench_spec_test.go) through the full pipeline, for the ratio to that floor.
func BenchmarkExecutorForecast(b *testing.B) {
	spec := adapter.MustTool("forecast", "Weather forecast", benchHandler, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
	e := adapter.NewExecutor(catalog{spec}, &adapter.ExecutorOptions{Ledger: ledger.NewMemory(1024)})
	b.Cleanup(func() { e.Close() })
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Call(ctx, "forecast", benchCallArgs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecutorRawNoop is the cheapest tool: raw, an empty input
// schema, no output schema, a constant result.
func BenchmarkExecutorRawNoop(b *testing.B) {
	res := adapter.TextResult("ok")
	spec := adapter.MustRawTool("noop", "does nothing", &jsonschema.Schema{Type: "object"}, func(context.Context, json.RawMessage) (*adapter.Result, error) {
		return res, nil
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
	e := adapter.NewExecutor(catalog{spec}, &adapter.ExecutorOptions{Ledger: ledger.NewMemory(1024)})
	b.Cleanup(func() { e.Close() })
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Call(ctx, "noop", args); err != nil {
			b.Fatal(err)
		}
	}
}
