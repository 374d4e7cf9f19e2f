package mcpadapter_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// readUpstream is promptUpstream's go-sdk server (2026-07-28 to the
// import) with resources that ask their reader's name with an
// input-required result, then answer: test://secret and the template
// test://docs/{id}; test://endless asks forever.
type readUpstream struct {
	promptUpstream
	reads   atomic.Int32
	endless atomic.Int32
	mu      sync.Mutex
	states  []string
	caps    []*mcp.ClientCapabilities
}

func (u *readUpstream) serve(t *testing.T) *mcp.Server {
	s := u.promptUpstream.serve(t)
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		u.reads.Add(1)
		p := req.Params
		u.mu.Lock()
		u.states = append(u.states, p.RequestState)
		u.caps = append(u.caps, req.ClientCapabilities())
		u.mu.Unlock()
		if er, ok := p.InputResponses["name"].(*mcp.ElicitResult); ok && p.RequestState == "r1" && er.Action == "accept" {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: p.URI, Text: p.URI + " for " + er.Content["name"].(string)}}}, nil
		}
		return &mcp.ReadResourceResult{RequestState: "r1", InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Reader?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}, nil
	}
	s.AddResource(&mcp.Resource{URI: "test://secret", Name: "secret"}, read)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://docs/{id}", Name: "doc"}, read)
	s.AddResource(&mcp.Resource{URI: "test://endless", Name: "endless"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		u.endless.Add(1)
		return &mcp.ReadResourceResult{RequestState: "again", InputRequests: mcp.InputRequestMap{"q": &mcp.ElicitParams{Message: "?"}}}, nil
	})
	return s
}

func readText(t *testing.T, res *mcp.ReadResourceResult) string {
	t.Helper()
	if res == nil || len(res.Contents) != 1 || res.Contents[0] == nil {
		t.Fatalf("read result %+v: want one content", res)
	}
	return res.Contents[0].Text
}

// TestResourceRelay: an upstream resource's input-required result reaches
// the export's MCP caller, at 2026-07-28 over stateless HTTP (an
// input-required result, retried by go-sdk's client) and at 2025-11-25
// over streamable HTTP (elicitation during the request); the upstream
// sees the caller's capabilities and its own requestState back, never the
// export's, and the import's own ElicitationPort answers nothing.
func TestResourceRelay(t *testing.T) {
	for _, tc := range []struct {
		name    string
		connect func(t *testing.T, ex *mcpadapter.Exporter, copts *mcp.ClientOptions) *mcp.ClientSession
	}{
		{"2026-07-28 stateless HTTP", func(t *testing.T, ex *mcpadapter.Exporter, copts *mcp.ClientOptions) *mcp.ClientSession {
			return connectStateless(t, exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Stateless: true}).URL, copts, nil)
		}},
		{"2025-11-25 streamable HTTP", func(t *testing.T, ex *mcpadapter.Exporter, copts *mcp.ClientOptions) *mcp.ClientSession {
			return exConnectHTTP(t, exServeHTTP(t, ex, nil).URL, copts, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := &readUpstream{}
			ex, _ := promptEnv(t, up.serve(t), noLocalAnswer(t))
			var asked atomic.Int32
			cs := tc.connect(t, ex, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				if req.Params.Message != "Reader?" {
					t.Errorf("asked %q, want the upstream's question", req.Params.Message)
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Alice"}}, nil
			}})
			for i, uri := range []string{"test://secret", "test://docs/7"} {
				res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
				if err != nil {
					t.Fatalf("read %s: %v", uri, err)
				}
				if got := readText(t, res); got != uri+" for Alice" {
					t.Errorf("read %s: %q, want it for Alice", uri, got)
				}
				if asked.Load() != int32(i+1) || up.reads.Load() != int32(2*(i+1)) {
					t.Errorf("after %s the caller was asked %d times and the upstream got %d reads, want %d and %d", uri, asked.Load(), up.reads.Load(), i+1, 2*(i+1))
				}
			}
			up.mu.Lock()
			defer up.mu.Unlock()
			if want := []string{"", "r1", "", "r1"}; strings.Join(up.states, ",") != strings.Join(want, ",") {
				t.Errorf("the upstream saw the states %q, want %q", up.states, want)
			}
			for i, c := range up.caps {
				if c == nil || c.Elicitation == nil {
					t.Errorf("read %d told the upstream the capabilities %+v, want the caller's elicitation", i, c)
				}
			}
		})
	}
}

