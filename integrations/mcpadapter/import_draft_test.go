package mcpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// The 2026-07-28 client scenarios of the draft conformance suite
// (sep-2322-client-request-state, http-custom-headers,
// http-invalid-tool-headers, json-schema-2020-12-preservation), each
// against a go-sdk server that serves only 2026-07-28 (stateless), through
// a Manager and an executor.

// draftServer serves s statelessly over streamable HTTP and records every
// request's headers and JSON-RPC body.
type draftServer struct {
	url string

	mu       sync.Mutex
	requests []draftRequest
	// failList, if set, answers every tools/list after the first with 503.
	failList bool
	// extraTools are added to every tools/list result: definitions a
	// go-sdk server refuses to register.
	extraTools []json.RawMessage
}

type draftRequest struct {
	header http.Header
	method string
	params json.RawMessage
}

func newDraftServer(t *testing.T, s *mcp.Server, configure func(*draftServer)) *draftServer {
	d := &draftServer{}
	if configure != nil {
		configure(d)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		json.Unmarshal(body, &msg)
		d.mu.Lock()
		lists := 0
		for _, q := range d.requests {
			if q.method == "tools/list" {
				lists++
			}
		}
		d.requests = append(d.requests, draftRequest{r.Header.Clone(), msg.Method, msg.Params})
		fail := d.failList && msg.Method == "tools/list" && lists > 0
		d.mu.Unlock()
		if fail {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		if msg.Method != "tools/list" || len(d.extraTools) == 0 {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var resp struct {
			JSONRPC string         `json:"jsonrpc"`
			ID      any            `json:"id"`
			Result  map[string]any `json:"result"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || resp.Result == nil {
			t.Errorf("tools/list answered %s", rec.Body)
			return
		}
		tools, _ := resp.Result["tools"].([]any)
		for _, x := range d.extraTools {
			tools = append(tools, x)
		}
		resp.Result["tools"] = tools
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	d.url = srv.URL
	return d
}

// calls returns the recorded requests of method.
func (d *draftServer) calls(method string) []draftRequest {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []draftRequest
	for _, q := range d.requests {
		if q.method == method {
			out = append(out, q)
		}
	}
	return out
}

func importDraft(t *testing.T, url string, opts *mcpadapter.ManagerOptions, srv mcpadapter.Upstream) (*registry.Registry, *adapter.Executor, *mcpadapter.Manager) {
	t.Helper()
	reg := registry.New()
	exec := adapter.NewExecutor(reg, nil)
	if opts == nil {
		opts = &mcpadapter.ManagerOptions{}
	}
	opts.Executor, opts.Strict = exec, true
	m := mcpadapter.NewManager(reg, opts)
	t.Cleanup(func() {
		m.Close()
		exec.Close()
	})
	srv.Name, srv.URL = "draft", url+"/mcp"
	if err := m.Connect(context.Background(), srv); err != nil {
		t.Fatal(err)
	}
	return reg, exec, m
}

func rawTool(s *mcp.Server, name string, schema string, h mcp.ToolHandler) {
	var in map[string]any
	if err := json.Unmarshal([]byte(schema), &in); err != nil {
		panic(err)
	}
	if h == nil {
		h = func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " ok"}}}, nil
		}
	}
	s.AddTool(&mcp.Tool{Name: name, InputSchema: in}, h)
}

const headerSchema = `{"type":"object","properties":{
	"region":{"type":"string","x-mcp-header":"Region"},
	"priority":{"type":"integer","x-mcp-header":"Priority"},
	"verbose":{"type":"boolean","x-mcp-header":"Verbose"},
	"label":{"type":"string","x-mcp-header":"Label"},
	"query":{"type":"string"}},"required":["region","query"]}`

// TestImportParamHeaders (http-custom-headers): a call of an imported tool
// mirrors its x-mcp-header parameters into Mcp-Param-* headers, encoded as
// SEP-2243 says (Base64 for what is not plain ASCII), omitting absent ones;
// the go-sdk server refuses a call whose headers do not match its body.
func TestImportParamHeaders(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "headers", Version: "v1"}, nil)
	rawTool(s, "query", headerSchema, nil)
	d := newDraftServer(t, s, nil)
	_, exec, _ := importDraft(t, d.url, nil, mcpadapter.Upstream{})

	for _, tc := range []struct {
		args string
		want map[string]string
	}{
		{`{"region":"us-west1","priority":42,"verbose":false,"label":" Hello, 世界","query":"SELECT 1"}`,
			map[string]string{"Region": "us-west1", "Priority": "42", "Verbose": "false", "Label": "=?base64?IEhlbGxvLCDkuJbnlYw=?="}},
		{`{"region":"eu","query":"SELECT 2"}`, map[string]string{"Region": "eu"}},
	} {
		res, err := exec.Call(context.Background(), "query", json.RawMessage(tc.args))
		if err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		if res.Text() != "query ok" {
			t.Errorf("%s: %q", tc.args, res.Text())
		}
		calls := d.calls("tools/call")
		h := calls[len(calls)-1].header
		got := map[string]string{}
		for k := range h {
			if name, ok := cutPrefixFold(k, "Mcp-Param-"); ok {
				got[name] = h.Get(k)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Mcp-Param headers %v, want %v", tc.args, got, tc.want)
		}
		if h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Name") != "query" {
			t.Errorf("%s: Mcp-Method %q, Mcp-Name %q", tc.args, h.Get("Mcp-Method"), h.Get("Mcp-Name"))
		}
	}
}

func cutPrefixFold(s, prefix string) (string, bool) {
	return strings.CutPrefix(http.CanonicalHeaderKey(s), prefix)
}

// TestImportParamHeadersAfterFailedRefresh: the headers come from the
// imported definition, not from go-sdk's cache of the last listing, which
// a refresh empties before it lists again: with the refresh failing, a
// call still carries them (and the server does not refuse it).
func TestImportParamHeadersAfterFailedRefresh(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "headers", Version: "v1"}, nil)
	rawTool(s, "query", headerSchema, nil)
	d := newDraftServer(t, s, func(d *draftServer) { d.failList = true })
	_, exec, _ := importDraft(t, d.url, nil, mcpadapter.Upstream{RefreshInterval: 20 * time.Millisecond})
	deadline := time.Now().Add(5 * time.Second)
	for len(d.calls("tools/list")) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := exec.Call(context.Background(), "query", json.RawMessage(`{"region":"us-west1","query":"SELECT 1"}`)); err != nil {
		t.Fatalf("a call after a failed refresh: %v", err)
	}
	calls := d.calls("tools/call")
	if got := calls[len(calls)-1].header.Get("Mcp-Param-Region"); got != "us-west1" {
		t.Errorf("Mcp-Param-Region = %q after a failed refresh, want us-west1", got)
	}
}

// TestImportSkipsInvalidHeaderTools (http-invalid-tool-headers): tools
// whose x-mcp-header annotations are invalid are left out; the valid ones
// are imported and callable, and a strict Connect does not fail over them.
func TestImportSkipsInvalidHeaderTools(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "invalid", Version: "v1"}, nil)
	rawTool(s, "valid_tool", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`, nil)
	invalid := map[string]string{
		"invalid_empty_header":  `{"type":"object","properties":{"v":{"type":"string","x-mcp-header":""}}}`,
		"invalid_object_header": `{"type":"object","properties":{"v":{"type":"object","x-mcp-header":"Data"}}}`,
		"invalid_number_header": `{"type":"object","properties":{"v":{"type":"number","x-mcp-header":"Score"}}}`,
		"invalid_duplicate":     `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}}}`,
		"invalid_space_in_name": `{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"My Region"}}}`,
		"invalid_non_ascii":     `{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"Régión"}}}`,
	}
	d := newDraftServer(t, s, func(d *draftServer) {
		for name, schema := range invalid {
			d.extraTools = append(d.extraTools, json.RawMessage(`{"name":"`+name+`","inputSchema":`+schema+`}`))
		}
	})
	reg, exec, _ := importDraft(t, d.url, nil, mcpadapter.Upstream{})
	var names []string
	for sp := range reg.List(registry.Filter{}) {
		names = append(names, sp.Name)
	}
	if !slices.Equal(names, []string{"valid_tool"}) {
		t.Errorf("imported %v, want only valid_tool", names)
	}
	if _, err := exec.Call(context.Background(), "valid_tool", json.RawMessage(`{"region":"us-west1"}`)); err != nil {
		t.Fatal(err)
	}
	for name := range invalid {
		if _, err := exec.Call(context.Background(), name, json.RawMessage(`{}`)); adapter.KindOf(err) != adapter.KindNotFound {
			t.Errorf("calling %s: %v, want not_found", name, err)
		}
	}
	for _, q := range d.calls("tools/call") {
		var p struct{ Name string }
		json.Unmarshal(q.params, &p)
		if p.Name != "valid_tool" {
			t.Errorf("the server was sent a call of %s", p.Name)
		}
	}
}

// TestImportRequestState (sep-2322-client-request-state): an
// input-required result is answered through the manager's elicitation port
// and retried with a new JSON-RPC id, its requestState echoed byte for
// byte; without one none is sent; another tool called in between carries
// neither input responses nor state.
func TestImportRequestState(t *testing.T) {
	const state = `{"nonce":"n-1","opaque":"  é\u0000 "}`
	var mu sync.Mutex
	var retries []*mcp.CallToolParamsRaw
	s := mcp.NewServer(&mcp.Implementation{Name: "mrtr", Version: "v1"}, nil)
	ask := func(withState bool) mcp.ToolHandler {
		return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.InputResponses == nil {
				res := &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Confirm?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"confirmed": map[string]any{"type": "boolean"}}}}}}
				if withState {
					res.RequestState = state
				}
				return res, nil
			}
			mu.Lock()
			retries = append(retries, req.Params)
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "confirmed"}}}, nil
		}
	}
	rawTool(s, "echo_state", `{"type":"object"}`, ask(true))
	rawTool(s, "no_state", `{"type":"object"}`, ask(false))
	rawTool(s, "unrelated", `{"type":"object"}`, nil)
	d := newDraftServer(t, s, nil)
	var asked []string
	_, exec, _ := importDraft(t, d.url, &mcpadapter.ManagerOptions{
		Elicitation: func(_ context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, server+": "+p.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirmed": true}}, nil
		}}, mcpadapter.Upstream{})
	for _, name := range []string{"echo_state", "unrelated", "no_state"} {
		res, err := exec.Call(context.Background(), name, json.RawMessage(`{}`))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := map[string]string{"unrelated": "unrelated ok"}[name]; want == "" && res.Text() != "confirmed" || want != "" && res.Text() != want {
			t.Errorf("%s answered %q", name, res.Text())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 {
		t.Errorf("the elicitation port was asked %v, want twice", asked)
	}
	if len(retries) != 2 || retries[0].RequestState != state || retries[1].RequestState != "" {
		t.Fatalf("retries %+v: want the state echoed exactly, then none", retries)
	}
	for _, r := range retries {
		if _, ok := r.InputResponses["confirm"]; !ok {
			t.Errorf("retry without the response to confirm: %+v", r.InputResponses)
		}
	}
	for _, q := range d.calls("tools/call") {
		var p struct {
			Name           string          `json:"name"`
			InputResponses json.RawMessage `json:"inputResponses"`
			RequestState   *string         `json:"requestState"`
		}
		json.Unmarshal(q.params, &p)
		if p.Name == "unrelated" && (p.InputResponses != nil || p.RequestState != nil) {
			t.Errorf("the unrelated call carried another call's input: %s", q.params)
		}
	}
	if n := len(d.calls("tools/call")); n != 5 {
		t.Errorf("%d tools/call requests, want 5 (two asked, two retried, one plain)", n)
	}
}

// TestImportPreservesSchema2020 (json-schema-2020-12-preservation): an
// imported tool's input schema keeps every 2020-12 keyword the server
// sent ($schema, $defs, $anchor, $ref, allOf/anyOf, if/then/else,
// additionalProperties, unknown keywords).
func TestImportPreservesSchema2020(t *testing.T) {
	const schema = `{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"$defs": {"address": {"$anchor": "addr", "type": "object", "properties": {"street": {"type": "string"}}, "additionalProperties": false}},
		"properties": {
			"home": {"$ref": "#/$defs/address"},
			"kind": {"type": "string", "enum": ["a", "b"]},
			"n": {"anyOf": [{"type": "integer"}, {"type": "string"}]}
		},
		"allOf": [{"required": ["kind"]}],
		"if": {"properties": {"kind": {"const": "a"}}},
		"then": {"required": ["home"]},
		"else": {"required": ["n"]},
		"additionalProperties": false,
		"x-vendor": {"keep": true}
	}`
	s := mcp.NewServer(&mcp.Implementation{Name: "schema", Version: "v1"}, nil)
	rawTool(s, "json_schema_2020_12_tool", schema, nil)
	d := newDraftServer(t, s, nil)
	reg, exec, _ := importDraft(t, d.url, nil, mcpadapter.Upstream{})
	sp, ok := reg.Lookup("json_schema_2020_12_tool")
	if !ok {
		t.Fatal("not imported")
	}
	got, err := json.Marshal(sp.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	json.Unmarshal(got, &g)
	json.Unmarshal([]byte(schema), &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("imported input schema\n%s\nwant\n%s", got, schema)
	}
	// The schema is the one enforced: if/then/else holds.
	if _, err := exec.Call(context.Background(), "json_schema_2020_12_tool", json.RawMessage(`{"kind":"a"}`)); adapter.KindOf(err) != adapter.KindArgsInvalid {
		t.Errorf("kind a without home: %v, want args_invalid", err)
	}
	if _, err := exec.Call(context.Background(), "json_schema_2020_12_tool", json.RawMessage(`{"kind":"a","home":{"street":"x"}}`)); err != nil {
		t.Errorf("a valid call: %v", err)
	}
}
