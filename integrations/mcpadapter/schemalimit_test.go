package mcpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// chainSchema is an object schema exactly depth schemas deep, each level
// nesting the next under keyword key ("properties", or a case-folded
// spelling UnmarshalJSON reads the same), ending in leaf.
func chainSchema(depth int, key, leaf string) string {
	return strings.Repeat(`{"type":"object","`+key+`":{"a":`, depth-1) + leaf + strings.Repeat(`}}`, depth-1)
}

// itemsSchema nests depth-1 array schemas under items, inside an object.
func itemsSchema(depth int) string {
	return `{"type":"object","properties":{"a":` + strings.Repeat(`{"type":"array","items":`, depth-2) + `{"type":"string"}` + strings.Repeat(`}`, depth-2) + `}}`
}

// wideSchema is an object schema of n string properties, each described
// by desc.
func wideSchema(n int, desc string) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%05d":{"type":"string","description":%q}`, i, desc)
	}
	b.WriteString(`}}`)
	return b.String()
}

const schema2020Fixture = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
	"properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
	"additionalProperties": false
}`

const leafSchema = `{"type":"string"}`

// worstDeep and worstWide are schemas just inside the import's bounds:
// 64 deep with as many bytes as the size-times-depth bound allows, and
// 511 properties (512 schemas), as large as the same bound allows.
var (
	worstDeep = chainSchema(64, "properties", `{"type":"string","description":"`+strings.Repeat("x", (512<<10)/64-1500)+`"}`)
	worstWide = wideSchema(511, strings.Repeat("y", 450))
)

// schemaTool is one tool of the hostile upstream: its schemas and whether
// the import must take it.
type schemaTool struct {
	name     string
	in, out  string
	imported bool
}

var schemaTools = []schemaTool{
	{"normal", `{"type":"object","properties":{"x":{"type":"string"}}}`, "", true},
	{"json_schema_2020_12_tool", schema2020Fixture, "", true},
	{"at_depth_limit", chainSchema(64, "properties", leafSchema), "", true},
	{"worst_deep", worstDeep, "", true},
	{"worst_wide", worstWide, "", true},
	{"over_depth_limit", chainSchema(65, "properties", leafSchema), "", false},
	// go-sdk v1.8.0 decodes no message nested past 1000 JSON levels:
	// 490 schemas of properties (two levels each), 990 of items (one).
	{"deep_input", chainSchema(490, "properties", leafSchema), "", false},
	{"deep_output", `{"type":"object"}`, chainSchema(490, "properties", leafSchema), false},
	{"deep_items", itemsSchema(990), "", false},
	{"deep_defs", chainSchema(490, "$defs", leafSchema), "", false},
	{"deep_folded", chainSchema(200, "PROPERTIEſ", leafSchema), "", false}, // UnmarshalJSON folds it onto properties
	{"many_schemas", wideSchema(5000, ""), "", false},
	{"heavy", chainSchema(60, "properties", `{"type":"string","description":"`+strings.Repeat("z", 64<<10)+`"}`), "", false},
}

// schemaUpstream is a go-sdk server listing schemaTools.
func schemaUpstream(t testing.TB) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "hostile-schemas", Version: "v1"}, nil)
	for _, st := range schemaTools {
		tool := &mcp.Tool{Name: st.name, InputSchema: json.RawMessage(st.in)}
		if st.out != "" {
			tool.OutputSchema = json.RawMessage(st.out)
		}
		s.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	}
	return s
}

// TestImportSchemaLimit: a hostile upstream's tools whose schemas are too
// deep (3000 levels of properties, items, $defs, case-folded keywords, an
// output schema), hold too many schemas, or are too heavy are not
// imported, each reported as a ToolError naming the tool and the bound;
// the server's other tools are imported, the ones just inside the bounds
// included, and are callable. The export of what was imported lists in
// milliseconds (the 3000-level schema cost seconds per listing).
func TestImportSchemaLimit(t *testing.T) {
	for _, transport := range []string{"in-memory", "http"} {
		t.Run(transport, func(t *testing.T) {
			srv := schemaUpstream(t)
			server := mcpadapter.Upstream{Name: "up", Transport: inMemoryTo(t, srv)}
			if transport == "http" {
				server = mcpadapter.Upstream{Name: "up", URL: httpTo(t, srv)}
			}
			e := newImportEnv(t, nil)
			start := time.Now()
			err := e.m.Connect(context.Background(), server)
			t.Logf("import took %v", time.Since(start))
			if err == nil {
				t.Error("Connect reported no refused tool")
			}
			refused := map[string]error{}
			var te *mcpadapter.ImportError
			for _, leaf := range flatten(err) {
				if errors.As(leaf, &te) {
					refused[te.Tool] = te
				}
			}
			skipped := map[string]bool{}
			for _, st := range e.m.Servers() {
				for _, sk := range st.Skipped {
					skipped[sk.Tool] = true
				}
			}
			for _, st := range schemaTools {
				_, registered := e.reg.Lookup(st.name)
				if registered != st.imported {
					t.Errorf("%s: imported %v, want %v (error %v)", st.name, registered, st.imported, refused[st.name])
				}
				if st.imported {
					continue
				}
				err := refused[st.name]
				if !errors.Is(err, mcpadapter.ErrSchemaLimit) {
					t.Errorf("%s: error %v does not wrap ErrSchemaLimit", st.name, err)
				} else if msg := err.Error(); !strings.Contains(msg, st.name) || !strings.ContainsAny(msg, "0123456789") {
					t.Errorf("%s: error %q names neither the tool nor the bound", st.name, msg)
				}
				if !skipped[st.name] {
					t.Errorf("%s: not in ServerStatus.Skipped", st.name)
				}
			}
			if res, aerr := e.call(t, context.Background(), "normal", `{"x":"y"}`); aerr != nil || len(res.Content) != 1 {
				t.Errorf("normal: %v, %v", res, aerr)
			}

			ex := newExporter(t, e.reg, e.exec, nil)
			cs := exConnectHTTP(t, exServeHTTP(t, ex, nil).URL, nil, nil)
			var listed map[string]*mcp.Tool
			best := time.Hour
			for range 3 {
				start := time.Now()
				if _, err := cs.ListTools(context.Background(), nil); err != nil {
					t.Fatal(err)
				}
				best = min(best, time.Since(start))
			}
			listed = exListTools(t, cs)
			t.Logf("the export's tools/list took %v", best)
			// Seconds with the 3000-level schema; a few ms here, ~0.1 s
			// under -race on a loaded machine.
			if best > time.Second {
				t.Errorf("the export's tools/list took %v", best)
			}
			for _, st := range schemaTools {
				if _, ok := listed[st.name]; ok != st.imported {
					t.Errorf("%s: exported %v, want %v", st.name, ok, st.imported)
				}
			}
		})
	}
}

// flatten lists the leaves of a tree of joined errors.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	if err == nil {
		return nil
	}
	if u := errors.Unwrap(err); u != nil {
		if _, ok := u.(interface{ Unwrap() []error }); ok {
			return append([]error{err}, flatten(u)...)
		}
	}
	return []error{err}
}

// BenchmarkExportListSchema: one tools/list of an export serving one tool
// of the given schema, in memory. The last three are schemas the import
// refuses (as local specs): what each listing cost before the bound.
func BenchmarkExportListSchema(b *testing.B) {
	for _, c := range []struct{ name, schema string }{
		{"normal", schemaTools[0].in},
		{"depth-64", chainSchema(64, "properties", leafSchema)},
		{"worst-deep", worstDeep},
		{"worst-wide", worstWide},
		{"wide-5000", wideSchema(5000, "")},
		{"heavy", schemaTools[len(schemaTools)-1].in},
		{"deep-490", chainSchema(490, "properties", leafSchema)},
		{"items-990", itemsSchema(990)},
	} {
		b.Run(c.name, func(b *testing.B) {
			var s jsonschema.Schema
			if err := json.Unmarshal([]byte(c.schema), &s); err != nil {
				b.Fatal(err)
			}
			reg := registry.New()
			spec, err := adapter.NewRawTool("t", "", &s, func(context.Context, json.RawMessage) (*adapter.Result, error) {
				return &adapter.Result{}, nil
			}, nil)
			if err != nil {
				b.Fatal(err)
			}
			if err := reg.Register(spec); err != nil {
				b.Fatal(err)
			}
			ex := newExporter(b, reg, nil, nil)
			// A raw client: go-sdk's own would re-validate the schema it
			// reads, which is the client's cost, not the export's.
			ct, st := mcp.NewInMemoryTransports()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- ex.Serve(ctx, st) }()
			defer func() { cancel(); <-done }()
			conn, err := ct.Connect(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			send := func(msg map[string]any) {
				b.Helper()
				raw, _ := json.Marshal(msg)
				m, err := jsonrpc.DecodeMessage(raw)
				if err != nil {
					b.Fatal(err)
				}
				if err := conn.Write(ctx, m); err != nil {
					b.Fatal(err)
				}
			}
			rpc := func(id int, method string, params any) {
				b.Helper()
				send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
				for {
					m, err := conn.Read(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if r, ok := m.(*jsonrpc.Response); ok {
						if r.Error != nil {
							b.Fatal(r.Error)
						}
						return
					}
				}
			}
			rpc(0, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "v1"}})
			send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized", "params": map[string]any{}})
			b.ResetTimer()
			for i := range b.N {
				rpc(i+1, "tools/list", map[string]any{})
			}
		})
	}
}

// deepListServer is a go-sdk server over streamable HTTP whose tools/list
// is answered, byte for byte, with a listing of "normal" and of a tool
// whose input schema nests 3000 schemas deep (6000 JSON levels).
func deepListServer(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "deep", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "normal", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	deep := chainSchema(3000, "properties", leafSchema)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(body, &req) == nil && req.Method == "tools/list" {
				w.Header().Set("Content-Type", "application/json")
				if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
					w.Header().Set("Mcp-Session-Id", sid)
				}
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"normal","inputSchema":{"type":"object"}},{"name":"deep","inputSchema":%s}]}}`, req.ID, deep)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	return ts.URL
}

