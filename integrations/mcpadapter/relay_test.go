package mcpadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// relayUpstream is a go-sdk server (2026-07-28 to the import) whose tool
// "ask" asks the user's name (elicitation) and the model's answer
// (sampling) with an input-required result, then greets with both.
type relayUpstream struct {
	calls  atomic.Int32
	mu     sync.Mutex
	states []string                  // the requestState of every call
	caps   []*mcp.ClientCapabilities // what each call declared
}

func (u *relayUpstream) server(t *testing.T, extra func(*mcp.Server)) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "ask", Description: "asks a name and a model", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			u.calls.Add(1)
			p := req.Params
			u.mu.Lock()
			u.states = append(u.states, p.RequestState)
			u.caps = append(u.caps, req.ClientCapabilities())
			u.mu.Unlock()
			er, _ := p.InputResponses["name"].(*mcp.ElicitResult)
			sr, _ := p.InputResponses["capital"].(*mcp.CreateMessageWithToolsResult)
			if p.RequestState == "up-state-1" && er != nil && er.Action == "accept" && sr != nil && len(sr.Content) == 1 {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
					Text: "Hello " + er.Content["name"].(string) + ", " + sr.Content[0].(*mcp.TextContent).Text}}}, nil
			}
			return &mcp.CallToolResult{RequestState: "up-state-1", InputRequests: mcp.InputRequestMap{
				"name": &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
					"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}},
				"capital": &mcp.CreateMessageParams{MaxTokens: 10,
					Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Capital of France?"}}}},
			}}, nil
		})
	if extra != nil {
		extra(s)
	}
	return s
}

// relayEnv imports the upstream s into a registry and exports that registry.
func relayEnv(t testing.TB, s *mcp.Server, mopts *mcpadapter.ManagerOptions) (*mcpadapter.Exporter, *adapter.Executor) {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	reg := registry.New()
	exec := adapter.NewExecutor(reg, nil)
	t.Cleanup(func() { exec.Close() })
	if mopts == nil {
		mopts = &mcpadapter.ManagerOptions{}
	}
	mopts.Executor = exec // governs the import's own answers
	m := mcpadapter.NewManager(reg, mopts)
	t.Cleanup(func() { m.Close() })
	if err := m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Transport: ct, Trust: true}); err != nil {
		t.Fatal(err)
	}
	return newExporter(t, reg, exec, nil), exec
}

func relayElicit(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Alice"}}, nil
}

func relaySample(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "Paris"}}, nil
}

func relayText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result %+v: want one block", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("result block %T, want text", res.Content[0])
	}
	return tc.Text
}

// TestRelayInputRequired: an imported tool's upstream asks for input with
// an input-required result; the export's MCP caller answers it, at
// 2026-07-28 (an input-required result of the export, retried) and at
// 2025-11-25 (requests during the call), in memory and over HTTP. The
// upstream sees the caller's capabilities and its own requestState back,
// never the export's wrapper.
func TestRelayInputRequired(t *testing.T) {
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
			up := &relayUpstream{}
			// The import's own ports must not answer a call with a caller.
			local := func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				t.Error("the import's ElicitationPort answered a call with an MCP caller")
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			ex, _ := relayEnv(t, up.server(t, nil), &mcpadapter.ManagerOptions{Elicitation: local})
			cs := tc.connect(t, ex, &mcp.ClientOptions{ElicitationHandler: relayElicit, CreateMessageHandler: relaySample})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if got := relayText(t, res); res.IsError || got != "Hello Alice, Paris" {
				t.Fatalf("result %q (isError %v), want Hello Alice, Paris", got, res.IsError)
			}
			up.mu.Lock()
			defer up.mu.Unlock()
			if len(up.states) != 2 || up.states[0] != "" || up.states[1] != "up-state-1" {
				t.Errorf("upstream saw requestStates %q, want \"\" then its own up-state-1", up.states)
			}
			if c := up.caps[0]; c == nil || c.Sampling == nil || c.Elicitation == nil {
				t.Errorf("upstream saw capabilities %+v, want the caller's elicitation and sampling", c)
			}
		})
	}
}

