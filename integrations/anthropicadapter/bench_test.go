package anthropicadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	anthropicmcp "github.com/anthropics/anthropic-sdk-go/v2/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/anthropicadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

// BenchmarkExecute: one BetaTool.Execute of a go-sdk server's tool over one
// in-memory session, through this package (the manager's import, the
// executor with its default policy and ledger off) and through the SDK's
// own ungoverned bridge, mcp.NewBetaTools, on the manager's session.
func BenchmarkExecute(b *testing.B) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "adds two integers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	reg := registry.New()
	exec := adapter.NewExecutor(reg, nil)
	mgr := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Executor: exec})
	defer func() {
		mgr.Close()
		exec.Close()
	}()
	if err := mgr.Connect(ctx, mcpadapter.Upstream{Name: "bench", Transport: ct, Trust: true}); err != nil {
		b.Fatal(err)
	}
	ts, err := anthropicadapter.Tools(reg, exec, nil)
	if err != nil {
		b.Fatal(err)
	}
	session := mgr.Session("bench")
	var listed []*mcp.Tool
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			b.Fatal(err)
		}
		listed = append(listed, t)
	}
	sdk, err := anthropicmcp.NewBetaTools(listed, session)
	if err != nil {
		b.Fatal(err)
	}
	input := json.RawMessage(`{"a":2,"b":3}`)
	for _, c := range []struct {
		name string
		tool anthropic.BetaTool
	}{{"ours", ts.BetaTools()[0]}, {"sdk-mcp", sdk[0]}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := c.tool.Execute(ctx, input)
				if err != nil || len(out) != 1 || !strings.Contains(out[0].OfText.Text, `"sum":5`) {
					b.Fatalf("%+v, %v", out, err)
				}
			}
		})
	}
}
