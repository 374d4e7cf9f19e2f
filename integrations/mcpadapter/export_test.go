package mcpadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type exAddIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type exAddOut struct {
	Sum int `json:"sum"`
}

func exAddTool(t testing.TB) *adapter.Spec {
	t.Helper()
	return adapter.MustTool("add", "Adds two integers.", func(_ context.Context, in exAddIn) (exAddOut, error) {
		return exAddOut{Sum: in.A + in.B}, nil
	}, &adapter.ToolOptions{
		Title:       "Add",
		Annotations: adapter.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: exPtr(false)},
		Meta:        map[string]any{"team": "math"},
	})
}

func exPtr[T any](v T) *T { return &v }

func exObject(props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Properties: props, Required: required}
}

// testTools returns a registry of tools covering each result shape.
func exTools(t testing.TB) *registry.Registry {
	t.Helper()
	reg := registry.New()
	reg.MustRegister(
		exAddTool(t),
		adapter.MustRawTool("echo", "Echoes its text.", exObject(map[string]*jsonschema.Schema{"text": {Type: "string"}}, "text"),
			func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
				var in struct{ Text string }
				if err := json.Unmarshal(args, &in); err != nil {
					return nil, err
				}
				return &adapter.Result{Content: []adapter.Content{&adapter.TextContent{Text: in.Text}}, Meta: map[string]any{"echoed": true}}, nil
			}, nil),
		adapter.MustRawTool("fail", "Always fails.", exObject(nil),
			func(context.Context, json.RawMessage) (*adapter.Result, error) { return nil, errors.New("boom") }, nil),
		adapter.MustRawTool("broken", "Fails with an infrastructure fault.", exObject(nil),
			func(context.Context, json.RawMessage) (*adapter.Result, error) {
				return nil, &adapter.Error{Kind: adapter.KindConnection, Message: "upstream unreachable"}
			}, nil),
		adapter.MustRawTool("eino_only", "Not for MCP.", exObject(nil),
			func(context.Context, json.RawMessage) (*adapter.Result, error) { return adapter.TextResult("no"), nil },
			&adapter.ToolOptions{Targets: []string{adapter.TargetEino}}),
	)
	return reg
}

// connect serves ex in memory and connects a go-sdk client speaking
// version ("" = the latest).
func exConnect(t testing.TB, ex *mcpadapter.Exporter, copts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- ex.Serve(ctx, st) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, copts)
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		cancel()
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}

// serveHTTP serves ex over streamable HTTP on a 127.0.0.1 test server.
func exServeHTTP(t testing.TB, ex *mcpadapter.Exporter, opts *mcpadapter.HTTPOptions) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(ex.Handler(opts))
	t.Cleanup(srv.Close)
	return srv
}

func exConnectHTTP(t testing.TB, url string, copts *mcp.ClientOptions, client *http.Client) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, copts)
	// A session client: the tests using it check what holds per session
	// (eraConnect picks the era).
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("Connect %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func newExporter(t testing.TB, reg *registry.Registry, exec *adapter.Executor, opts *mcpadapter.ExportOptions) *mcpadapter.Exporter {
	t.Helper()
	if exec == nil {
		exec = adapter.NewExecutor(reg, nil)
		t.Cleanup(func() { exec.Close() })
	}
	ex, err := mcpadapter.NewExporter(reg, exec, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	return ex
}

func exListTools(t testing.TB, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	out := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatalf("Tools: %v", err)
		}
		out[tool.Name] = tool
	}
	return out
}

