package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
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
// on), a task-only upstream tool, tools/list_changed, and a task the
// client creates (the tasks extension: go-sdk by raw requests, having no
// task API, go-sdk#626; the 2.x TypeScript client through
// @modelcontextprotocol/ext-tasks), polled to its result, which another
// caller's tasks/get does not find.
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
	t.Run("client task", func(t *testing.T) { clientTask(t, url, version) })
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

// taskCaller speaks the tasks extension by raw JSON-RPC over HTTP, as
// go-sdk's client has no task API (go-sdk#626): at 2026-07-28 one request
// each, its capabilities in _meta; at 2025-11-25 in a session it opens,
// the capabilities declared at initialize. from, if set, is the loopback
// address it connects from: the stateless endpoint binds an anonymous
// caller's tasks to its address.
type taskCaller struct {
	t       *testing.T
	url     string
	version string
	hc      *http.Client
	sid     string
	id      int
}

func newTaskCaller(t *testing.T, url, version, from string) *taskCaller {
	t.Helper()
	d := &net.Dialer{Timeout: 10 * time.Second}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	c := &taskCaller{t: t, url: url, version: version, hc: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}}
	t.Cleanup(c.hc.CloseIdleConnections)
	if version < "2026-07-28" {
		if _, e := c.rpc("initialize", map[string]any{}); e != nil {
			t.Fatalf("initialize: %+v", e)
		}
		if c.sid == "" {
			t.Fatal("initialize: no session id")
		}
		c.notify("notifications/initialized")
	}
	return c
}

type taskRPCError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

var taskCaps = map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}

func (c *taskCaller) post(method, name string, body []byte) *http.Response {
	c.t.Helper()
	req, err := http.NewRequest("POST", c.url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method != "initialize" {
		req.Header.Set("Mcp-Protocol-Version", c.version)
	}
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
	}
	if c.version >= "2026-07-28" {
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return resp
}

func (c *taskCaller) notify(method string) {
	c.t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	resp := c.post(method, "", body)
	resp.Body.Close()
}

func (c *taskCaller) rpc(method string, params map[string]any) (map[string]any, *taskRPCError) {
	c.t.Helper()
	switch {
	case method == "initialize":
		params["protocolVersion"], params["capabilities"] = c.version, taskCaps
		params["clientInfo"] = map[string]any{"name": "raw-go", "version": "v1"}
	case c.version >= "2026-07-28":
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    c.version,
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw-go", "version": "v1"},
			"io.modelcontextprotocol/clientCapabilities": taskCaps,
		}
	}
	c.id++
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	name, _ := params["name"].(string)
	resp := c.post(method, name, body)
	defer resp.Body.Close()
	if method == "initialize" {
		c.sid = resp.Header.Get("Mcp-Session-Id")
	}
	var msg struct {
		Result map[string]any `json:"result"`
		Error  *taskRPCError  `json:"error"`
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok && json.Unmarshal([]byte(d), &msg) == nil && (msg.Result != nil || msg.Error != nil) {
				break
			}
		}
	} else if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		c.t.Fatalf("%s: HTTP %d: %v", method, resp.StatusCode, err)
	}
	if msg.Result == nil && msg.Error == nil {
		c.t.Fatalf("%s: HTTP %d: no response", method, resp.StatusCode)
	}
	return msg.Result, msg.Error
}

// clientTask creates a task of the upstream's task-only tool through serve
// (the client declares the tasks extension), polls it with tasks/get to
// completion and reads its result; another caller (a second session
// before 2026-07-28, another address from it on) gets the unknown-task
// answer for its id.
func clientTask(t *testing.T, url, version string) {
	c := newTaskCaller(t, url, version, "")
	r, e := c.rpc("tools/call", map[string]any{"name": "simulate-research-query", "arguments": map[string]any{"topic": "gateways", "ambiguous": false}})
	if e != nil {
		t.Fatalf("tools/call: %+v", e)
	}
	id, _ := r["taskId"].(string)
	if r["resultType"] != "task" || id == "" {
		t.Fatalf("tools/call answered %v, want a task (resultType task, a taskId)", r)
	}
	var statuses []string
	deadline := time.Now().Add(time.Minute)
	for {
		r, e = c.rpc("tasks/get", map[string]any{"taskId": id})
		if e != nil {
			t.Fatalf("tasks/get: %+v", e)
		}
		st, _ := r["status"].(string)
		if len(statuses) == 0 || statuses[len(statuses)-1] != st {
			statuses = append(statuses, st)
		}
		if st != "working" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s still working after a minute", id)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("task %s: %v", id, statuses)
	res, _ := r["result"].(map[string]any)
	if r["status"] != "completed" || res == nil || res["isError"] == true || !strings.Contains(strings.ToLower(fmt.Sprint(res["content"])), "gateways") {
		t.Fatalf("task ended %v, want completed with the research result", r)
	}
	from := ""
	if version >= "2026-07-28" {
		from = "127.0.0.2" // another address: another anonymous caller
	}
	other := newTaskCaller(t, url, version, from)
	if _, e := other.rpc("tools/list", map[string]any{}); e != nil {
		t.Fatalf("the other caller is not served: %+v", e)
	}
	_, unknown := other.rpc("tasks/get", map[string]any{"taskId": "no-such-task"})
	if r, e := other.rpc("tasks/get", map[string]any{"taskId": id}); e == nil || unknown == nil || e.Code != -32602 || *e != *unknown {
		t.Errorf("another caller's tasks/get: %v %+v, want -32602 as for an unknown id (%+v)", r, e, unknown)
	}
	if r, e := c.rpc("tasks/get", map[string]any{"taskId": id}); e != nil || r["status"] != "completed" {
		t.Errorf("the owner's tasks/get after: %v %+v, want it completed still", r, e)
	}
}
