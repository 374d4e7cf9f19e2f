package mcpadapter_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// BenchmarkCall compares one tools/call through import + executor with a
// raw go-sdk ClientSession.CallTool, in memory, over streamable HTTP and
// over stdio (the test binary as a child server). Compare import/* with raw/* of one transport;
// handler/* is the imported spec's handler alone, without the executor.
// Besides wall time each reports the process CPU time per call
// (cpu-ns/op), which load from elsewhere on the machine does not inflate.
func BenchmarkCall(b *testing.B) {
	args := json.RawMessage(`{"a":2,"b":3}`)
	transports := []struct {
		name string
		dial func(b *testing.B) (mcp.Transport, mcpadapter.Upstream)
	}{
		{"in-memory", func(b *testing.B) (mcp.Transport, mcpadapter.Upstream) {
			return inMemoryTo(b, newImportServer()), mcpadapter.Upstream{Name: "srv", Allow: []string{"add"}, Transport: inMemoryTo(b, newImportServer())}
		}},
		{"http", func(b *testing.B) (mcp.Transport, mcpadapter.Upstream) {
			url := httpTo(b, newImportServer())
			return &mcp.StreamableClientTransport{Endpoint: url}, mcpadapter.Upstream{Name: "srv", Allow: []string{"add"}, URL: url}
		}},
		{"stdio", func(b *testing.B) (mcp.Transport, mcpadapter.Upstream) {
			s := stdioHelper("tools")
			cmd := exec.Command(s.Command, s.Args...)
			cmd.Env = s.Env
			s.Allow = []string{"add"}
			return &mcp.CommandTransport{Command: cmd}, s
		}},
	}
	for _, tr := range transports {
		b.Run("transport="+tr.name+"/impl=gosdk", func(b *testing.B) {
			raw, _ := tr.dial(b)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(context.Background(), raw, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			reportCPU(b, func() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: args})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			})
		})
		b.Run("transport="+tr.name+"/impl=import", func(b *testing.B) {
			_, srv := tr.dial(b)
			e := newImportEnv(b, nil)
			if err := e.m.Connect(context.Background(), srv); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			reportCPU(b, func() {
				if _, err := e.exec.Call(ctx, "add", args); err != nil {
					b.Fatal(err)
				}
			})
		})
		// handler: the imported spec's handler alone, without the executor.
		b.Run("transport="+tr.name+"/impl=handler", func(b *testing.B) {
			_, srv := tr.dial(b)
			e := newImportEnv(b, nil)
			if err := e.m.Connect(context.Background(), srv); err != nil {
				b.Fatal(err)
			}
			spec, _ := e.reg.Lookup("add")
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			reportCPU(b, func() {
				if _, err := spec.Handler(ctx, args); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
