package mcpadapter_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// readUpstream is promptUpstream's go-sdk server (2026-07-28 to the
// import) with resources that ask their reader's name with an
// input-required result, then answer: test://secret and the template
// test://docs/{id}; test://endless asks forever.
type readUpstream struct {
	promptUpstream
	reads    atomic.Int32
	endless  atomic.Int32
	readSeen seenRequests // of test://secret and test://docs/{id}
}

func (u *readUpstream) serve(t *testing.T) *mcp.Server {
	s := u.promptUpstream.serve(t)
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		u.reads.Add(1)
		p := req.Params
		u.readSeen.record(p.RequestState, req.ClientCapabilities())
		if name, ok := nameAnswered(p.InputResponses, p.RequestState, "up:r1"); ok {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: p.URI, Text: p.URI + " for " + name}}}, nil
		}
		return &mcp.ReadResourceResult{RequestState: "up:r1", InputRequests: nameQuestion("Reader?")}, nil
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
	for _, tc := range callerEras {
		t.Run(tc.name, func(t *testing.T) {
			up := &readUpstream{}
			ex, _ := promptEnv(t, up.serve(t), noLocalAnswer(t))
			var asked atomic.Int32
			cs := tc.connect(t, ex, answerName(t, "Reader?", "Alice", &asked))
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
			up.readSeen.check(t, "read", "", "up:r1", "", "up:r1")
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
	manual := manualCaller()
	cs := connectStateless(t, url, manual, bearerClient("alice"))
	ctx := context.Background()
	first, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://docs/1"})
	if err != nil {
		t.Fatal(err)
	}
	wantQuestion(t, first, first.NeedsInput(), len(first.InputRequests), first.RequestState, len(first.Contents), "up:r1")
	prompt, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
	if err != nil || !prompt.NeedsInput() || prompt.RequestState == "" {
		t.Fatalf("prompt: %+v, %v; want its questions", prompt, err)
	}
	tool, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	if err != nil || !tool.NeedsInput() || tool.RequestState == "" {
		t.Fatalf("tool: %+v, %v; want its questions", tool, err)
	}
	answers := mcp.InputResponseMap{"name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Mallory"}}}
	reads, gets, calls := up.reads.Load(), up.gets.Load(), up.calls.Load()
	for _, bad := range []struct{ name, uri, state string }{
		{"the upstream's own state", "test://docs/1", "up:r1"},
		{"tampered", "test://docs/1", first.RequestState[:len(first.RequestState)-2] + "AA"},
		{"another URI of the template", "test://docs/2", first.RequestState},
		{"another resource", "test://secret", first.RequestState},
		{"a prompt's state", "test://docs/1", prompt.RequestState},
		{"a tool call's state", "test://docs/1", tool.RequestState},
		{"oversized", "test://docs/1", strings.Repeat("A", 5000) + "." + "AA"},
	} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: bad.uri, InputResponses: answers, RequestState: bad.state})
		wantStateRefused(t, bad.name, err)
	}
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", InputResponses: answers, RequestState: first.RequestState})
	wantStateRefused(t, "the read's state on a prompt", err)
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}, InputResponses: answers, RequestState: first.RequestState})
	wantStateRefused(t, "the read's state on a tool", err)
	// Another caller cannot replay it.
	bob := connectStateless(t, url, manual, bearerClient("bob"))
	_, err = bob.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://docs/1", InputResponses: answers, RequestState: first.RequestState})
	wantStateRefused(t, "another caller's replay", err)
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
	testPrimHostile(t, "resource", func(t *testing.T) (*mcpadapter.Exporter, *atomic.Int32) {
		up := &readUpstream{}
		ex, _ := promptEnv(t, up.serve(t), noLocalAnswer(t))
		return ex, &up.endless
	}, false, func(cs *mcp.ClientSession, uri string) error {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		return err
	}, "test://endless", "test://secret")
}
