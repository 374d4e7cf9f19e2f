package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeRequestStateAcrossRestart: a 2026-07-28 client asked to approve
// a call through serve answers it after the gateway restarted, and the
// answer decides the ticket: the key that signs the requestState is the
// store's, not the process's. A tampered state is refused and decides
// nothing.
func TestServeRequestStateAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "sqlite:${STATE}/state.db", "servers": {"notes": {"trust": "trusted"}},
    "virtualServers": {"self": {"approver": "client"}}}}`, testServer))
	env := []string{"STATE=" + dir + "/state"}
	connect2026 := func(url string) *mcp.ClientSession {
		t.Helper()
		c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return nil, errors.New("answered by hand")
			},
			MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatalf("connecting to %s at 2026-07-28: %v", url, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	args := map[string]any{"text": "after a restart"}

	s := startServe(t, dir, env, "--config", "gateway.json")
	res, err := connect2026(s.base+"/mcp/self").CallTool(context.Background(), &mcp.CallToolParams{Name: "add_note", Arguments: args})
	if err != nil || !res.NeedsInput() || res.RequestState == "" || len(res.InputRequests) != 1 {
		t.Fatalf("first call: %+v, %v; want an input-required approval question", res, err)
	}
	var question string
	for id := range res.InputRequests {
		question = id
	}
	state := res.RequestState
	s.stop(t)

	s = startServe(t, dir, env, "--config", "gateway.json")
	cs := connect2026(s.base + "/mcp/self")
	retry := func(state string) (*mcp.CallToolResult, error) {
		return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_note", Arguments: args, RequestState: state,
			InputResponses: mcp.InputResponseMap{question: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}})
	}
	var je *jsonrpc.Error
	if res, err := retry(state + "x"); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("tampered state: %+v, %v; want -32602", res, err)
	}
	res, err = retry(state)
	if err != nil || res.IsError || !strings.Contains(text(res), "after a restart") {
		t.Fatalf("answer after the restart: %+v, %v; want the call run", res, err)
	}
}
