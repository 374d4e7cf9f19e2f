package mcpadapter_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// newManyToolsServer returns an in-memory go-sdk server with n typed tools
// (input and output schemas inferred by go-sdk, as most Go servers do).
func newManyToolsServer(n int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "many", Version: "v1"}, nil)
	add := func(_ context.Context, _ *mcp.CallToolRequest, in impAddIn) (*mcp.CallToolResult, impAddOut, error) {
		return nil, impAddOut{Sum: in.A + in.B}, nil
	}
	for i := range n {
		mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("add_%05d", i), Description: "Adds two integers."}, add)
	}
	return s
}

// listAll is a raw go-sdk listing: connect, page through tools/list, keep
// the tools.
func listAll(tb testing.TB, srv *mcp.Server, n int) (*mcp.ClientSession, []*mcp.Tool) {
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "v0"}, nil).Connect(ctx, inMemoryTo(tb, srv), nil)
	if err != nil {
		tb.Fatal(err)
	}
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			tb.Fatal(err)
		}
		tools = append(tools, t)
	}
	if len(tools) != n {
		tb.Fatalf("listed %d tools, want %d", len(tools), n)
	}
	return cs, tools
}

// importAll imports every tool of srv into a fresh registry.
func importAll(tb testing.TB, srv *mcp.Server, n int) (*mcpadapter.Manager, *registry.Registry) {
	reg := registry.New()
	m := mcpadapter.NewManager(reg, nil)
	if err := m.Connect(context.Background(), mcpadapter.Upstream{Name: "many", Transport: inMemoryTo(tb, srv), Trust: true}); err != nil {
		tb.Fatal(err)
	}
	if reg.Len() != n {
		tb.Fatalf("imported %d tools, want %d", reg.Len(), n)
	}
	return m, reg
}

// heapKept returns the live heap that run leaves behind until release is
// called: the difference of two post-GC heap sizes.
func heapKept(run func() (release func())) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	release := run()
	runtime.GC()
	runtime.ReadMemStats(&after)
	release()
	return float64(int64(after.HeapAlloc) - int64(before.HeapAlloc))
}

// BenchmarkImport compares importing a server's tools (listing, conversion,
// checks, definition pinning, registration) with a raw go-sdk listing of
// the same tools, at 100, 1,000 and 5,000 tools, in memory. Besides time
// and allocations it reports the time per tool and the heap each keeps
// (kept-B: the session and the listed tools for go-sdk; the manager,
// registry and specs for the import).
func BenchmarkImport(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		srv := newManyToolsServer(n)
		impls := []struct {
			name string
			run  func(testing.TB) (release func())
		}{
			{"gosdk", func(tb testing.TB) func() {
				cs, tools := listAll(tb, srv, n)
				return func() { runtime.KeepAlive(tools); cs.Close() }
			}},
			{"import", func(tb testing.TB) func() {
				m, reg := importAll(tb, srv, n)
				return func() { runtime.KeepAlive(reg); m.Close() }
			}},
		}
		for _, impl := range impls {
			b.Run(fmt.Sprintf("tools=%d/impl=%s", n, impl.name), func(b *testing.B) {
				kept := heapKept(func() func() { return impl.run(b) })
				b.ReportAllocs()
				reportCPU(b, func() { impl.run(b)() })
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/tool")
				b.ReportMetric(kept, "kept-B")
				b.ReportMetric(kept/float64(n), "kept-B/tool")
			})
		}
	}
}

// reportCPU runs the benchmark loop body and reports the process CPU time
// per operation (cpu-ns/op; both ends of an in-process connection count).
func reportCPU(b *testing.B, body func()) {
	start := processCPU()
	for b.Loop() {
		body()
	}
	if used := processCPU() - start; start > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