// TestResourceRelayStateRefused: over stateless HTTP at 2026-07-28, the
// requestState of a relayed read's question is bound to the URI, the
// server and the caller, and signed apart from a prompt's and a tool
// call's: the upstream's own state, a tampered one, one for another URI,
// a prompt's or a tool call's state on the read, the read's on the prompt
// and on the tool, an oversized one, and another caller's replay are
// refused with invalid params and reach no upstream; the genuine retry
// reads.
func TestResourceRelayStateRefused(t *testing.T) {
	up := &readUpstream{}
	ex, _ := promptEnv(t, up.serve(t), noLocalAnswer(t))
	url := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Stateless: true, Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}}).URL
	manual := &mcp.ClientOptions{ElicitationHandler: relayElicit, CreateMessageHandler: relaySample, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
	cs := connectStateless(t, url, manual, bearerClient("alice"))
	ctx := context.Background()
	first, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://docs/1"})
	if err != nil {
		t.Fatal(err)
	}
	if !first.NeedsInput() || len(first.InputRequests) != 1 || first.RequestState == "" || len(first.Contents) != 0 {
		t.Fatalf("first answer %+v: want the upstream's question", first)
	}
	if strings.Contains(first.RequestState, "r1") {
		t.Errorf("the export's state %q shows the upstream's in the clear", first.RequestState)
	}
	prompt, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
	if err != nil || !prompt.NeedsInput() || prompt.RequestState == "" {
		t.Fatalf("prompt: %+v, %v; want its questions", prompt, err)
	}
	tool, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	if err != nil || !tool.NeedsInput() || tool.RequestState == "" {
		t.Fatalf("tool: %+v, %v; want its questions", tool, err)
	}
	answers := mcp.InputResponseMap{"name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Mallory"}}}
	refused := func(what string, err error) {
		t.Helper()
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, "requestState") {
			t.Errorf("%s: error %v, want invalid params refusing the requestState", what, err)
		}
	}
	reads, gets, calls := up.reads.Load(), up.gets.Load(), up.calls.Load()
	for _, bad := range []struct{ name, uri, state string }{
		{"the upstream's own state", "test://docs/1", "r1"},
		{"tampered", "test://docs/1", first.RequestState[:len(first.RequestState)-2] + "AA"},
		{"another URI of the template", "test://docs/2", first.RequestState},
		{"another resource", "test://secret", first.RequestState},
		{"a prompt's state", "test://docs/1", prompt.RequestState},
		{"a tool call's state", "test://docs/1", tool.RequestState},
		{"oversized", "test://docs/1", strings.Repeat("A", 5000) + "." + "AA"},
	} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: bad.uri, InputResponses: answers, RequestState: bad.state})
		refused(bad.name, err)
	}
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", InputResponses: answers, RequestState: first.RequestState})
	refused("the read's state on a prompt", err)
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}, InputResponses: answers, RequestState: first.RequestState})
	if we := (*jsonrpc.Error)(nil); !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("the read's state on a tool: %v, want invalid params", err)
	}
	// Another caller cannot replay it.
	bob := connectStateless(t, url, manual, bearerClient("bob"))
	_, err = bob.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://docs/1", InputResponses: answers, RequestState: first.RequestState})
	refused("another caller's replay", err)
	if r, g, c := up.reads.Load()-reads, up.gets.Load()-gets, up.calls.Load()-calls; r+g+c != 0 {
		t.Errorf("the upstream got %d reads, %d prompts/get and %d calls more, want none (no refused retry reaches it)", r, g, c)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://docs/1", InputResponses: answers, RequestState: first.RequestState})
	if err != nil {
		t.Fatal(err)
	}
	if got := readText(t, res); got != "test://docs/1 for Mallory" {
		t.Errorf("retry: %q", got)
	}
}

// TestResourceRelayHostile: an upstream resource asking forever ends after
// 8 rounds at either era of the caller, with an error and no hang; a
// caller that did not declare elicitation is not asked.
func TestResourceRelayHostile(t *testing.T) {
	yes := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
	}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			up := &readUpstream{}
			ex, _ := promptEnv(t, up.serve(t), noLocalAnswer(t))
			cs := exConnect(t, ex, &mcp.ClientOptions{ElicitationHandler: yes}, version)
			_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://endless"})
			if err == nil || !strings.Contains(err.Error(), "more than 8 times") {
				t.Errorf("endless resource: %v, want the round bound", err)
			}
			if n := up.endless.Load(); n != 9 {
				t.Errorf("the endless resource was read %d times, want 9 (8 rounds answered)", n)
			}
			mute := exConnect(t, ex, nil, version)
			_, err = mute.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://secret"})
			if err == nil || !strings.Contains(err.Error(), "did not declare") {
				t.Errorf("a caller without elicitation: %v, want a refusal", err)
			}
		})
	}
}
