package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeRelaysInputRequired: an upstream of 2026-07-28 that asks for
// the user's name (elicitation) and the model's answer (sampling) with an
// input-required result is answered through serve by the go-sdk client
// calling it, at 2026-07-28 (an input-required result of serve's, retried
// with its signed state) and at 2025-11-25 (requests during the call).
// Before, serve's own client answered: "client does not support
// CreateMessage". A tampered or the upstream's bare state is refused.
func TestServeRelaysInputRequired(t *testing.T) {
	var calls atomic.Int32
	up := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "v1"}, nil)
	up.AddTool(&mcp.Tool{Name: "ask", Description: "asks a name and a model", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			p := req.Params
			er, _ := p.InputResponses["name"].(*mcp.ElicitResult)
			sr, _ := p.InputResponses["capital"].(*mcp.CreateMessageWithToolsResult)
			if p.RequestState == "up-1" && er != nil && er.Action == "accept" && sr != nil && len(sr.Content) == 1 {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
					Text: fmt.Sprintf("Hello %v, %s", er.Content["name"], sr.Content[0].(*mcp.TextContent).Text)}}}, nil
			}
			return &mcp.CallToolResult{RequestState: "up-1", InputRequests: mcp.InputRequestMap{
				"name": &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
					"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}},
				"capital": &mcp.CreateMessageParams{MaxTokens: 10,
					Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Capital of France?"}}}},
			}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	t.Cleanup(srv.Close)

	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"asker": {"url": %q}},
  "agentadapter": {"store": "memory:", "servers": {"asker": {"trust": "trusted"}},
    "policy": {"approval": {"default": "never"}}}}`, srv.URL))
	s := startServe(t, dir, nil, "--config", "gateway.json")

	copts := func(mrtr bool) *mcp.ClientOptions {
		return &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Alice"}}, nil
			},
			CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "Paris"}}, nil
			},
			MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: !mrtr},
		}
	}
	connect := func(version string, opts *mcp.ClientOptions) *mcp.ClientSession {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, opts).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("connecting at %s: %v", version, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := connect(version, copts(true)).CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
			if err != nil || res.IsError || text(res) != "Hello Alice, Paris" {
				t.Fatalf("call: %+v, %v; want Hello Alice, Paris", res, err)
			}
		})
	}

	t.Run("refused states", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs := connect("2026-07-28", copts(false))
		first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
		if err != nil || !first.NeedsInput() || len(first.InputRequests) != 2 || first.RequestState == "" || first.RequestState == "up-1" {
			t.Fatalf("first call: %+v, %v; want the upstream's two questions under serve's state", first, err)
		}
		before := calls.Load()
		answers := mcp.InputResponseMap{
			"name":    &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Mallory"}},
			"capital": &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "Paris"}},
		}
		for _, bad := range []string{"up-1", first.RequestState + "x"} {
			var je *jsonrpc.Error
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}, InputResponses: answers, RequestState: bad})
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("state %.20q…: %+v, %v; want -32602", bad, res, err)
			}
		}
		if n := calls.Load(); n != before {
			t.Errorf("a refused retry reached the upstream (%d calls, want %d)", n, before)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}, InputResponses: answers, RequestState: first.RequestState})
		if err != nil || text(res) != "Hello Mallory, Paris" {
			t.Fatalf("retry: %+v, %v", res, err)
		}
	})
}
