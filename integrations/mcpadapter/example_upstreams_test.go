package mcpadapter_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// The export serves the resources and prompts of imported servers beside
// their tools when given the manager; each read is a governed call.
func ExampleUpstreams() {
	ctx := context.Background()
	// An MCP server with a resource, standing for any imported server.
	up := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, nil)
	up.AddResource(&mcp.Resource{URI: "docs://readme", Name: "readme", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "docs://readme", Text: "Read me first."}}}, nil
		})
	st, ct := mcp.NewInMemoryTransports()
	upSession, _ := up.Connect(ctx, st, nil)
	defer upSession.Close()

	reg := registry.New()
	m := mcpadapter.NewManager(reg, nil)
	defer m.Close()
	if err := m.Connect(ctx, mcpadapter.Upstream{Name: "docs", Transport: ct}); err != nil {
		panic(err)
	}
	ledger := adapter.NewMemoryLedger(10)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: ledger})
	exp, err := mcpadapter.NewExporter(reg, exec, &mcpadapter.ExportOptions{Upstreams: &mcpadapter.Upstreams{Manager: m}})
	if err != nil {
		panic(err)
	}
	defer exp.Close()

	// A client of the export reads the imported server's resource.
	st2, ct2 := mcp.NewInMemoryTransports()
	ss, _ := exp.MCPServer().Connect(ctx, st2, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil).Connect(ctx, ct2, nil)
	defer cs.Close()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://readme"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Contents[0].Text)
	_ = exec.Flush(ctx)
	r := ledger.Records()[0]
	fmt.Println(r.Tool, r.Source, string(r.Args))
	// Output:
	// Read me first.
	// resources/read mcp:docs {"uri":"docs://readme"}
}
