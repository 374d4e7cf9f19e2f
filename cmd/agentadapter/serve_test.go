package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/internal/testpeers"
)

// served is a running "agentadapter serve".
type served struct {
	cmd  *exec.Cmd
	base string // http://127.0.0.1:port
	out  *syncBuffer
	done chan struct{} // closed when the process has been waited for
	err  error         // cmd.Wait's error, once done is closed
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var urlRE = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)

// startServe starts the gateway, accepting the launches of its stdio
// servers (the tests of launch review use startServeReview), and waits
// until it serves.
func startServe(t *testing.T, dir string, env []string, args ...string) *served {
	t.Helper()
	return startServeReview(t, dir, env, append([]string{"--accept-launches"}, args...)...)
}

// startServeReview starts the gateway with args alone and waits until it
// serves.
func startServeReview(t *testing.T, dir string, env []string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	s := &served{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.err = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			cmd.Process.Kill()
			<-s.done
		}
	})
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if m := regexp.MustCompile(`msg=serving .*endpoints="?(http://127\.0\.0\.1:\d+)`).FindStringSubmatch(s.out.String()); m != nil {
			s.base = m[1]
			return s
		}
		select {
		case <-s.done:
			t.Fatalf("serve exited: %v\n%s", s.err, s.out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("serve did not start:\n%s", s.out.String())
	return nil
}

// stop sends SIGTERM and waits for a clean exit.
func (s *served) stop(t *testing.T) {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		if s.err != nil {
			t.Errorf("serve exited with %v\n%s", s.err, s.out.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not stop on SIGTERM\n%s", s.out.String())
	}
}

// connect opens a go-sdk client session to an endpoint.
func connect(t *testing.T, url string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// gatewayConfig writes a config with server-everything (trusted, prefixed)
// and testserver (untrusted), and two virtual servers with different tools
// and policies.
func gatewayConfig(t *testing.T, dir, store string) string {
	t.Helper()
	ev, path := everything(t)
	cfg := fmt.Sprintf(`{
  "mcpServers": {
    "everything": {"command": %q, "args": ["stdio"], "env": {"PATH": %q}},
    "notes": {"command": %q, "env": {"TESTSERVER_SECRET": "${NOTES_SECRET:-none}"}}
  },
  "agentadapter": {
    "store": %q,
    "servers": {
      "everything": {"trust": "trusted", "prefix": true, "allow": ["echo", "get-sum", "get-tiny-image"]},
      "notes": {"rename": {"list_notes": "notes_list"}, "tools": {"describe": {"description": "Overridden description."}}}
    },
    "virtualServers": {
      "readonly": {"tools": ["everything_*", "notes_list"], "policy": {"approval": {"default": "never"}}},
      "writer": {"servers": ["notes"], "policy": {
        "approval": {"default": "never", "rules": [{"tool": "add_note", "args": {"text": "secret*"}, "approve": "required"}]},
        "limits": {"tools": {"whoami": {"calls": 2, "window": "1h"}}}
      }}
    }
  }
}`, ev, path, testServer, store)
	return writeFile(t, dir, "gateway.json", cfg)
}

func TestServe(t *testing.T) {
	dir := t.TempDir()
	gatewayConfig(t, dir, "memory:")
	s := startServe(t, dir, nil, "--config", "gateway.json")

	// The default endpoint serves every tool; untrusted servers' tools need
	// approval (their annotations are ignored).
	all := connect(t, s.base+"/mcp", nil)
	names := toolNames(t, all)
	for _, n := range []string{"everything_echo", "everything_get-sum", "add_note", "notes_list", "describe", "whoami"} {
		if !slices.Contains(names, n) {
			t.Errorf("/mcp lacks %s: %v", n, names)
		}
	}
	if slices.Contains(names, "everything_get-env") || slices.Contains(names, "list_notes") {
		t.Errorf("/mcp serves a denied or renamed-away tool: %v", names)
	}
	for tool, err := range all.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "describe" && tool.Description != "Overridden description." {
			t.Errorf("describe's description = %q, want the override", tool.Description)
		}
	}
	if res := callTool(t, all, "everything_echo", map[string]any{"message": "hi"}); res.IsError || text(res) != "Echo: hi" {
		t.Errorf("everything_echo: %v %q", res.IsError, text(res))
	}
	res := callTool(t, all, "notes_list", map[string]any{})
	if !res.IsError || !strings.Contains(text(res), `"kind":"approval_pending"`) {
		t.Errorf("notes_list of an untrusted server ran without approval: %q", text(res))
	}

	// Virtual servers: their own tools, their own policies.
	ro := connect(t, s.base+"/mcp/readonly", nil)
	roNames := toolNames(t, ro)
	if slices.Contains(roNames, "add_note") || !slices.Contains(roNames, "notes_list") || !slices.Contains(roNames, "everything_echo") {
		t.Errorf("/mcp/readonly tools: %v", roNames)
	}
	if res := callTool(t, ro, "notes_list", map[string]any{}); res.IsError {
		t.Errorf("notes_list on /mcp/readonly (approval never): %q", text(res))
	}
	// A tool the virtual server does not select is as unknown there as a
	// made-up name: the not_found payload, never the call.
	if res, err := ro.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_note", Arguments: map[string]any{"text": "x"}}); err != nil || !res.IsError || !strings.Contains(text(res), `"kind":"not_found"`) {
		t.Errorf("add_note through /mcp/readonly: %v %v, want the not_found payload", err, res)
	}
	w := connect(t, s.base+"/mcp/writer", nil)
	wNames := toolNames(t, w)
	if slices.Contains(wNames, "everything_echo") || !slices.Contains(wNames, "add_note") {
		t.Errorf("/mcp/writer tools: %v", wNames)
	}
	if res := callTool(t, w, "add_note", map[string]any{"text": "hello"}); res.IsError {
		t.Errorf("add_note(hello) on /mcp/writer: %q", text(res))
	}
	if res := callTool(t, w, "add_note", map[string]any{"text": "secret plans"}); !res.IsError || !strings.Contains(text(res), "approval_pending") {
		t.Errorf("add_note(secret…) should need approval by the argument rule: %q", text(res))
	}
	for i := range 3 {
		res := callTool(t, w, "whoami", map[string]any{})
		if limited := strings.Contains(text(res), "run_limit_exceeded"); limited != (i == 2) {
			t.Errorf("whoami call %d: %q", i+1, text(res))
		}
	}

	// Health, readiness, metrics.
	get := func(path string) (int, string) {
		resp, err := http.Get(s.base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Errorf("/healthz: %d", code)
	}
	if code, body := get("/readyz"); code != 200 || !strings.Contains(body, `"ready":true`) {
		t.Errorf("/readyz: %d %s", code, body)
	}
	_, metrics := get("/metrics")
	for _, want := range []string{
		`agentadapter_calls_total{tool="everything_echo",outcome="ok"} 1`,
		`agentadapter_calls_total{tool="whoami",outcome="run_limit_exceeded"} 1`,
		`agentadapter_pending_approvals 2`,
		`agentadapter_upstream_up{server="notes"} 1`,
		`agentadapter_call_duration_seconds_count{tool="add_note"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, metrics)
		}
	}
	if code, _ := get("/mcp/nosuch"); code != 404 {
		t.Errorf("/mcp/nosuch: %d", code)
	}

	// A session opened on /mcp/readonly cannot be carried to /mcp/writer.
	rpc := func(path, session, body string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", s.base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, _ := rpc("/mcp/readonly", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("no session id from initialize: %d", resp.StatusCode)
	}
	rpc("/mcp/readonly", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp, body := rpc("/mcp/writer", sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_note","arguments":{"text":"smuggled"}}}`)
	if resp.StatusCode == 200 || strings.Contains(body, "smuggled") {
		t.Errorf("a /mcp/readonly session called add_note through /mcp/writer: %d %s", resp.StatusCode, body)
	}

	// Shutdown reaps every child process.
	children := descendants(s.cmd.Process.Pid)
	if len(children) < 2 {
		t.Errorf("expected at least two server processes under the gateway, got %v", children)
	}
	all.Close()
	s.stop(t)
	for _, pid := range children {
		if alive(pid) {
			t.Errorf("process %d outlived the gateway", pid)
		}
	}
}

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 {
			pp, _ := strconv.Atoi(fields[1])
			parent[p] = pp
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for c, pp := range parent {
			if pp == p {
				out = append(out, c)
				walk(c)
			}
		}
	}
	walk(pid)
	return out
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

// The MCP Inspector CLI, a real client outside Go, lists and calls tools
// through the gateway.
func TestServeInspector(t *testing.T) {
	dir := t.TempDir()
	gatewayConfig(t, dir, "memory:")
	s := startServe(t, dir, nil, "--config", "gateway.json")
	inspect := func(args ...string) map[string]any {
		cmd := testpeers.Command(t, "mcp-inspector", append([]string{"--cli", s.base + "/mcp/readonly", "--transport", "http"}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("inspector output: %v\n%s", err, out)
		}
		return v
	}
	list := inspect("--method", "tools/list")
	var names []string
	for _, tool := range list["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if !slices.Contains(names, "everything_get-sum") || slices.Contains(names, "add_note") {
		t.Errorf("tools through the Inspector: %v", names)
	}
	res := inspect("--method", "tools/call", "--tool-name", "everything_get-sum", "--tool-arg", "a=2", "b=40")
	if !strings.Contains(fmt.Sprint(res["content"]), "42") {
		t.Errorf("get-sum(2, 40) through the Inspector: %v", res)
	}
	s.stop(t)
}