// TestImportSchemaTooDeepToDecode: a raw upstream lists a tool 3000
// schemas deep, over HTTP and in stdio's framing. go-sdk v1.8.0 decodes no
// message nested past 1000 JSON levels, so that listing is not read at
// all: Connect fails within milliseconds with the server's *ServerError
// and registers nothing. Were it decoded, the bound would refuse the one
// tool and import the other. Either way the deep tool never reaches an
// export.
func TestImportSchemaTooDeepToDecode(t *testing.T) {
	for _, transport := range []string{"http", "stdio framing"} {
		t.Run(transport, func(t *testing.T) {
			server := mcpadapter.Upstream{Name: "deep", ConnectTimeout: 10 * time.Second}
			if transport == "http" {
				server.URL = deepListServer(t)
			} else {
				server.Transport = deepListPipe(t)
			}
			e := newImportEnv(t, nil)
			start := time.Now()
			err := e.m.Connect(context.Background(), server)
			took := time.Since(start)
			t.Logf("Connect took %v: %v", took, err)
			if took > 5*time.Second {
				t.Errorf("Connect took %v", took)
			}
			if _, ok := e.reg.Lookup("deep"); ok {
				t.Errorf("the 3000-level tool is registered")
			}
			var se *mcpadapter.UpstreamError
			if errors.As(err, &se) && !errors.Is(err, mcpadapter.ErrSchemaLimit) {
				// go-sdk v1.8.0: the listing is not decoded, no tool imports.
				if _, ok := e.reg.Lookup("normal"); ok || se.Server != "deep" {
					t.Errorf("Connect: %v, normal registered %v", err, ok)
				}
				return
			}
			// A go-sdk that decodes it: the bound refuses the one tool.
			if _, ok := e.reg.Lookup("normal"); !ok || !errors.Is(err, mcpadapter.ErrSchemaLimit) {
				t.Errorf("Connect: %v, normal registered %v", err, ok)
			}
		})
	}
}

