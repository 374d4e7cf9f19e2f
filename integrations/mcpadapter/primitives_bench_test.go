package mcpadapter_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// BenchmarkUpstreamRead compares a resources/read through the export (the
// executor, one ledger record, the manager's session) with the same read
// of the upstream directly, for a small resource and an MCP App's 450 KB.
func BenchmarkUpstreamRead(b *testing.B) {
	for _, size := range []struct{ name, body string }{{"small", "hello"}, {"450KB", strings.Repeat("<p>app</p>", 45_000)}} {
		b.Run(size.name+"/direct", func(b *testing.B) {
			up := primUpstream(b, "up", size.body)
			st, ct := mcp.NewInMemoryTransports()
			ss, err := up.Connect(context.Background(), st, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(context.Background(), ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			benchRead(b, cs)
		})
		b.Run(size.name+"/export", func(b *testing.B) {
			up := primUpstream(b, "up", size.body)
			f := primExport(b, []mcpadapter.Upstream{primServer(b, "up", up, mcpadapter.Upstream{})}, nil, nil)
			benchRead(b, f.client)
		})
	}
}

func benchRead(b *testing.B, cs *mcp.ClientSession) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://a"}); err != nil {
			b.Fatal(err)
		}
	}
}
