package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// erasConfig writes a gateway fronting server-everything (tools, resources,
// templates, prompts, completions, the task-only simulate-research-query)
// and the notes test server (add_note, grow), with a virtual server "both"
// whose add_note calls the client's user approves (approver: client).
func erasConfig(t *testing.T, dir string) {
	t.Helper()
	ev, path := everything(t)
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{
  "mcpServers": {
    "everything": {"command": %q, "args": ["stdio"], "env": {"PATH": %q}},
    "notes": {"command": %q}
  },
  "agentadapter": {
    "store": "memory:",
    "servers": {"everything": {"trust": "trusted"}, "notes": {"trust": "trusted"}},
    "policy": {"approval": {"default": "never"}},
    "virtualServers": {"both": {"approver": "client",
      "policy": {"approval": {"default": "never", "rules": [{"tool": "add_note", "approve": "required"}]}}}}
  }
}`, ev, path, testServer))
}

// Issue #25's acceptance: the official TypeScript clients
// (@modelcontextprotocol/sdk 1.x at 2025-11-25, @modelcontextprotocol/client
// 2.x at 2026-07-28) and the go-sdk client at both eras, against one serve
// endpoint: tools (and a made-up name's not_found), resources and a
// templated read, prompts, completions, an approval the client's user
// answers (elicitation before 2026-07-28, input-required results from it
// on), a task-only upstream tool, and tools/list_changed.
func TestServeAcceptanceEras(t *testing.T) {
	dir := t.TempDir()
	erasConfig(t, dir)
	s := startServe(t, dir, nil, "--config", "gateway.json")
	url := s.base + "/mcp/both"
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run("go-sdk/"+v, func(t *testing.T) { goClientEra(t, url, v) })
	}
	for _, c := range []struct{ name, kind string }{
		{"ts-sdk/2025-11-25", "sdk"},
		{"ts-client/2026-07-28", "client"},
	} {
		t.Run(c.name, func(t *testing.T) {
			errs, figures := nodeScript(t, "eras.mjs", c.kind, url)
			for _, e := range errs {
				t.Error(e)
			}
			want := strings.TrimPrefix(c.name[strings.Index(c.name, "/"):], "/")
			if got := fmt.Sprint(figures["protocolVersion"]); got != want {
				t.Errorf("negotiated %s, want %s", got, want)
			}
			t.Logf("figures: %v", figures)
		})
	}
	s.stop(t)
}

// goClientEra runs the acceptance steps with the go-sdk client at version.
func goClientEra(t *testing.T, url, version string) {
	ctx := context.Background()
	changed := make(chan struct{}, 16)
	var mu sync.Mutex
	var asked []string
	c := mcp.NewClient(&mcp.Implementation{Name: "go-client", Version: "v1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
		// The user approves the call whose arguments say so.
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, req.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": strings.Contains(req.Params.Message, "approve me")}}, nil
		},
	})
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cs, err := c.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting at %s: %v", version, err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s, want %s", got, version)
	}

	t.Run("tools", func(t *testing.T) {
		names := toolNames(t, cs)
		for _, want := range []string{"echo", "add_note", "simulate-research-query", "grow"} {
			if !slices.Contains(names, want) {
				t.Errorf("tools/list lacks %s: %v", want, names)
			}
		}
		if res := callTool(t, cs, "echo", map[string]any{"message": "hi"}); res.IsError || text(res) != "Echo: hi" {
			t.Errorf("echo: %v %q", res.IsError, text(res))
		}
		if res := callTool(t, cs, "no-such-tool", map[string]any{}); !res.IsError || !strings.Contains(text(res), `"kind":"not_found"`) {
			t.Errorf("a made-up tool: %v %q, want the not_found payload", res.IsError, text(res))
		}
	})
	t.Run("resources", func(t *testing.T) {
		const doc = "demo://resource/static/document/architecture.md"
		var uris []string
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			uris = append(uris, r.URI)
		}
		if !slices.Contains(uris, doc) {
			t.Errorf("resources/list lacks %s: %v", doc, uris)
		}
		for _, uri := range []string{doc, "demo://resource/dynamic/text/7"} {
			r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil || len(r.Contents) == 0 || r.Contents[0].Text == "" {
				t.Errorf("read %s: %v %+v", uri, err, r)
			}
		}
		var tmpl []string
		for rt, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			tmpl = append(tmpl, rt.URITemplate)
		}
		if !slices.Contains(tmpl, "demo://resource/dynamic/text/{resourceId}") {
			t.Errorf("templates: %v", tmpl)
		}
	})
	t.Run("prompts", func(t *testing.T) {
		var names []string
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, p.Name)
		}
		if !slices.Contains(names, "args-prompt") {
			t.Errorf("prompts/list lacks args-prompt: %v", names)
		}
		p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "args-prompt", Arguments: map[string]string{"city": "Oslo"}})
		if err != nil || len(p.Messages) == 0 {
			t.Fatalf("args-prompt: %v %+v", err, p)
		}
		if tc, ok := p.Messages[0].Content.(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "Oslo") {
			t.Errorf("args-prompt message = %+v", p.Messages[0].Content)
		}
	})
	t.Run("completions", func(t *testing.T) {
		r, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "completable-prompt"},
			Argument: mcp.CompleteParamsArgument{Name: "department", Value: "E"}})
		if err != nil || !slices.Contains(r.Completion.Values, "Engineering") {
			t.Errorf("complete: %v %+v", err, r)
		}
	})
	t.Run("approval", func(t *testing.T) {
		if res := callTool(t, cs, "add_note", map[string]any{"text": "approve me"}); res.IsError {
			t.Errorf("approved add_note: %q", text(res))
		}
		if res := callTool(t, cs, "add_note", map[string]any{"text": "refuse"}); !res.IsError || !strings.Contains(text(res), `"kind":"approval_denied"`) {
			t.Errorf("declined add_note: %v %q, want approval_denied", res.IsError, text(res))
		}
		mu.Lock()
		defer mu.Unlock()
		if len(asked) != 2 {
			t.Errorf("the user was asked %d times, want 2: %q", len(asked), asked)
		}
	})
	t.Run("task", func(t *testing.T) {
		tctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		res, err := cs.CallTool(tctx, &mcp.CallToolParams{Name: "simulate-research-query", Arguments: map[string]any{"topic": "gateways", "ambiguous": false}})
		if version >= "2026-07-28" {
			// Task-only, as the upstream says: a 2026-07-28 client without
			// the tasks extension gets -32021 (endpoint.go).
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != mcp.CodeMissingRequiredClientCapabilities || !strings.Contains(string(je.Data), "io.modelcontextprotocol/tasks") {
				t.Errorf("simulate-research-query without the tasks extension: %v %+v, want -32021 naming it", err, res)
			}
		} else if err != nil || res.IsError || !strings.Contains(strings.ToLower(text(res)), "gateways") {
			t.Errorf("simulate-research-query: %v %+v", err, res)
		}
	})
	t.Run("list_changed", func(t *testing.T) {
		for len(changed) > 0 {
			<-changed
		}
		if res := callTool(t, cs, "grow", map[string]any{}); res.IsError {
			t.Fatalf("grow: %q", text(res))
		}
		select {
		case <-changed:
		case <-time.After(20 * time.Second):
			t.Error("no notifications/tools/list_changed within 20s of the upstream adding a tool")
		}
	})
}
