package mcpadapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type rtOrder struct {
	Items    []rtItem `json:"items" jsonschema:"what to order"`
	Priority string   `json:"priority,omitempty" jsonschema:"how urgent"`
}

type rtItem struct {
	SKU string `json:"sku"`
	Qty int    `json:"qty"`
}

type rtReceipt struct {
	ID    string `json:"id"`
	Total int    `json:"total"`
}

// roundTripTools covers typed structured output, nested definitions,
// defaults, text-only and multi-block content, annotations, _meta and
// model-facing errors.
func roundTripTools(t *testing.T) *registry.Registry {
	t.Helper()
	reg := registry.New()
	withDefault := objectSchema2(map[string]*jsonschema.Schema{
		"text":  {Type: "string", Description: "what to say"},
		"times": {Type: "integer", Default: json.RawMessage("2"), Minimum: exPtr(1.0)},
	}, "text")
	reg.MustRegister(
		exAddTool(t),
		adapter.MustTool("order", "Places an order.", func(_ context.Context, in rtOrder) (rtReceipt, error) {
			n := 0
			for _, it := range in.Items {
				n += it.Qty
			}
			return rtReceipt{ID: "o-1", Total: n}, nil
		}, &adapter.ToolOptions{Annotations: adapter.Annotations{Destructive: exPtr(false)}}),
		adapter.MustRawTool("say", "Says something, several times.", withDefault,
			func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
				var in struct {
					Text  string
					Times int
				}
				if err := json.Unmarshal(args, &in); err != nil {
					return nil, err
				}
				r := &adapter.Result{}
				for range in.Times {
					r.Content = append(r.Content, &adapter.TextContent{Text: in.Text})
				}
				r.Content = append(r.Content, &adapter.ImageContent{Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"})
				return r, nil
			}, &adapter.ToolOptions{Title: "Say", Meta: map[string]any{"ui": map[string]any{"hidden": false}}}),
		adapter.MustRawTool("fail", "Always fails.", exObject(nil),
			func(context.Context, json.RawMessage) (*adapter.Result, error) {
				return nil, &adapter.Error{Kind: adapter.KindToolError, Message: "disk full"}
			}, nil),
	)
	return reg
}

func objectSchema2(props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
	s := exObject(props, required...)
	return s
}

// TestRoundTrip exports a registry, imports it back through the import
// side of this package, and checks that the specs and the results survive.
func TestRoundTrip(t *testing.T) {
	src := roundTripTools(t)
	srcExec := adapter.NewExecutor(src, nil)
	defer srcExec.Close()
	ex := newExporter(t, src, srcExec, nil)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- ex.Serve(ctx, st) }()
	defer func() { cancel(); <-done }()

	dst := registry.New()
	m := mcpadapter.NewManager(dst, nil)
	defer m.Close()
	if err := m.Connect(ctx, mcpadapter.Upstream{Name: "src", Trust: true, Transport: ct}); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	dstExec := adapter.NewExecutor(dst, nil)
	defer dstExec.Close()

	var names []string
	for s := range src.List(registry.Filter{}) {
		names = append(names, s.Name)
		got, ok := dst.Lookup(s.Name)
		if !ok {
			t.Errorf("%s was not imported", s.Name)
			continue
		}
		if got.Source.Server != "src" || got.Source.RemoteName != s.Name {
			t.Errorf("%s: source %+v", s.Name, got.Source)
		}
		if got.Title != s.Title || got.Description != s.Description {
			t.Errorf("%s: title/description %q/%q, want %q/%q", s.Name, got.Title, got.Description, s.Title, s.Description)
		}
		if diff := cmp.Diff(exJSON(t, s.InputSchema), exJSON(t, got.InputSchema)); diff != "" {
			t.Errorf("%s: input schema (-exported +imported):\n%s", s.Name, diff)
		}
		if diff := cmp.Diff(exJSON(t, s.OutputSchema), exJSON(t, got.OutputSchema)); diff != "" {
			t.Errorf("%s: output schema (-exported +imported):\n%s", s.Name, diff)
		}
		if diff := cmp.Diff(s.Annotations, got.Annotations); diff != "" {
			t.Errorf("%s: annotations (-exported +imported):\n%s", s.Name, diff)
		}
		if diff := cmp.Diff(exJSON(t, s.Meta), exJSON(t, got.Meta)); diff != "" {
			t.Errorf("%s: _meta (-exported +imported):\n%s", s.Name, diff)
		}
	}
	if dst.Len() != len(names) {
		var got []string
		for s := range dst.List(registry.Filter{}) {
			got = append(got, s.Name)
		}
		t.Errorf("imported %v, exported %v", got, names)
	}

	calls := []struct {
		tool string
		args string
	}{
		{"add", `{"a":40,"b":2}`},
		{"order", `{"items":[{"sku":"a","qty":2},{"sku":"b","qty":3}]}`},
		{"say", `{"text":"hi"}`},
		{"say", `{"text":"yo","times":1}`},
		{"fail", `{}`},
		{"add", `{"a":"x"}`},
	}
	for _, c := range calls {
		want, werr := srcExec.Call(ctx, c.tool, json.RawMessage(c.args))
		got, gerr := dstExec.Call(ctx, c.tool, json.RawMessage(c.args))
		if adapter.KindOf(werr) != adapter.KindOf(gerr) {
			t.Errorf("%s(%s): error kind %q through MCP, %q direct (%v / %v)", c.tool, c.args, adapter.KindOf(gerr), adapter.KindOf(werr), gerr, werr)
			continue
		}
		if werr != nil {
			continue
		}
		if diff := cmp.Diff(resultJSON(t, want), resultJSON(t, got)); diff != "" {
			t.Errorf("%s(%s): result (-direct +through MCP):\n%s", c.tool, c.args, diff)
		}
	}
}