// deepListPipe is a raw newline-delimited JSON-RPC upstream (stdio's
// framing) whose tools/list carries a schema 3000 schemas deep.
func deepListPipe(t *testing.T) mcp.Transport {
	t.Helper()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	done := make(chan struct{})
	go func() {
		defer close(done)
		dec := json.NewDecoder(sr)
		for {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if dec.Decode(&req) != nil {
				return
			}
			if req.ID == nil {
				continue
			}
			var result string
			switch req.Method {
			case "initialize":
				result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"deep","version":"v1"}}`
			case "tools/list":
				result = `{"tools":[{"name":"normal","inputSchema":{"type":"object"}},{"name":"deep","inputSchema":` + chainSchema(3000, "properties", leafSchema) + `}]}`
			default:
				fmt.Fprintf(sw, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`+"\n", req.ID)
				continue
			}
			if _, err := fmt.Fprintf(sw, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { sr.Close(); sw.Close(); <-done })
	return &mcp.IOTransport{Reader: cr, Writer: cw}
}

// TestImportSchemaLimitOnRefresh: a tool imported with a normal schema
// that the upstream redefines past the bound is taken out of the registry
// on the next listing (not kept quarantined with the hostile definition
// held for review), reported like any skipped tool; the other tool stays.
func TestImportSchemaLimitOnRefresh(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "turns", Version: "v1"}, nil)
	ok := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	srv.AddTool(&mcp.Tool{Name: "stays", InputSchema: json.RawMessage(`{"type":"object"}`)}, ok)
	srv.AddTool(&mcp.Tool{Name: "turns", InputSchema: json.RawMessage(`{"type":"object"}`)}, ok)
	e := newImportEnv(t, nil)
	if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Transport: inMemoryTo(t, srv)}); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.reg.Lookup("turns"); !ok {
		t.Fatal("turns not imported")
	}
	srv.AddTool(&mcp.Tool{Name: "turns", InputSchema: json.RawMessage(itemsSchema(900))}, ok)
	err := e.m.Refresh(context.Background(), "up")
	if !errors.Is(err, mcpadapter.ErrSchemaLimit) || !strings.Contains(err.Error(), `"turns"`) {
		t.Errorf("Refresh: %v, want ErrSchemaLimit naming turns", err)
	}
	if _, ok := e.reg.Lookup("turns"); ok {
		t.Error("turns still registered with its hostile definition")
	}
	if _, ok := e.reg.Lookup("stays"); !ok {
		t.Error("stays lost")
	}
	for _, q := range e.m.Quarantined() {
		t.Errorf("quarantined %s: the hostile definition is held", q.Tool)
	}
}