// TestRelayCallerCapabilities: the upstream is told what the caller can
// answer, not what the import can: a caller without elicitation is not
// announced as one though the import has an ElicitationPort.
func TestRelayCallerCapabilities(t *testing.T) {
	up := &relayUpstream{}
	local := func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return nil, errors.New("unused")
	}
	ex, _ := relayEnv(t, up.server(t, nil), &mcpadapter.ManagerOptions{Elicitation: local})
	cs := exConnect(t, ex, &mcp.ClientOptions{CreateMessageHandler: relaySample}, "2026-07-28")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	// This upstream asks regardless: the question the caller cannot
	// answer is a tool error, not a question to it.
	if !res.IsError || !strings.Contains(relayText(t, res), "did not declare") {
		t.Errorf("result %+v, want a tool error naming the undeclared capability", res)
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	if c := up.caps[0]; c == nil || c.Elicitation != nil || c.Sampling == nil {
		t.Errorf("upstream saw capabilities %+v, want sampling only", c)
	}
}

// TestRelayStateRefused: the caller's retry must bring the export's state:
// the upstream's own state, a tampered one, or one replayed on other
// arguments are refused before the upstream is called again.
func TestRelayStateRefused(t *testing.T) {
	up := &relayUpstream{}
	ex, _ := relayEnv(t, up.server(t, nil), nil)
	cs := exConnect(t, ex, &mcp.ClientOptions{ElicitationHandler: relayElicit, CreateMessageHandler: relaySample,
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, "2026-07-28")
	ctx := context.Background()
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if !first.NeedsInput() || len(first.InputRequests) != 2 || first.RequestState == "" {
		t.Fatalf("first answer %+v: want the upstream's two questions", first)
	}
	if strings.Contains(first.RequestState, "up-state-1") {
		t.Errorf("the export's state %q shows the upstream's in the clear", first.RequestState)
	}
	answers := mcp.InputResponseMap{
		"name":    &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Mallory"}},
		"capital": &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "Paris"}},
	}
	for _, bad := range []struct {
		name  string
		state string
		args  any
	}{
		{"the upstream's own state", "up-state-1", map[string]any{}},
		{"tampered", first.RequestState[:len(first.RequestState)-2] + "AA", map[string]any{}},
		{"other arguments", first.RequestState, map[string]any{"x": 1}},
	} {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: bad.args, InputResponses: answers, RequestState: bad.state})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: error %v, want invalid params", bad.name, err)
		}
	}
	// Another caller (a session of its own) cannot replay it.
	other := exConnect(t, ex, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, "2026-07-28")
	_, err = other.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}, InputResponses: answers, RequestState: first.RequestState})
	if we := (*jsonrpc.Error)(nil); !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("another session's replay: %v, want invalid params", err)
	}
	if n := up.calls.Load(); n != 1 {
		t.Errorf("upstream called %d times, want once (no refused retry reaches it)", n)
	}
	// The genuine retry completes.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}, InputResponses: answers, RequestState: first.RequestState})
	if err != nil {
		t.Fatal(err)
	}
	if got := relayText(t, res); got != "Hello Mallory, Paris" {
		t.Errorf("retry: %q", got)
	}
}

// TestRelayWithoutCaller: a call with no MCP caller (a framework, the
// executor directly) is answered by the import's own ports, and without
// them is a tool error.
func TestRelayWithoutCaller(t *testing.T) {
	var asked atomic.Int32
	opts := &mcpadapter.ManagerOptions{
		Elicitation: func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Bob"}}, nil
		},
		Sampler: func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			asked.Add(1)
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "Lyon?"}}, nil
		},
	}
	_, exec := relayEnv(t, (&relayUpstream{}).server(t, nil), opts)
	res, err := exec.Call(context.Background(), "ask", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text() != "Hello Bob, Lyon?" || asked.Load() != 2 {
		t.Errorf("result %q after %d local answers, want Hello Bob, Lyon? after 2", res.Text(), asked.Load())
	}

	_, exec = relayEnv(t, (&relayUpstream{}).server(t, nil), nil)
	_, err = exec.Call(context.Background(), "ask", json.RawMessage(`{}`))
	if kindOfErr(err) != adapter.KindToolError {
		t.Errorf("without ports: %v, want a tool error", err)
	}
}

func kindOfErr(err error) adapter.Kind {
	var ae *adapter.Error
	if errors.As(err, &ae) {
		return ae.Kind
	}
	return ""
}

