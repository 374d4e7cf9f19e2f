package mcpadapter_test

import (
	"context"
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

// promptUpstream is a go-sdk server (2026-07-28 to the import) whose prompt
// "greet" asks the user's name with an input-required result, then greets,
// and whose prompt "endless" asks forever. Its tool "ask" is relayUpstream's.
type promptUpstream struct {
	relayUpstream
	gets    atomic.Int32
	endless atomic.Int32
	getSeen seenRequests // of greet and greet2
}

// seenRequests records the requestState and the caller's capabilities an
// upstream's requests came with.
type seenRequests struct {
	mu     sync.Mutex
	states []string
	caps   []*mcp.ClientCapabilities
}

func (s *seenRequests) record(state string, caps *mcp.ClientCapabilities) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.states = append(s.states, state)
	s.caps = append(s.caps, caps)
}

// check fails t unless the upstream saw the states want, its own, and each
// of what's requests told it the caller's elicitation capability.
func (s *seenRequests) check(t *testing.T, what string, want ...string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.Join(s.states, ",") != strings.Join(want, ",") {
		t.Errorf("the upstream saw the states %q, want %q", s.states, want)
	}
	for i, c := range s.caps {
		if c == nil || c.Elicitation == nil {
			t.Errorf("%s %d told the upstream the capabilities %+v, want the caller's elicitation", what, i, c)
		}
	}
}

// nameQuestion is the upstreams' question for a name, asked with msg.
func nameQuestion(msg string) mcp.InputRequestMap {
	return mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: msg,
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}
}

// nameAnswered returns the name accepted in answers, if they answer the
// upstream's round of state want (its state is state).
func nameAnswered(answers mcp.InputResponseMap, state, want string) (string, bool) {
	er, ok := answers["name"].(*mcp.ElicitResult)
	if !ok || state != want || er.Action != "accept" {
		return "", false
	}
	return er.Content["name"].(string), true
}

func (u *promptUpstream) serve(t *testing.T) *mcp.Server {
	return u.relayUpstream.server(t, func(s *mcp.Server) {
		greet := func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			u.gets.Add(1)
			p := req.Params
			u.getSeen.record(p.RequestState, req.ClientCapabilities())
			if name, ok := nameAnswered(p.InputResponses, p.RequestState, "up:p1"); ok {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
					Content: &mcp.TextContent{Text: "Hi " + name + " in " + p.Arguments["lang"]}}}}, nil
			}
			return &mcp.GetPromptResult{RequestState: "up:p1", InputRequests: nameQuestion("Name?")}, nil
		}
		s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "lang"}}}, greet)
		// A tool of the same name, asking the same question: only the
		// signing domain tells its requestState from the prompt's.
		s.AddTool(&mcp.Tool{Name: "greet", InputSchema: &jsonschema.Schema{Type: "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			u.calls.Add(1)
			if name, ok := nameAnswered(req.Params.InputResponses, req.Params.RequestState, "up:t1"); ok {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "tool greeted " + name}}}, nil
			}
			return &mcp.CallToolResult{RequestState: "up:t1", InputRequests: nameQuestion("Name?")}, nil
		})
		s.AddPrompt(&mcp.Prompt{Name: "greet2"}, greet)
		s.AddPrompt(&mcp.Prompt{Name: "endless"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			u.endless.Add(1)
			return &mcp.GetPromptResult{RequestState: "again", InputRequests: mcp.InputRequestMap{"q": &mcp.ElicitParams{Message: "?"}}}, nil
		})
	})
}

// promptEnv imports the upstream s and exports its tools and prompts
// (ExportOptions.Upstreams).
func promptEnv(t *testing.T, s *mcp.Server, local mcpadapter.ElicitationPort) (*mcpadapter.Exporter, *mcpadapter.Manager) {
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
	m := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Executor: exec, Elicitation: local})
	t.Cleanup(func() { m.Close() })
	if err := m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Transport: ct, Trust: true}); err != nil {
		t.Fatal(err)
	}
	return newExporter(t, reg, exec, &mcpadapter.ExportOptions{Upstreams: &mcpadapter.Upstreams{Manager: m}}), m
}

func promptText(t *testing.T, res *mcp.GetPromptResult) string {
	t.Helper()
	if res == nil || len(res.Messages) != 1 {
		t.Fatalf("prompt result %+v: want one message", res)
	}
	tc, ok := res.Messages[0].Content.(*mcp.TextContent)
	if !ok {
		t.Fatalf("prompt message %T, want text", res.Messages[0].Content)
	}
	return tc.Text
}

func noLocalAnswer(t *testing.T) mcpadapter.ElicitationPort {
	return func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		t.Error("the import's ElicitationPort answered a prompts/get with an MCP caller")
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
}