// resultJSON is a result as comparable JSON: content blocks by type and
// the structured value.
func resultJSON(t *testing.T, r *adapter.Result) any {
	t.Helper()
	var blocks []any
	for _, c := range r.Content {
		blocks = append(blocks, map[string]any{"type": c.ContentType(), "block": exJSON(t, c)})
	}
	sj, err := r.StructuredJSON()
	if err != nil {
		t.Fatal(err)
	}
	var structured any
	if sj != nil {
		structured = exJSON(t, json.RawMessage(sj))
	}
	return map[string]any{"content": blocks, "structured": structured}
}

// TestInboundTokenNeverForwarded exports, behind bearer auth, a tool
// imported from an upstream MCP server, and checks that the caller's token
// never reaches the upstream: it sees only its own credentials.
func TestInboundTokenNeverForwarded(t *testing.T) {
	var mu sync.Mutex
	var upstreamAuth []string
	up := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, nil)
	mcp.AddTool(up, &mcp.Tool{Name: "add", Description: "Adds."}, func(_ context.Context, _ *mcp.CallToolRequest, in exAddIn) (*mcp.CallToolResult, exAddOut, error) {
		return nil, exAddOut{Sum: in.A + in.B}, nil
	})
	upHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		upstreamAuth = append(upstreamAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		upHandler.ServeHTTP(w, r)
	}))
	defer upstream.Close()

	reg := registry.New()
	m := mcpadapter.NewManager(reg, nil)
	defer m.Close()
	ctx := context.Background()
	if err := m.Connect(ctx, mcpadapter.Upstream{Name: "up", URL: upstream.URL, BearerToken: "upstream-secret"}); err != nil {
		t.Fatalf("Connect upstream: %v", err)
	}
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	ex := newExporter(t, reg, exec, nil)
	srv := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}})

	cs := exConnectHTTP(t, srv.URL, nil, bearerClient("alice"))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
	if err != nil || res.IsError {
		t.Fatalf("CallTool through the export: %+v, %v", res, err)
	}
	if diff := cmp.Diff(map[string]any{"sum": 3.0}, res.StructuredContent); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(upstreamAuth) == 0 {
		t.Fatal("the upstream saw no requests")
	}
	for _, a := range slices.Compact(slices.Clone(upstreamAuth)) {
		if a != "Bearer upstream-secret" {
			t.Errorf("the upstream received Authorization %q; want only its own token", a)
		}
	}
}
