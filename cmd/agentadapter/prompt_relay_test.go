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

// TestServeRelaysPromptInput: an upstream of 2026-07-28 whose prompt asks
// the user's name with an input-required result (prompts/get) is answered
// through serve by the go-sdk client getting it, at 2026-07-28 (serve's
// input-required result, retried with its signed state) and at 2025-11-25
// (elicitation during the request). Before, serve's own import answered,
// and having no ElicitationPort, failed the prompt. The upstream's bare
// state, a tampered one, and the state of a tool of the same name asking
// the same question are refused on the prompt, and the prompt's on the
// tool.
func TestServeRelaysPromptInput(t *testing.T) {
	var gets, calls atomic.Int32
	ask := mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}}}
	up := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "v1"}, nil)
	up.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "lang"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			gets.Add(1)
			p := req.Params
			if er, _ := p.InputResponses["name"].(*mcp.ElicitResult); p.RequestState == "up-p" && er != nil && er.Action == "accept" {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
					Content: &mcp.TextContent{Text: fmt.Sprintf("Hi %v in %s", er.Content["name"], p.Arguments["lang"])}}}}, nil
			}
			return &mcp.GetPromptResult{RequestState: "up-p", InputRequests: ask}, nil
		})
	up.AddTool(&mcp.Tool{Name: "greet", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return &mcp.CallToolResult{RequestState: "up-t", InputRequests: ask}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	t.Cleanup(srv.Close)

	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"asker": {"url": %q}},
  "agentadapter": {"store": "memory:", "servers": {"asker": {"trust": "trusted"}},
    "policy": {"approval": {"default": "never"}}}}`, srv.URL))
	s := startServe(t, dir, nil, "--config", "gateway.json")

	connect := func(version string, mrtr bool) *mcp.ClientSession {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		opts := &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Alice"}}, nil
			},
			MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: !mrtr},
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, opts).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("connecting at %s: %v", version, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	args := map[string]string{"lang": "fr"}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := connect(version, true).GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: args})
			if err != nil || len(res.Messages) != 1 {
				t.Fatalf("prompt: %+v, %v; want one message", res, err)
			}
			if tc, _ := res.Messages[0].Content.(*mcp.TextContent); tc == nil || tc.Text != "Hi Alice in fr" {
				t.Errorf("prompt: %+v, want Hi Alice in fr", res.Messages[0].Content)
			}
		})
	}

	t.Run("refused states", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs := connect("2026-07-28", false)
		first, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: args})
		if err != nil || !first.NeedsInput() || len(first.InputRequests) != 1 || first.RequestState == "" || first.RequestState == "up-p" {
			t.Fatalf("first get: %+v, %v; want the upstream's question under serve's state", first, err)
		}
		tool, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"lang": "fr"}})
		if err != nil || !tool.NeedsInput() || tool.RequestState == "" {
			t.Fatalf("tool: %+v, %v; want its question", tool, err)
		}
		g, c := gets.Load(), calls.Load()
		answers := mcp.InputResponseMap{"name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Mallory"}}}
		for _, bad := range []string{"up-p", first.RequestState + "x", tool.RequestState} {
			var je *jsonrpc.Error
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: args, InputResponses: answers, RequestState: bad})
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("state %.20q…: %+v, %v; want -32602", bad, res, err)
			}
		}
		var je *jsonrpc.Error
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"lang": "fr"}, InputResponses: answers, RequestState: first.RequestState}); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("the prompt's state on the tool: %v, want -32602", err)
		}
		if gets.Load() != g || calls.Load() != c {
			t.Errorf("a refused retry reached the upstream (%d gets, %d calls; want %d, %d)", gets.Load(), calls.Load(), g, c)
		}
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: args, InputResponses: answers, RequestState: first.RequestState})
		if err != nil || len(res.Messages) != 1 {
			t.Fatalf("retry: %+v, %v", res, err)
		}
		if tc, _ := res.Messages[0].Content.(*mcp.TextContent); tc == nil || tc.Text != "Hi Mallory in fr" {
			t.Errorf("retry: %+v, want Hi Mallory in fr", res.Messages[0].Content)
		}
	})
}
