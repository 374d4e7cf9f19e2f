package mcpadapter_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// greetSetup serves a tool that asks the user's name with an
// InputRequired carrying a state, and counts the states it was handed.
func greetSetup(t *testing.T) (*mcpadapter.Exporter, *atomic.Int32, *atomic.Value) {
	t.Helper()
	var calls atomic.Int32
	var seen atomic.Value // the last RequestState the handler read
	greet := func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		calls.Add(1)
		p := mcpadapter.RequestFromContext(ctx).Params
		seen.Store(p.RequestState)
		if er, ok := p.InputResponses["name"].(*mcp.ElicitResult); ok && er.Action == "accept" && p.RequestState == "asked-name" {
			return adapter.TextResult("Hello, " + er.Content["name"].(string) + "!"), nil
		}
		return nil, &mcpadapter.InputRequired{State: "asked-name", Requests: mcp.InputRequestMap{
			"name": &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}},
		}}
	}
	reg := registry.New()
	reg.MustRegister(adapter.MustRawTool("greet", "Greets the user by name.", exObject(nil), greet,
		&adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}))
	return newExporter(t, reg, nil, nil), &calls, &seen
}

func alice(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Alice"}}, nil
}

// TestInputRequired: a tool's InputRequired reaches the client as
// questions in both eras (an input-required result from 2026-07-28 on,
// elicitation/create during the call before it), and the handler reads
// the answers with the state it set.
func TestInputRequired(t *testing.T) {
	for _, tc := range []struct {
		name    string
		connect func(t *testing.T, ex *mcpadapter.Exporter, copts *mcp.ClientOptions) *mcp.ClientSession
	}{
		{"2026-07-28 in memory", func(t *testing.T, ex *mcpadapter.Exporter, copts *mcp.ClientOptions) *mcp.ClientSession {
			return exConnect(t, ex, copts, "2026-07-28")
		}},
		{"2026-07-28 stateless HTTP", func(t *testing.T, ex *mcpadapter.Exporter, copts *mcp.ClientOptions) *mcp.ClientSession {
			return connectStateless(t, exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Stateless: true}).URL, copts, nil)
		}},
		{"2025-11-25 in memory", func(t *testing.T, ex *mcpadapter.Exporter, copts *mcp.ClientOptions) *mcp.ClientSession {
			return exConnect(t, ex, copts, "2025-11-25")
		}},
		{"2025-11-25 streamable HTTP", func(t *testing.T, ex *mcpadapter.Exporter, copts *mcp.ClientOptions) *mcp.ClientSession {
			return exConnectHTTP(t, exServeHTTP(t, ex, nil).URL, copts, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, calls, seen := greetSetup(t)
			cs := tc.connect(t, ex, &mcp.ClientOptions{ElicitationHandler: alice})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "Hello, Alice!" {
				t.Fatalf("result %+v, want Hello, Alice!", res)
			}
			if calls.Load() != 2 || seen.Load() != "asked-name" {
				t.Errorf("handler ran %d times and last read state %q; want twice, its own state", calls.Load(), seen.Load())
			}
		})
	}
}

// TestInputRequiredHostileState: the handler never reads a state it did
// not return for this call: a tampered one, one for other arguments or a
// raw one of its own spelling is refused before it runs.
func TestInputRequiredHostileState(t *testing.T) {
	ex, calls, _ := greetSetup(t)
	cs := exConnect(t, ex, &mcp.ClientOptions{ElicitationHandler: alice, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, "2026-07-28")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	if err != nil || !res.NeedsInput() || res.RequestState == "" || res.RequestState == "asked-name" {
		t.Fatalf("first call: %+v, %v; want an input-required result with a signed state", res, err)
	}
	answers := mcp.InputResponseMap{"name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Mallory"}}}
	for _, c := range []struct {
		name, state string
		args        map[string]any
		why         string
	}{
		{"tampered", res.RequestState + "x", map[string]any{}, "integrity"},
		{"the tool's own spelling", "asked-name", map[string]any{}, "malformed"},
		{"other arguments", res.RequestState, map[string]any{"admin": true}, "other arguments"},
	} {
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: c.args, InputResponses: answers, RequestState: c.state})
		wantRefused(t, r, err, c.why)
	}
	if calls.Load() != 1 {
		t.Errorf("the handler ran %d times; want once (hostile retries refused before it)", calls.Load())
	}
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}, InputResponses: answers, RequestState: res.RequestState})
	if err != nil || r.IsError || r.Content[0].(*mcp.TextContent).Text != "Hello, Mallory!" {
		t.Fatalf("genuine retry: %+v, %v", r, err)
	}
}
