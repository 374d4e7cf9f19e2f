package mcpadapter_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

// Every tools/call, resources/read and prompts/get answer of the export to
// a 2026-07-28 client says resultType "complete", those the export gives
// in middleware too (a made-up tool's not_found, an upstream's resource
// read, templated read and prompt, whose answers a 2025-11-25 upstream
// such as server-everything gives without one): the TypeScript client
// refuses an answer without it.
func TestResultTypeAt2026(t *testing.T) {
	ctx := context.Background()
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("hello", "Says hello.", func(_ context.Context, in struct{}) (string, error) { return "hello", nil }, nil))
	m := mcpadapter.NewManager(reg, nil)
	t.Cleanup(func() { m.Close() })
	// server-everything speaks 2025-11-25: its answers carry no resultType.
	ev := testpeers.Command(t, "mcp-server-everything", "stdio")
	if err := m.Connect(ctx, mcpadapter.Upstream{Name: "everything", Command: ev.Path, Args: ev.Args[1:], Env: ev.Env, Trust: true,
		Allow: []string{"echo", "args-prompt"}, ConnectTimeout: time.Minute, CallTimeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	exec := adapter.NewExecutor(reg, nil)
	t.Cleanup(func() { exec.Close() })
	exp, err := mcpadapter.NewExporter(reg, exec, &mcpadapter.ExportOptions{Upstreams: &mcpadapter.Upstreams{Manager: m}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exp.Close() })
	srv := httptest.NewServer(exp.Handler(nil))
	t.Cleanup(srv.Close)

	for _, tc := range []struct {
		method, name string
		params       map[string]any
		want         string // in the result
	}{
		{"tools/call", "hello", map[string]any{"name": "hello", "arguments": map[string]any{}}, `"text":"hello"`},
		{"tools/call", "nosuch", map[string]any{"name": "nosuch", "arguments": map[string]any{}}, `not_found`},
		{"tools/call", "echo", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}}, `Echo: hi`},
		{"resources/read", "architecture.md", map[string]any{"uri": "demo://resource/static/document/architecture.md"}, `"text":"`},
		{"resources/read", "dynamic/text/3", map[string]any{"uri": "demo://resource/dynamic/text/3"}, `"text":"`},
		{"prompts/get", "args-prompt", map[string]any{"name": "args-prompt", "arguments": map[string]any{"city": "Oslo"}}, `Oslo`},
	} {
		t.Run(tc.method+" "+tc.name, func(t *testing.T) {
			tc.params["_meta"] = map[string]any{
				"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
				"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "v1"},
				"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			}
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": tc.method, "params": tc.params})
			req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(string(body)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", tc.method)
			if n, ok := tc.params["name"].(string); ok {
				req.Header.Set("Mcp-Name", n)
			} else {
				req.Header.Set("Mcp-Name", tc.params["uri"].(string))
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			res := resultOf(t, b)
			var top struct {
				ResultType string `json:"resultType"`
			}
			json.Unmarshal(res, &top)
			if top.ResultType != "complete" || !strings.Contains(string(res), tc.want) {
				t.Errorf("%s %s answered %s; want resultType complete and %s", tc.method, tc.name, res, tc.want)
			}
		})
	}
}

// resultOf returns the result of the one JSON-RPC response in an HTTP body,
// JSON or an event stream.
func resultOf(t *testing.T, body []byte) json.RawMessage {
	t.Helper()
	s := string(body)
	if i := strings.Index(s, "data: "); i >= 0 {
		s = s[i+len("data: "):]
		if j := strings.Index(s, "\n"); j >= 0 {
			s = s[:j]
		}
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(s), &msg); err != nil || msg.Result == nil {
		t.Fatalf("no result in %q: %v %s", body, err, msg.Error)
	}
	return msg.Result
}
