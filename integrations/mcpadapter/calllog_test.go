package mcpadapter_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// TestCallLogsFromNewEraUpstream: an upstream the import reaches at
// 2026-07-28 logs during a call only at the level the call's _meta asks
// (it has no session level); the import asks what the export's sessions
// asked with logging/setLevel, so a 2025-11-25 caller that asked for debug
// gets the tool's three messages, and a session that asked nothing gets
// none. Before, the import's calls carried no level and the upstream
// logged nothing (the draft suite's tools-call-with-logging through
// serve).
func TestCallLogsFromNewEraUpstream(t *testing.T) {
	ctx := context.Background()
	up := primUpstream(t, "up", "hello")
	var mu sync.Mutex
	var hopVersion any
	mcp.AddTool(up, &mcp.Tool{Name: "chatty"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		hopVersion = req.Params.Meta[mcp.MetaKeyProtocolVersion]
		mu.Unlock()
		for _, lv := range []mcp.LoggingLevel{"debug", "info", "warning"} {
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: lv, Logger: "tool", Data: "step " + string(lv)})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	f := primExportWith(t, []mcpadapter.Upstream{primServer(t, "up", up, mcpadapter.Upstream{})}, nil, nil, nil, "2025-11-25")

	// A second session that asks for no logs.
	quiet := make(chan string, 16)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.exp.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	other, err := mcp.NewClient(&mcp.Implementation{Name: "quiet", Version: "v1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { quiet <- string(r.Params.Level) },
	}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })

	if err := f.client.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	res, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: "chatty", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("chatty: %+v, %v", res, err)
	}
	mu.Lock()
	v := hopVersion
	mu.Unlock()
	if v != "2026-07-28" {
		t.Fatalf("the import's hop is at %v, want 2026-07-28 (the test is about that era)", v)
	}
	for _, want := range []string{"log up/tool debug", "log up/tool info", "log up/tool warning"} {
		f.wait(t, want, nil)
	}
	select {
	case lv := <-quiet:
		t.Errorf("a session that asked for no logs got a %s message", lv)
	case <-time.After(200 * time.Millisecond):
	}
}
