package toolsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/toolsearch"
)

// BenchmarkSearch measures one search of the labelled queries, in turn,
// among 1,000 and 10,000 tools, and reports the p50 and p99 latency.
func BenchmarkSearch(b *testing.B) {
	qs := queries(b)
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			_, ix := newIndex(b, nearDuplicates(b, n))
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				if _, err := ix.Search(ctx, qs[i%len(qs)].query, 5, nil); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkBuild measures building the index over a registry of 1,000 and
// 10,000 tools, and the heap it holds per tool.
func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			reg := registry.New()
			reg.MustRegister(nearDuplicates(b, n)...)
			var perTool float64
			for b.Loop() {
				var before, after runtime.MemStats
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&before)
				b.StartTimer()
				ix, err := toolsearch.New(reg, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.StartTimer()
				perTool = float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
				runtime.KeepAlive(ix)
				ix.Close()
			}
			b.ReportMetric(perTool, "B/tool")
		})
	}
}

// definition is one tool's definition as a model is sent it.
func definition(s *adapter.Spec) []byte {
	b, _ := json.Marshal(map[string]any{"name": s.Name, "description": s.Description, "inputSchema": s.InputSchema})
	return b
}

// tokensPerTurn returns the tokens of tool definitions sent per turn, as
// bytes/4 (no tokenizer: the usual estimate of about four bytes of JSON per
// token): flat, every definition; search, the two meta-tools' definitions
// plus one search_tools answer of 5 tools (the median over the labelled
// queries).
func tokensPerTurn(tb testing.TB, specs []*adapter.Spec) (flat, search int) {
	_, ix := newIndex(tb, specs)
	for _, s := range specs {
		flat += len(definition(s))
	}
	meta := ix.Tools(nil)
	var base int
	for _, s := range meta {
		base += len(definition(s))
	}
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	var answers []int
	for _, q := range queries(tb) {
		res, err := exec.Do(context.Background(), &adapter.Request{Spec: meta[1], Args: json.RawMessage(`{"query":` + quote(q.query) + `}`)})
		if err != nil {
			tb.Fatal(err)
		}
		answers = append(answers, len(res.Text()))
	}
	slices.Sort(answers)
	return flat / 4, (base + answers[len(answers)/2]) / 4
}

// TestTokensPerTurn reports the definition tokens a model is sent per turn,
// flat against search, and checks that search sends fewer from 100 tools.
func TestTokensPerTurn(t *testing.T) {
	for _, n := range []int{0, 1000, 10000} {
		specs := realSpecs(t)
		if n > 0 {
			specs = nearDuplicates(t, n)
		}
		flat, search := tokensPerTurn(t, specs)
		t.Logf("%d tools: flat %d tokens per turn, search %d (bytes/4)", len(specs), flat, search)
		if search >= flat {
			t.Errorf("%d tools: search sends %d tokens, flat %d", len(specs), search, flat)
		}
	}
}
