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
func benchSessions(b *testing.B) (exported, plain *mcp.ClientSession) {
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

	return exConnectHTTP(b, srvA.URL, nil, nil), exConnectHTTP(b, srvB.URL, nil, nil)
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
	for _, bc := range []struct {
		name string
		cs   *mcp.ClientSession
	}{{"impl=exported", exported}, {"impl=gosdk", plain}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchCall(b, bc.cs)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
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