// answerName is a caller that answers the upstream's question, which must
// be msg, with name, counting the questions in asked.
func answerName(t *testing.T, msg, name string, asked *atomic.Int32) *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		if req.Params.Message != msg {
			t.Errorf("asked %q, want the upstream's question", req.Params.Message)
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": name}}, nil
	}}
}

// manualCaller is a caller of 2026-07-28 that answers input-required
// results itself (go-sdk's retry disabled).
func manualCaller() *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: relayElicit, CreateMessageHandler: relaySample, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
}

// wantQuestion fails t unless the first answer to a relayed primitive
// request (needs, its questions, its state, its content count) is the
// upstream's one question, under a state of the export's that does not
// show the upstream's (up) in the clear. The upstream states hold a ':',
// which base64url text cannot, so no encoded state shows one by chance.
func wantQuestion(t *testing.T, first any, needs bool, questions int, state string, content int, up string) {
	t.Helper()
	if !needs || questions != 1 || state == "" || content != 0 {
		t.Fatalf("first answer %+v: want the upstream's question", first)
	}
	if strings.Contains(state, up) {
		t.Errorf("the export's state %q shows the upstream's in the clear", state)
	}
}

// wantStateRefused fails t unless err refuses the requestState with
// invalid params.
func wantStateRefused(t *testing.T, what string, err error) {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, "requestState") {
		t.Errorf("%s: error %v, want invalid params refusing the requestState", what, err)
	}
}

// testPrimHostile: at either era of the caller, get of an upstream's
// primitive asking forever (endless, which asked counts) ends after 8
// rounds with an error and no hang (at 2026-07-28 a JSON-RPC error, if
// rpc), and a caller that did not declare elicitation is not asked for
// the primitive asking once (mute).
func testPrimHostile(t *testing.T, what string, env func(t *testing.T) (*mcpadapter.Exporter, *atomic.Int32), rpc bool,
	get func(cs *mcp.ClientSession, name string) error, endless, mute string) {
	yes := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
	}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			ex, asked := env(t)
			err := get(exConnect(t, ex, &mcp.ClientOptions{ElicitationHandler: yes}, version), endless)
			if rpc && version == "2026-07-28" {
				// go-sdk's client stops at its own cap of 10 retries unless
				// ours ends it first, at 8 rounds.
				var we *jsonrpc.Error
				if !errors.As(err, &we) || !strings.Contains(we.Message, "more than 8 times") {
					t.Errorf("endless %s: %v, want the round bound", what, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), "more than 8 times") {
				t.Errorf("endless %s: %v, want the round bound", what, err)
			}
			if n := asked.Load(); n != 9 {
				t.Errorf("the endless %s was asked %d times, want 9 (8 rounds answered)", what, n)
			}
			err = get(exConnect(t, ex, nil, version), mute)
			if err == nil || !strings.Contains(err.Error(), "did not declare") {
				t.Errorf("a caller without elicitation: %v, want a refusal", err)
			}
		})
	}
}

// TestPromptRelay: an upstream prompt's input-required result reaches the
// export's MCP caller, at 2026-07-28 (an input-required result, retried by
// go-sdk's client) and at 2025-11-25 (elicitation during the request), in
// memory and over HTTP; the upstream sees the caller's capabilities and
// its own requestState back, never the export's.
func TestPromptRelay(t *testing.T) {
	eras := append([]struct {
		name    string
		connect func(t *testing.T, ex *mcpadapter.Exporter, copts *mcp.ClientOptions) *mcp.ClientSession
	}{
		{"2026-07-28 in memory", func(t *testing.T, ex *mcpadapter.Exporter, copts *mcp.ClientOptions) *mcp.ClientSession {
			return exConnect(t, ex, copts, "2026-07-28")
		}},
		{"2025-11-25 in memory", func(t *testing.T, ex *mcpadapter.Exporter, copts *mcp.ClientOptions) *mcp.ClientSession {
			return exConnect(t, ex, copts, "2025-11-25")
		}},
	}, callerEras...) // and over HTTP: stateless at 2026-07-28, streamable at 2025-11-25
	for _, tc := range eras {
		t.Run(tc.name, func(t *testing.T) {
			up := &promptUpstream{}
			ex, _ := promptEnv(t, up.serve(t), noLocalAnswer(t))
			var asked atomic.Int32
			cs := tc.connect(t, ex, answerName(t, "Name?", "Alice", &asked))
			res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"lang": "fr"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := promptText(t, res); got != "Hi Alice in fr" {
				t.Errorf("prompt: %q, want Hi Alice in fr", got)
			}
			if asked.Load() != 1 || up.gets.Load() != 2 {
				t.Errorf("the caller was asked %d times and the upstream got %d prompts/get, want 1 and 2", asked.Load(), up.gets.Load())
			}
			up.getSeen.check(t, "prompts/get", "", "up:p1")
		})
	}
}

