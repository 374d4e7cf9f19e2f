package genkitadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	genkitmcp "github.com/firebase/genkit/go/plugins/mcp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type divideIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type divideOut struct {
	Quotient float64 `json:"quotient"`
}

// tripSchema is a nested input schema with $defs, as real MCP servers
// publish them.
const tripSchema = `{
  "type": "object",
  "properties": {
    "traveller": {"$ref": "#/$defs/person"},
    "legs": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/leg"}}
  },
  "required": ["traveller", "legs"],
  "additionalProperties": false,
  "$defs": {
    "person": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    "leg": {"type": "object", "properties": {"city": {"type": "string"}, "nights": {"type": "integer", "minimum": 1}}, "required": ["city", "nights"]}
  }
}`

// newMCPServer returns a go-sdk server with a divide tool (isError on
// division by zero, structured output) and a book tool with a nested schema.
func newMCPServer(t testing.TB) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "divide", Description: "Divides a by b."}, func(_ context.Context, _ *mcp.CallToolRequest, in divideIn) (*mcp.CallToolResult, divideOut, error) {
		if in.B == 0 {
			return nil, divideOut{}, errors.New("division by zero")
		}
		return nil, divideOut{Quotient: in.A / in.B}, nil
	})
	var schema jsonschema.Schema
	if err := json.Unmarshal([]byte(tripSchema), &schema); err != nil {
		t.Fatal(err)
	}
	s.AddTool(&mcp.Tool{Name: "book", Description: "Books a trip.", InputSchema: &schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Legs []struct{ Nights int } `json:"legs"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		n := 0
		for _, l := range in.Legs {
			n += l.Nights
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "booked"}}, StructuredContent: map[string]any{"nights": n}}, nil
	})
	return s
}

// importInMemory imports the server's tools into a registry over
// in-memory transports.
func importInMemory(t testing.TB) *registry.Registry {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := newMCPServer(t).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	reg := registry.New()
	m := mcpadapter.NewManager(reg, nil)
	t.Cleanup(func() { m.Close() })
	if err := m.Connect(ctx, mcpadapter.Server{Name: "remote", Transport: ct}); err != nil {
		t.Fatal(err)
	}
	return reg
}

// A tool imported from an in-process MCP server runs inside Generate and
// inside a flow like a local one; its tool error reaches the model.
func TestImportedMCPTool(t *testing.T) {
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) {
			ctx := context.Background()
			g := newGenkit(t)
			reg := importInMemory(t)
			exec := adapter.NewExecutor(reg, nil)
			defer exec.Close()
			tools, err := genkitadapter.Tools(g, reg, exec, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := defineScripted(t, g, "m",
				callTools(&ai.ToolRequest{Name: "divide", Ref: "ok", Input: map[string]any{"a": 7, "b": 2}},
					&ai.ToolRequest{Name: "divide", Ref: "zero", Input: map[string]any{"a": 1, "b": 0}}),
				echoToolOutputs())
			resp, err := r.run(t, g)(ctx, g, ai.WithModel(m), ai.WithPrompt("divide"), ai.WithTools(tools...))
			if err != nil {
				t.Fatal(err)
			}
			var got any
			if err := json.Unmarshal([]byte(resp.Text()), &got); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{
				"divide#ok":   map[string]any{"quotient": 3.5},
				"divide#zero": payload(adapter.KindToolError, "division by zero", "divide"),
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("model read (-want +got):\n%s", diff)
			}
		})
	}
}

// newHTTPServer serves the MCP server over go-sdk's streamable HTTP on
// 127.0.0.1.
func newHTTPServer(t testing.TB) *httptest.Server {
	s := newMCPServer(t)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// side is one adapter stack's tools for the same server.
type side struct {
	divide, book ai.Tool
}

func ours(t testing.TB, url string) side {
	t.Helper()
	ctx := context.Background()
	reg := registry.New()
	m := mcpadapter.NewManager(reg, nil)
	t.Cleanup(func() { m.Close() })
	if err := m.Connect(ctx, mcpadapter.Server{Name: "remote", URL: url}); err != nil {
		t.Fatal(err)
	}
	exec := adapter.NewExecutor(reg, nil)
	t.Cleanup(func() { exec.Close() })
	var s side
	for _, name := range []string{"divide", "book"} {
		spec, ok := reg.Lookup(name)
		if !ok {
			t.Fatalf("%s not imported", name)
		}
		tool, err := genkitadapter.NewTool(spec, exec, nil)
		if err != nil {
			t.Fatal(err)
		}
		if name == "divide" {
			s.divide = tool
		} else {
			s.book = tool
		}
	}
	return s
}

func theirs(t testing.TB, g *genkit.Genkit, url string) side {
	t.Helper()
	c, err := genkitmcp.NewGenkitMCPClient(genkitmcp.MCPClientOptions{Name: "remote", StreamableHTTP: &genkitmcp.StreamableHTTPConfig{BaseURL: url}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Disconnect() })
	tools, err := c.GetActiveTools(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	var s side
	for _, tool := range tools {
		switch tool.Name() {
		case "remote_divide":
			s.divide = tool
		case "remote_book":
			s.book = tool
		}
	}
	if s.divide == nil || s.book == nil {
		t.Fatalf("plugins/mcp imported %d tools, not divide and book", len(tools))
	}
	return s
}

// Side by side with genkit's plugins/mcp on one go-sdk streamable HTTP
// server: what each hands genkit and the model.
func TestSideBySideWithGenkitMCPPlugin(t *testing.T) {
	ctx := context.Background()
	g := newGenkit(t)
	srv := newHTTPServer(t)
	our, their := ours(t, srv.URL), theirs(t, g, srv.URL)

	var wantTrip map[string]any
	if err := json.Unmarshal([]byte(tripSchema), &wantTrip); err != nil {
		t.Fatal(err)
	}

	t.Run("nested input schema", func(t *testing.T) {
		if diff := cmp.Diff(wantTrip, normalize(our.book.Definition().InputSchema)); diff != "" {
			t.Errorf("ours changed the schema (-server +ours):\n%s", diff)
		}
		got := normalize(their.book.Definition().InputSchema).(map[string]any)
		for _, k := range []string{"$defs", "additionalProperties"} {
			if _, ok := got[k]; ok {
				t.Errorf("plugins/mcp kept %s; the comparison is stale", k)
			}
		}
		if cmp.Equal(wantTrip, got) {
			t.Error("plugins/mcp kept the schema whole; the comparison is stale")
		}
		t.Logf("plugins/mcp input schema: %v", got)
	})

	t.Run("isError", func(t *testing.T) {
		out, err := our.divide.RunRaw(ctx, map[string]any{"a": 1, "b": 0})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(payload(adapter.KindToolError, "division by zero", "divide"), normalize(out)); diff != "" {
			t.Errorf("ours (-want +got):\n%s", diff)
		}
		tout, err := their.divide.RunRaw(ctx, map[string]any{"a": 1, "b": 0})
		if err != nil {
			t.Fatal(err)
		}
		// Theirs passes the raw result on: the model must notice isError in
		// a protocol object, and nothing tells the program the call failed.
		t.Logf("plugins/mcp output for isError: %v", normalize(tout))
		if m, _ := normalize(tout).(map[string]any); m["error"] != nil {
			t.Error("plugins/mcp produced an error payload; the comparison is stale")
		}
	})

	t.Run("structured content", func(t *testing.T) {
		args := map[string]any{"a": 7, "b": 2}
		out, err := our.divide.RunRaw(ctx, args)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]any{"quotient": 3.5}, normalize(out)); diff != "" {
			t.Errorf("ours (-want +got):\n%s", diff)
		}
		tout, err := their.divide.RunRaw(ctx, args)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := normalize(tout).(map[string]any)
		t.Logf("plugins/mcp output: %v", m)
		if _, ok := m["structuredContent"]; ok {
			t.Error("plugins/mcp kept structuredContent; the comparison is stale")
		}
	})

	t.Run("call with a nested schema", func(t *testing.T) {
		args := map[string]any{"traveller": map[string]any{"name": "ada"}, "legs": []any{map[string]any{"city": "Oslo", "nights": 2}, map[string]any{"city": "Rome", "nights": 3}}}
		out, err := our.book.RunRaw(ctx, args)
		if err != nil {
			t.Fatal(err)
		}
		// The model reads the server's content, not its structured content.
		if diff := cmp.Diff("booked", normalize(out)); diff != "" {
			t.Errorf("ours (-want +got):\n%s", diff)
		}
		// Theirs dropped $defs, so its own validator cannot resolve the
		// $refs and the call fails (inside Generate: the generation aborts).
		_, err = their.book.RunRaw(ctx, args)
		t.Logf("plugins/mcp: %v", err)
		if err == nil {
			t.Error("plugins/mcp called book; the comparison is stale")
		}
	})
}

// BenchmarkMCPToolCall times one tool call through each stack against the
// same go-sdk streamable HTTP server, in one run.
func BenchmarkMCPToolCall(b *testing.B) {
	ctx := context.Background()
	g := newGenkit(b)
	srv := newHTTPServer(b)
	our, their := ours(b, srv.URL), theirs(b, g, srv.URL)
	args := map[string]any{"a": 7, "b": 2}
	for _, s := range []struct {
		name string
		tool ai.Tool
	}{{"impl=agentadapter", our.divide}, {"impl=plugins-mcp", their.divide}} {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.tool.RunRaw(ctx, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMCPToolCallInterleaved rotates three stacks call by call (ours,
// genkit's plugins/mcp, and a bare go-sdk ClientSession.CallTool as the
// floor), so that load from elsewhere on the machine hits them alike, and
// reports the median of each and the ratios (below 1: ours is faster).
func BenchmarkMCPToolCallInterleaved(b *testing.B) {
	ctx := context.Background()
	g := newGenkit(b)
	srv := newHTTPServer(b)
	our, their := ours(b, srv.URL), theirs(b, g, srv.URL)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "v0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := map[string]any{"a": 7, "b": 2}
	stacks := []func() error{
		func() error { _, err := our.divide.RunRaw(ctx, args); return err },
		func() error { _, err := their.divide.RunRaw(ctx, args); return err },
		func() error {
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "divide", Arguments: args})
			if err == nil && r.IsError {
				err = errors.New("isError")
			}
			return err
		},
	}
	times := make([][]time.Duration, len(stacks))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		for k := range stacks {
			j := (i + k) % len(stacks)
			t0 := time.Now()
			if err := stacks[j](); err != nil {
				b.Fatal(err)
			}
			times[j] = append(times[j], time.Since(t0))
		}
		i++
	}
	mo, mt, mr := median(times[0]), median(times[1]), median(times[2])
	b.ReportMetric(float64(mo.Nanoseconds()), "ours-ns/call")
	b.ReportMetric(float64(mt.Nanoseconds()), "theirs-ns/call")
	b.ReportMetric(float64(mr.Nanoseconds()), "gosdk-ns/call")
	b.ReportMetric(float64(mo)/float64(mt), "ours/theirs")
	b.ReportMetric(float64(mo)/float64(mr), "ours/gosdk")
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
