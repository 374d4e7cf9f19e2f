package mcpadapter_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

// benchSessions starts the two servers under comparison over streamable
// HTTP and returns a client session to each: the exported registry (spec,
// executor, export) and a plain go-sdk server with the same typed tool.
func benchSessions(b testing.TB) (exported, plain *mcp.ClientSession) {
	return benchSessionsAt(b, "2025-11-25")
}

// benchSessionsAt is benchSessions with clients of a protocol version:
// 2026-07-28 is stateless, with the Mcp-* request headers go-sdk checks.
func benchSessionsAt(b testing.TB, version string) (exported, plain *mcp.ClientSession) {
	b.Helper()
	reg := registry.New()
	reg.MustRegister(exAddTool(b))
	exec := adapter.NewExecutor(reg, nil)
	b.Cleanup(func() { exec.Close() })
	ex := newExporter(b, reg, exec, nil)
	srvA := httptest.NewServer(ex.Handler(nil))
	b.Cleanup(srvA.Close)

	s := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two integers."}, func(_ context.Context, _ *mcp.CallToolRequest, in exAddIn) (*mcp.CallToolResult, exAddOut, error) {
		return nil, exAddOut{Sum: in.A + in.B}, nil
	})
	srvB := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	b.Cleanup(srvB.Close)

	connect := func(url string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v1"}, nil)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			b.Fatalf("Connect %s: %v", url, err)
		}
		b.Cleanup(func() { cs.Close() })
		return cs
	}
	return connect(srvA.URL), connect(srvB.URL)
}

func benchCall(b *testing.B, cs *mcp.ClientSession) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
	if err != nil || res.IsError {
		b.Fatalf("CallTool: %v, %v", res, err)
	}
}

// BenchmarkStreamableHTTPCall measures one tools/call over streamable HTTP,
// exported registry and plain go-sdk server side by side.
func BenchmarkStreamableHTTPCall(b *testing.B) {
	exported, plain := benchSessions(b)
	benchHTTPCall(b, exported, plain)
}

// BenchmarkStreamableHTTPCallStateless is BenchmarkStreamableHTTPCall with
// clients of 2026-07-28 (stateless, Mcp-* headers checked), the era of
// `scripts/bench gateway`'s client.
func BenchmarkStreamableHTTPCallStateless(b *testing.B) {
	exported, plain := benchSessionsAt(b, "2026-07-28")
	benchHTTPCall(b, exported, plain)
}

func benchHTTPCall(b *testing.B, exported, plain *mcp.ClientSession) {
	for _, bc := range []struct {
		name string
		cs   *mcp.ClientSession
	}{{"impl=exported", exported}, {"impl=gosdk", plain}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				benchCall(b, bc.cs)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			// Client and server are this process: CPU per call is the
			// figure a loaded machine leaves readable.
			b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// BenchmarkStreamableHTTPRatio interleaves calls to both servers in small
// rounds, so that both see the same machine load, and reports calls per
// second of each and their ratio (exported / plain; 1 means no overhead).
func BenchmarkStreamableHTTPRatio(b *testing.B) {
	exported, plain := benchSessions(b)
	const round = 20
	var tExp, tPlain time.Duration
	var n int
	timed := func(cs *mcp.ClientSession) time.Duration {
		start := time.Now()
		for range round {
			benchCall(b, cs)
		}
		return time.Since(start)
	}
	for b.Loop() {
		// Alternate which goes first, so neither always pays for the
		// other's garbage.
		if n/round%2 == 0 {
			tExp += timed(exported)
			tPlain += timed(plain)
		} else {
			tPlain += timed(plain)
			tExp += timed(exported)
		}
		n += round
	}
	exp := float64(n) / tExp.Seconds()
	pl := float64(n) / tPlain.Seconds()
	b.ReportMetric(exp, "exported-calls/s")
	b.ReportMetric(pl, "plain-calls/s")
	b.ReportMetric(exp/pl, "ratio")
}