// TestRelayHostileUpstream: an upstream that asks forever, asks too much
// at once or sends an oversized state ends the call with a tool error, in
// both eras of the caller, without a hang.
func TestRelayHostileUpstream(t *testing.T) {
	var endless atomic.Int32
	extra := func(s *mcp.Server) {
		ask := func(name string, fn func(*mcp.CallToolRequest) *mcp.CallToolResult) {
			s.AddTool(&mcp.Tool{Name: name, InputSchema: &jsonschema.Schema{Type: "object"}},
				func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return fn(req), nil })
		}
		confirm := &mcp.ElicitParams{Message: "again?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}}
		ask("endless", func(*mcp.CallToolRequest) *mcp.CallToolResult {
			endless.Add(1)
			return &mcp.CallToolResult{RequestState: "more", InputRequests: mcp.InputRequestMap{"q": confirm}}
		})
		ask("huge", func(*mcp.CallToolRequest) *mcp.CallToolResult {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": &mcp.ElicitParams{Message: strings.Repeat("x", 300<<10)}}}
		})
		ask("many", func(*mcp.CallToolRequest) *mcp.CallToolResult {
			m := mcp.InputRequestMap{}
			for i := range 40 {
				m[string(rune('a'+i%26))+strings.Repeat("z", i)] = confirm
			}
			return &mcp.CallToolResult{InputRequests: m}
		})
		ask("bigstate", func(*mcp.CallToolRequest) *mcp.CallToolResult {
			return &mcp.CallToolResult{RequestState: strings.Repeat("s", 5000), InputRequests: mcp.InputRequestMap{"q": confirm}}
		})
	}
	yes := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
	}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			endless.Store(0)
			ex, _ := relayEnv(t, (&relayUpstream{}).server(t, extra), nil)
			cs := exConnect(t, ex, &mcp.ClientOptions{ElicitationHandler: yes}, version)
			for _, tc := range []struct{ tool, want string }{
				{"endless", "more than 8 times"},
				{"huge", "more than 262144 bytes"},
				{"many", "40 questions at once"},
				{"bigstate", "requestState of 5000 bytes"},
			} {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: map[string]any{}})
				if err != nil {
					t.Errorf("%s: %v, want a tool error result", tc.tool, err)
					continue
				}
				if !res.IsError || !strings.Contains(relayText(t, res), tc.want) {
					t.Errorf("%s: %+v, want a tool error saying %q", tc.tool, res.Content, tc.want)
				}
			}
			if n := endless.Load(); n != 9 {
				t.Errorf("the endless upstream was called %d times, want 9 (8 rounds answered)", n)
			}
		})
	}
}

// TestRelayPromptAnsweredLocally: an upstream's input-required result to
// prompts/get is answered with the import's ElicitationPort (go-sdk's own
// answering is off in the import), and an upstream asking forever ends.
func TestRelayPromptAnsweredLocally(t *testing.T) {
	var gets atomic.Int32
	extra := func(s *mcp.Server) {
		s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if er, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult); ok && req.Params.RequestState == "p1" && er.Action == "accept" {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hi " + er.Content["name"].(string)}}}}, nil
			}
			return &mcp.GetPromptResult{RequestState: "p1", InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}, nil
		})
		s.AddPrompt(&mcp.Prompt{Name: "endless"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			gets.Add(1)
			return &mcp.GetPromptResult{RequestState: "again", InputRequests: mcp.InputRequestMap{"q": &mcp.ElicitParams{Message: "?"}}}, nil
		})
	}
	reg := registry.New()
	exec := adapter.NewExecutor(reg, nil)
	t.Cleanup(func() { exec.Close() })
	m := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Executor: exec,
		Elicitation: func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Carol"}}, nil
		}})
	t.Cleanup(func() { m.Close() })
	ct, st := mcp.NewInMemoryTransports()
	ss, err := (&relayUpstream{}).server(t, extra).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	if err := m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Transport: ct, Trust: true}); err != nil {
		t.Fatal(err)
	}
	res, err := m.GetPrompt(context.Background(), "up", "greet", nil)
	if err != nil || len(res.Messages) != 1 || res.Messages[0].Content.(*mcp.TextContent).Text != "Hi Carol" {
		t.Fatalf("prompt: %+v, %v; want Hi Carol", res, err)
	}
	if _, err := m.GetPrompt(context.Background(), "up", "endless", nil); err == nil || !strings.Contains(err.Error(), "more than 8 times") {
		t.Errorf("endless prompt: %v, want the round bound", err)
	}
	if n := gets.Load(); n != 9 {
		t.Errorf("endless prompt asked %d times, want 9", n)
	}
}