// TestPromptRelayWithoutCaller: a prompts/get without an MCP caller
// (Manager.GetPrompt) keeps the import's own ElicitationPort.
func TestPromptRelayWithoutCaller(t *testing.T) {
	up := &promptUpstream{}
	_, m := promptEnv(t, up.serve(t), func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Carol"}}, nil
	})
	res, err := m.GetPrompt(context.Background(), "up", "greet", map[string]string{"lang": "de"})
	if err != nil {
		t.Fatal(err)
	}
	if got := promptText(t, res); got != "Hi Carol in de" {
		t.Errorf("prompt: %q", got)
	}
}

// TestPromptRelayStateRefused: the requestState of a relayed prompt
// question is bound to the prompt, its arguments, the server and the
// caller, and signed apart from a tool call's: the upstream's own state,
// a tampered one, one for other arguments or another prompt, a tool call's
// state on the prompt, the prompt's on the tool, and another session's
// replay are refused with invalid params and reach no upstream.
func TestPromptRelayStateRefused(t *testing.T) {
	up := &promptUpstream{}
	ex, _ := promptEnv(t, up.serve(t), noLocalAnswer(t))
	manual := manualCaller()
	cs := exConnect(t, ex, manual, "2026-07-28")
	ctx := context.Background()
	args := map[string]string{"lang": "fr"}
	first, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	wantQuestion(t, first, first.NeedsInput(), len(first.InputRequests), first.RequestState, len(first.Messages), "up:p1")
	tool, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"lang": "fr"}})
	if err != nil || !tool.NeedsInput() || tool.RequestState == "" {
		t.Fatalf("tool: %+v, %v; want its questions", tool, err)
	}
	answers := mcp.InputResponseMap{"name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Mallory"}}}
	gets := up.gets.Load()
	for _, bad := range []struct {
		name, prompt, state string
		args                map[string]string
	}{
		{"the upstream's own state", "greet", "up:p1", args},
		{"tampered", "greet", first.RequestState[:len(first.RequestState)-2] + "AA", args},
		{"other arguments", "greet", first.RequestState, map[string]string{"lang": "en"}},
		{"no arguments", "greet", first.RequestState, nil},
		{"another prompt", "greet2", first.RequestState, args},
		{"a tool call's state", "greet", tool.RequestState, args},
		{"oversized", "greet", strings.Repeat("A", 5000) + "." + "AA", args},
	} {
		_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: bad.prompt, Arguments: bad.args, InputResponses: answers, RequestState: bad.state})
		wantStateRefused(t, bad.name, err)
	}
	// The prompt's state on the tool.
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"lang": "fr"}, InputResponses: answers, RequestState: first.RequestState})
	wantStateRefused(t, "the prompt's state on a tool", err)
	// Another caller (a session of its own) cannot replay it.
	other := exConnect(t, ex, manual, "2026-07-28")
	_, err = other.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: args, InputResponses: answers, RequestState: first.RequestState})
	wantStateRefused(t, "another session's replay", err)
	if n := up.gets.Load(); n != gets {
		t.Errorf("the upstream got %d more prompts/get, want none (no refused retry reaches it)", n-gets)
	}
	if n := up.calls.Load(); n != 1 {
		t.Errorf("the upstream's tool was called %d times, want once", n)
	}
	// The genuine retry completes.
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: args, InputResponses: answers, RequestState: first.RequestState})
	if err != nil {
		t.Fatal(err)
	}
	if got := promptText(t, res); got != "Hi Mallory in fr" {
		t.Errorf("retry: %q", got)
	}
	// And the tool's, on the tool.
	tres, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"lang": "fr"}, InputResponses: answers, RequestState: tool.RequestState})
	if err != nil {
		t.Fatal(err)
	}
	if got := relayText(t, tres); got != "tool greeted Mallory" {
		t.Errorf("tool retry: %q", got)
	}
}

// TestPromptRelayHostile: an upstream prompt asking forever ends after 8
// rounds at either era of the caller, with an error and no hang; a caller
// that did not declare elicitation is not asked.
func TestPromptRelayHostile(t *testing.T) {
	testPrimHostile(t, "prompt", func(t *testing.T) (*mcpadapter.Exporter, *atomic.Int32) {
		up := &promptUpstream{}
		ex, _ := promptEnv(t, up.serve(t), noLocalAnswer(t))
		return ex, &up.endless
	}, true, func(cs *mcp.ClientSession, name string) error {
		_, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name})
		return err
	}, "endless", "greet")
}