// asJSON re-encodes v as generic JSON, so that schemas can be compared
// whatever their Go type on either side.
func exJSON(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestExportListsToolsWithSchemasAnnotationsAndMeta(t *testing.T) {
	reg := exTools(t)
	ex := newExporter(t, reg, nil, nil)
	for _, version := range []string{"2025-06-18", "2025-11-25", ""} {
		t.Run("protocol="+version, func(t *testing.T) {
			cs := exConnect(t, ex, nil, version)
			got := exListTools(t, cs)
			var names []string
			for n := range got {
				names = append(names, n)
			}
			want := []string{"add", "broken", "echo", "fail"} // eino_only is not targeted at MCP
			if diff := cmp.Diff(want, exKeys(got)); diff != "" {
				t.Fatalf("listed tools (-want +got):\n%s", diff)
			}
			spec, _ := reg.Lookup("add")
			add := got["add"]
			if add.Title != "Add" || add.Description != "Adds two integers." {
				t.Errorf("add: title %q, description %q", add.Title, add.Description)
			}
			if diff := cmp.Diff(exJSON(t, spec.InputSchema), exJSON(t, add.InputSchema)); diff != "" {
				t.Errorf("input schema (-spec +listed):\n%s", diff)
			}
			if diff := cmp.Diff(exJSON(t, spec.OutputSchema), exJSON(t, add.OutputSchema)); diff != "" {
				t.Errorf("output schema (-spec +listed):\n%s", diff)
			}
			wantAnn := &mcp.ToolAnnotations{Title: "Add", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: exPtr(false)}
			if diff := cmp.Diff(wantAnn, add.Annotations); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(mcp.Meta{"team": "math"}, add.Meta); diff != "" {
				t.Errorf("_meta (-want +got):\n%s", diff)
			}
			if got["echo"].OutputSchema != nil {
				t.Errorf("echo has an output schema %v; a raw tool without one must not", got["echo"].OutputSchema)
			}
		})
	}
}

func exKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if ks[j] < ks[i] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}

