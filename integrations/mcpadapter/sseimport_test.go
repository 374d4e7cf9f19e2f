package mcpadapter_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// A legacy SSE server (2024-11-05) imported by the Manager: its session
// outlives the connect timeout (the stream was opened on the connect's
// context, so every call failed as a lost connection), calls go through
// again and again, and the stream ends when the manager closes.
func TestImportLegacySSE(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "old", Version: "v1"}, nil)
	mcp.AddTool(up, &mcp.Tool{Name: "add", Description: "Adds."}, func(_ context.Context, _ *mcp.CallToolRequest, in exAddIn) (*mcp.CallToolResult, exAddOut, error) {
		return nil, exAddOut{Sum: in.A + in.B}, nil
	})
	srv := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return up }, nil))
	defer srv.Close()
	reg := registry.New()
	m := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{ConnectTimeout: 500 * time.Millisecond})
	ctx := context.Background()
	if err := m.Connect(ctx, mcpadapter.Upstream{Name: "old", URL: srv.URL, SSE: true}); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	time.Sleep(700 * time.Millisecond) // past the connect timeout
	for i := range 3 {
		res, err := exec.Call(ctx, "add", []byte(`{"a":1,"b":2}`))
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		if res.Structured == nil {
			t.Errorf("call %d: %+v", i+1, res)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		n := 0
		for range up.Sessions() {
			n++
		}
		if n == 0 {
			return
		}
	}
	t.Errorf("the upstream's session outlived the manager")
}