func TestExportCallResults(t *testing.T) {
	ex := newExporter(t, exTools(t), nil, nil)
	cs := exConnect(t, ex, nil, "")
	tests := []struct {
		name       string
		tool       string
		args       any
		wantError  bool
		wantText   string
		wantStruct any
		wantMeta   mcp.Meta
	}{
		{name: "structured", tool: "add", args: map[string]any{"a": 2, "b": 3},
			wantText: `{"sum":5}`, wantStruct: map[string]any{"sum": 5.0}},
		{name: "text with meta", tool: "echo", args: map[string]any{"text": "hi"},
			wantText: "hi", wantMeta: mcp.Meta{"echoed": true}},
		{name: "tool error", tool: "fail", args: map[string]any{}, wantError: true,
			wantText: `{"error":{"kind":"tool_error","message":"boom","tool":"fail"}}`,
			wantMeta: mcp.Meta{mcpadapter.MetaKeyError: map[string]any{"kind": "tool_error"}}},
		{name: "invalid arguments", tool: "add", args: map[string]any{"a": "two"}, wantError: true,
			wantText: `{"error":{"kind":"args_invalid","message":"arguments do not match the input schema: at $.a: type: two has type \"string\", want \"integer\"","tool":"add"}}`,
			wantMeta: mcp.Meta{mcpadapter.MetaKeyError: map[string]any{"kind": "args_invalid"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if res.IsError != tt.wantError {
				t.Errorf("IsError = %v, want %v", res.IsError, tt.wantError)
			}
			if len(res.Content) != 1 {
				t.Fatalf("got %d content blocks, want 1: %v", len(res.Content), res.Content)
			}
			text, ok := res.Content[0].(*mcp.TextContent)
			if !ok {
				t.Fatalf("content is %T, want text", res.Content[0])
			}
			if text.Text != tt.wantText {
				t.Errorf("text:\n got %s\nwant %s", text.Text, tt.wantText)
			}
			if diff := cmp.Diff(tt.wantStruct, res.StructuredContent); diff != "" {
				t.Errorf("structuredContent (-want +got):\n%s", diff)
			}
			delete(res.Meta, "io.modelcontextprotocol/serverInfo") // added by the go-sdk
			if len(res.Meta) == 0 {
				res.Meta = nil
			}
			if diff := cmp.Diff(tt.wantMeta, res.Meta); diff != "" {
				t.Errorf("_meta (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExportInfrastructureFaultIsProtocolError(t *testing.T) {
	ex := newExporter(t, exTools(t), nil, nil)
	cs := exConnect(t, ex, nil, "")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "broken"})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		t.Fatalf("CallTool(broken) = %v, %v; want a JSON-RPC error", res, err)
	}
	if werr.Code != jsonrpc.CodeInternalError || !strings.Contains(werr.Message, "connection: upstream unreachable") {
		t.Errorf("error = %d %q, want internal error naming the kind and message", werr.Code, werr.Message)
	}
	// A tool not exported to MCP is not_found, a tool error the model
	// reads (TestExportUnknownToolRecorded).
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "eino_only"}); err != nil || !res.IsError {
		t.Errorf("calling a tool not exported to MCP = %+v, %v; want a not_found isError result", res, err)
	}
}

// TestExportCallsGoThroughExecutor checks that hooks see every MCP call,
// with the MCP integration name and the go-sdk request.
func TestExportCallsGoThroughExecutor(t *testing.T) {
	reg := exTools(t)
	var mu sync.Mutex
	var seen []string
	hook := func(next adapter.Invoker) adapter.Invoker {
		return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
			_, isReq := c.Native.(*mcp.CallToolRequest)
			mu.Lock()
			seen = append(seen, c.Tool+"/"+c.Integration+"/"+exBool(isReq))
			mu.Unlock()
			if c.Tool == "echo" {
				return nil, &adapter.Error{Kind: adapter.KindGuardrailBlocked, Message: "no echoes today"}
			}
			return next(ctx, c)
		}
	}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Hooks: []adapter.Hook{hook}})
	defer exec.Close()
	cs := exConnect(t, newExporter(t, reg, exec, nil), nil, "")
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 1}}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"kind":"guardrail_blocked"`) {
		t.Errorf("blocked call: %+v", res)
	}
	if diff := cmp.Diff([]string{"add/mcp/true", "echo/mcp/true"}, seen); diff != "" {
		t.Errorf("calls seen by the hook (-want +got):\n%s", diff)
	}
}

func exBool(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestExportFollowsRegistry(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("protocol="+version, func(t *testing.T) {
			reg := registry.New()
			reg.MustRegister(exAddTool(t))
			ex := newExporter(t, reg, nil, nil)
			changed := make(chan struct{}, 16)
			cs := exConnect(t, ex, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
				changed <- struct{}{}
			}}, version)
			wait := func(what string) {
				t.Helper()
				select {
				case <-changed:
				case <-time.After(10 * time.Second):
					t.Fatalf("no tools/list_changed after %s", what)
				}
			}
			echo := adapter.MustRawTool("echo", "Echoes.", exObject(nil), func(context.Context, json.RawMessage) (*adapter.Result, error) {
				return adapter.TextResult("v1"), nil
			}, nil)
			// From 2026-07-28 on, list changes reach only clients that listen
			// for them (subscriptions/listen); the go-sdk client opens that
			// stream before Connect returns when it has a handler.
			reg.MustRegister(echo)
			wait("register")
			if diff := cmp.Diff([]string{"add", "echo"}, exKeys(exListTools(t, cs))); diff != "" {
				t.Errorf("after register (-want +got):\n%s", diff)
			}

			echo2 := echo.Clone()
			echo2.Description = "Echoes, v2."
			echo2.Handler = func(context.Context, json.RawMessage) (*adapter.Result, error) { return adapter.TextResult("v2"), nil }
			if err := reg.Replace(echo2); err != nil {
				t.Fatal(err)
			}
			wait("replace")
			if got := exListTools(t, cs)["echo"].Description; got != "Echoes, v2." {
				t.Errorf("after replace: description %q", got)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo"})
			if err != nil || res.Content[0].(*mcp.TextContent).Text != "v2" {
				t.Errorf("after replace: call = %v, %v; want v2", res, err)
			}

			// Replacing with a spec not targeted at MCP removes the tool.
			hidden := echo2.Clone()
			hidden.Targets = []string{adapter.TargetGenkit}
			if err := reg.Replace(hidden); err != nil {
				t.Fatal(err)
			}
			wait("retarget")
			if diff := cmp.Diff([]string{"add"}, exKeys(exListTools(t, cs))); diff != "" {
				t.Errorf("after retarget (-want +got):\n%s", diff)
			}

			if err := reg.Unregister("add"); err != nil {
				t.Fatal(err)
			}
			wait("unregister")
			if got := exListTools(t, cs); len(got) != 0 {
				t.Errorf("after unregister: %v", exKeys(got))
			}
		})
	}
}

func TestExportProgress(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(adapter.MustRawTool("slow", "Reports progress.", exObject(nil),
		func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			for i := 1; i <= 3; i++ {
				adapter.ReportProgress(ctx, adapter.Progress{Progress: float64(i), Total: 3, Message: "step"})
			}
			return adapter.TextResult("done"), nil
		}, nil))
	ex := newExporter(t, reg, nil, nil)
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("protocol="+version, func(t *testing.T) {
			var mu sync.Mutex
			var got []mcp.ProgressNotificationParams
			cs := exConnect(t, ex, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				got = append(got, *r.Params)
				mu.Unlock()
			}}, version)
			params := &mcp.CallToolParams{Name: "slow"}
			params.SetProgressToken("tok-1")
			if _, err := cs.CallTool(context.Background(), params); err != nil {
				t.Fatal(err)
			}
			// Notifications may trail the response; wait for all three.
			deadline := time.Now().Add(10 * time.Second)
			for {
				mu.Lock()
				n := len(got)
				mu.Unlock()
				if n >= 3 || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			mu.Lock()
			defer mu.Unlock()
			want := []mcp.ProgressNotificationParams{
				{ProgressToken: "tok-1", Progress: 1, Total: 3, Message: "step"},
				{ProgressToken: "tok-1", Progress: 2, Total: 3, Message: "step"},
				{ProgressToken: "tok-1", Progress: 3, Total: 3, Message: "step"},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("progress notifications (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExportCancellation(t *testing.T) {
	started := make(chan struct{})
	stopped := make(chan error, 1)
	reg := registry.New()
	reg.MustRegister(adapter.MustRawTool("block", "Blocks until canceled.", exObject(nil),
		func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			close(started)
			select {
			case <-ctx.Done():
				stopped <- ctx.Err()
				return nil, ctx.Err()
			case <-time.After(time.Minute):
				stopped <- nil
				return adapter.TextResult("not canceled"), nil
			}
		}, nil))
	ex := newExporter(t, reg, nil, nil)
	cs := exConnect(t, ex, nil, "2025-11-25")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block"})
		errc <- err
	}()
	<-started
	begin := time.Now()
	cancel()
	select {
	case err := <-stopped:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("handler ctx ended with %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the client's cancellation did not cancel the handler")
	}
	if err := <-errc; err == nil {
		t.Error("canceled CallTool returned no error")
	}
	if d := time.Since(begin); d > 30*time.Second {
		t.Errorf("cancellation took %v", d)
	}
}

// TestExportObjectTypeSpelledAsList checks that a spec whose input schema
// says types: ["object"] is served (go-sdk wants type: "object") and keeps
// the rest of its schema.
func TestExportObjectTypeSpelledAsList(t *testing.T) {
	reg := registry.New()
	in := &jsonschema.Schema{Types: []string{"object"}, Properties: map[string]*jsonschema.Schema{"q": {Type: "string"}}}
	reg.MustRegister(adapter.MustRawTool("search", "Searches.", in, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		return adapter.TextResult(string(args)), nil
	}, nil))
	cs := exConnect(t, newExporter(t, reg, nil, nil), nil, "")
	want := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}
	if diff := cmp.Diff(want, exJSON(t, exListTools(t, cs)["search"].InputSchema)); diff != "" {
		t.Errorf("listed input schema (-want +got):\n%s", diff)
	}
	if in.Type != "" || len(in.Types) != 1 {
		t.Errorf("the spec's schema was modified: %+v", in)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"q": "go"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != `{"q":"go"}` {
		t.Errorf("call = %+v, %v", res, err)
	}
}
