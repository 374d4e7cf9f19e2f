package toolsearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/toolsearch"
)

// fixture is a registry with the real tools plus a few local ones, an
// index, an executor with a real ledger, a deferred approver and a cache,
// and the meta-tools for a caller who may not see the "secret" tag.
type fixture struct {
	reg    *registry.Registry
	ix     *toolsearch.Index
	exec   *adapter.Executor
	led    *ledger.Memory
	appr   *approval.Deferred
	meta   map[string]*adapter.Spec
	policy registry.Filter
	runs   atomic.Int64 // calls of the local handlers
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{led: ledger.NewMemory(0), appr: &approval.Deferred{}}
	no := false
	local := func(name, desc string, a adapter.Annotations, tags ...string) *adapter.Spec {
		s, err := adapter.NewRawTool(name, desc, &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"city": {Type: "string", Description: "the city"}}},
			func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
				f.runs.Add(1)
				return adapter.TextResult(name + " " + string(args)), nil
			}, &adapter.ToolOptions{Annotations: a, Tags: tags, HonorsContext: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	safe := adapter.Annotations{ReadOnly: true, OpenWorld: &no}
	f.reg = registry.New()
	f.reg.MustRegister(realSpecs(t)...)
	f.reg.MustRegister(
		local("weather_forecast", "Forecast the weather of a city for the coming days.", safe),
		local("launch_rocket", "Launch the rocket to a city (destructive).", adapter.Annotations{OpenWorld: &no}),
		local("payroll_export", "Export the weather payroll of a city, salaries included.", safe, "secret"),
	)
	var err error
	if f.ix, err = toolsearch.New(f.reg, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.ix.Close)
	f.exec = adapter.NewExecutor(f.reg, &adapter.ExecutorOptions{
		Ledger:   f.led,
		Approval: adapter.ApprovalOptions{Port: f.appr},
		Cache:    &adapter.CacheOptions{Tools: map[string]time.Duration{"weather_forecast": time.Minute}},
	})
	t.Cleanup(func() { f.exec.Close() })
	f.policy = registry.Filter{Func: func(s *adapter.Spec) bool { return !s.HasTag("secret") }}
	f.meta = map[string]*adapter.Spec{}
	for _, s := range f.ix.Tools(&toolsearch.ToolsOptions{Filter: f.policy}) {
		f.meta[s.Name] = s
	}
	return f
}

// do runs a call of spec through the executor, as an integration would.
func (f *fixture) do(ctx context.Context, spec *adapter.Spec, args string, ticket string) (*adapter.Result, error) {
	return f.exec.Do(ctx, &adapter.Request{Spec: spec, Args: json.RawMessage(args), Integration: "test", Ticket: ticket})
}

func (f *fixture) search(t *testing.T, query string) []string {
	t.Helper()
	res, err := f.do(context.Background(), f.meta[toolsearch.SearchToolsName], `{"query":`+quote(query)+`}`, "")
	if err != nil {
		t.Fatalf("search_tools %q: %v", query, err)
	}
	var out toolsearch.SearchResult
	if err := json.Unmarshal([]byte(res.Text()), &out); err != nil {
		t.Fatalf("search_tools text is not its JSON: %v\n%s", err, res.Text())
	}
	st, ok := res.Structured.(toolsearch.SearchResult)
	if !ok || len(st.Tools) != len(out.Tools) {
		t.Fatalf("structured content %T does not match the text", res.Structured)
	}
	var names []string
	for _, tl := range out.Tools {
		if tl.Description == "" && tl.Name != "" {
			// every fixture tool has a description
			t.Errorf("%s: no description in the result", tl.Name)
		}
		names = append(names, tl.Name)
	}
	return names
}

func (f *fixture) records(t *testing.T) []ledger.Record {
	t.Helper()
	if err := f.exec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return f.led.Records()
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestSearchThenCall: search_tools finds a tool, call_tool runs it; the
// ledger holds search_tools and the tool itself, under its own name, and
// no call_tool record.
func TestSearchThenCall(t *testing.T) {
	f := newFixture(t)
	found := f.search(t, "weather forecast for a city")
	if len(found) == 0 || found[0] != "weather_forecast" {
		t.Fatalf("search found %v, want weather_forecast first", found)
	}
	res, err := f.do(context.Background(), f.meta[toolsearch.CallToolName], `{"name":"weather_forecast","arguments":{"city":"Oslo"}}`, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Text(); got != `weather_forecast {"city":"Oslo"}` {
		t.Errorf("call_tool result %q", got)
	}
	var tools []string
	for _, r := range f.records(t) {
		tools = append(tools, r.Tool+":"+r.Outcome)
	}
	if want := []string{"search_tools:ok", "weather_forecast:ok"}; !slices.Equal(tools, want) {
		t.Errorf("ledger records %v, want %v", tools, want)
	}
}

// TestCallToolAsDirect: through call_tool a tool gets the executor's
// policy as a direct call does: its arguments are validated against its
// own schema, a destructive tool is held for approval and runs once the
// ticket is approved and presented, the cache is shared with direct calls,
// and a run limit counts the call once.
func TestCallToolAsDirect(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	call := f.meta[toolsearch.CallToolName]

	_, err := f.do(ctx, call, `{"name":"weather_forecast","arguments":{"city":7}}`, "")
	if !errors.Is(err, adapter.ErrArgsInvalid) {
		t.Errorf("bad arguments through call_tool: %v, want args_invalid", err)
	}

	_, err = f.do(ctx, call, `{"name":"launch_rocket","arguments":{"city":"Oslo"}}`, "")
	var ae *adapter.Error
	if !errors.As(err, &ae) || ae.Kind != adapter.KindApprovalPending || ae.Tool != "launch_rocket" {
		t.Fatalf("destructive tool through call_tool: %v, want approval_pending for launch_rocket", err)
	}
	if err := f.appr.Approve(ctx, ae.Ticket, "operator"); err != nil {
		t.Fatal(err)
	}
	before := f.runs.Load()
	if _, err := f.do(ctx, call, `{"name":"launch_rocket","arguments":{"city":"Oslo"}}`, ae.Ticket); err != nil {
		t.Fatalf("approved call through call_tool: %v", err)
	}
	if f.runs.Load() != before+1 {
		t.Errorf("approved call ran %d times", f.runs.Load()-before)
	}

	before = f.runs.Load()
	if _, err := f.exec.Call(ctx, "weather_forecast", json.RawMessage(`{"city":"Rome"}`)); err != nil {
		t.Fatal(err)
	}
	res, err := f.do(ctx, call, `{"name":"weather_forecast","arguments":{"city":"Rome"}}`, "")
	if err != nil || f.runs.Load() != before+1 {
		t.Errorf("a direct call then the same through call_tool ran the handler %d times (err %v), want once (a cache hit)", f.runs.Load()-before, err)
	}
	_ = res

	rctx, _ := adapter.WithRun(ctx, &adapter.RunOptions{Limits: adapter.Limits{MaxCalls: 2}})
	for i := range 3 {
		_, err := f.do(rctx, call, `{"name":"weather_forecast","arguments":{"city":"Bern"}}`, "")
		if i < 2 && err != nil {
			t.Fatalf("call %d within the run limit: %v", i+1, err)
		}
		if i == 2 && !errors.As(err, &ae) || i == 2 && ae.Kind != adapter.KindRunLimitExceeded {
			t.Errorf("third call of a run limited to 2: %v, want run_limit_exceeded", err)
		}
	}

	var recs []string
	for _, r := range f.records(t) {
		if r.Tool == toolsearch.CallToolName {
			t.Errorf("a record under call_tool: %+v", r)
		}
		recs = append(recs, r.Tool+":"+r.Outcome)
	}
	want := []string{
		"weather_forecast:args_invalid",
		"launch_rocket:approval_pending", "launch_rocket:ok",
		"weather_forecast:ok", "weather_forecast:ok",
		"weather_forecast:ok", "weather_forecast:ok", "weather_forecast:run_limit_exceeded",
	}
	if !slices.Equal(recs, want) {
		t.Errorf("ledger\n got %v\nwant %v", recs, want)
	}
}

// TestPolicyBeforeResults: a tool the caller's filter denies and a tool
// held in quarantine (a new tool of an untrusted server is not registered
// until accepted, as mcpadapter does) are absent from search results and
// answered by call_tool as unknown tools; once accepted, the held tool is
// found and callable.
func TestPolicyBeforeResults(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	call := f.meta[toolsearch.CallToolName]

	// Denied: payroll_export matches the query best but carries "secret".
	if hits, _ := f.ix.Search(ctx, "export payroll salaries", 5, nil); len(hits) == 0 || hits[0].Spec.Name != "payroll_export" {
		t.Fatalf("without a policy the query finds %v first, want payroll_export", hits)
	}
	if found := f.search(t, "export payroll salaries"); slices.Contains(found, "payroll_export") {
		t.Errorf("search_tools returned the denied tool: %v", found)
	}
	hits, err := f.ix.Search(ctx, "export payroll salaries", 50, f.policy.Match)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Spec.Name == "payroll_export" {
			t.Errorf("Search returned the denied tool")
		}
	}
	_, err = f.do(ctx, call, `{"name":"payroll_export","arguments":{"city":"Oslo"}}`, "")
	assertUnknown(t, err, "payroll_export")
	unknown := adapter.UnknownTool("payroll_export")
	got, _ := adapter.ModelPayload(err)
	want, _ := adapter.ModelPayload(unknown)
	if got != want {
		t.Errorf("payload of a denied tool\n got %s\nwant %s (an unknown tool's)", got, want)
	}

	// Quarantined: held, not registered.
	held := &adapter.Spec{Name: "exfiltrate_weather", Description: "Send the weather of a city to a remote host.",
		InputSchema: &jsonschema.Schema{Type: "object"}, Source: adapter.Source{Server: "untrusted", RemoteName: "exfiltrate_weather"},
		Handler: echoHandler}
	if found := f.search(t, "exfiltrate weather remote host"); slices.Contains(found, held.Name) {
		t.Errorf("search found a tool held in quarantine: %v", found)
	}
	_, err = f.do(ctx, call, `{"name":"exfiltrate_weather","arguments":{}}`, "")
	assertUnknown(t, err, held.Name)

	// Accepted: the manager adds it to the registry.
	if err := f.reg.Update(registry.Change{Op: registry.Added, New: held}); err != nil {
		t.Fatal(err)
	}
	if found := f.search(t, "exfiltrate weather remote host"); len(found) == 0 || found[0] != held.Name {
		t.Errorf("after accept, search found %v, want %s first", found, held.Name)
	}
	// An untrusted server's tool is destructive for the executor's policy.
	_, err = f.do(ctx, call, `{"name":"exfiltrate_weather","arguments":{}}`, "")
	if ae := (*adapter.Error)(nil); !errors.As(err, &ae) || ae.Kind != adapter.KindApprovalPending || ae.Tool != held.Name {
		t.Errorf("after accept, call_tool: %v, want approval_pending naming %s", err, held.Name)
	}

	// The meta-tools are never found nor called through call_tool.
	if found := f.search(t, "search tools call tool"); slices.Contains(found, toolsearch.CallToolName) || slices.Contains(found, toolsearch.SearchToolsName) {
		t.Errorf("search found a meta-tool: %v", found)
	}
	f.reg.MustRegister(f.ix.Tools(nil)...)
	if found := f.search(t, "search the available tools by what they do"); slices.Contains(found, toolsearch.SearchToolsName) {
		t.Errorf("search found a registered meta-tool: %v", found)
	}
	_, err = f.do(ctx, call, `{"name":"call_tool","arguments":{"name":"weather_forecast"}}`, "")
	assertUnknown(t, err, "call_tool")
}

func assertUnknown(t *testing.T, err error, name string) {
	t.Helper()
	var ae *adapter.Error
	if !errors.As(err, &ae) || ae.Kind != adapter.KindNotFound || ae.Tool != name {
		t.Errorf("call_tool of %s: %v, want not_found naming it", name, err)
	}
}

// TestFollowsRegistry: a tool added, replaced and removed is found, found
// by its new text and gone, as soon as the registry call returns.
func TestFollowsRegistry(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(realSpecs(t)...)
	ix, err := toolsearch.New(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	first := func(q string) string {
		hits, err := ix.Search(ctx, q, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			return ""
		}
		return hits[0].Spec.Name
	}
	s := &adapter.Spec{Name: "tide_table", Description: "Tide times of a harbour.", InputSchema: &jsonschema.Schema{Type: "object"}, Handler: echoHandler}
	reg.MustRegister(s)
	if got := first("harbour tide times"); got != "tide_table" {
		t.Errorf("after Register: %q", got)
	}
	r := &adapter.Spec{Name: "tide_table", Description: "Moon phases.", InputSchema: &jsonschema.Schema{Type: "object"}, Handler: echoHandler}
	if err := reg.Replace(r); err != nil {
		t.Fatal(err)
	}
	if got := first("harbour"); got != "" {
		t.Errorf("after Replace, the old text still finds %q", got)
	}
	if got := first("moon phases"); got != "tide_table" {
		t.Errorf("after Replace, the new text finds %q", got)
	}
	if err := reg.Unregister("tide_table"); err != nil {
		t.Fatal(err)
	}
	if got := first("moon phases"); got != "" {
		t.Errorf("after Unregister: %q", got)
	}
	ix.Close()
	if _, err := ix.Search(ctx, "moon", 1, nil); !errors.Is(err, toolsearch.ErrClosed) {
		t.Errorf("Search after Close: %v", err)
	}
	reg.MustRegister(s) // no listener left to panic or block
}

// TestSearchBounds: limits, long queries, queries of no words, order.
func TestSearchBounds(t *testing.T) {
	_, ix := newIndex(t, realSpecs(t))
	ctx := context.Background()
	if _, err := ix.Search(ctx, strings.Repeat("a", toolsearch.MaxQueryBytes+1), 5, nil); !errors.Is(err, toolsearch.ErrQueryTooLong) {
		t.Errorf("long query: %v", err)
	}
	if hits, err := ix.Search(ctx, "the of a !!!", 5, nil); err != nil || len(hits) != 0 {
		t.Errorf("a query of stop words: %v, %v", hits, err)
	}
	hits, err := ix.Search(ctx, "file", 1000, nil)
	if err != nil || len(hits) == 0 || len(hits) > toolsearch.MaxLimit {
		t.Fatalf("limit 1000: %d hits, %v", len(hits), err)
	}
	for i := 1; i < len(hits); i++ {
		a, b := hits[i-1], hits[i]
		if a.Score < b.Score || a.Score == b.Score && a.Spec.Name > b.Spec.Name {
			t.Errorf("hits %d and %d out of order: %s %v, %s %v", i-1, i, a.Spec.Name, a.Score, b.Spec.Name, b.Score)
		}
	}
	if hits, _ := ix.Search(ctx, "file", 0, nil); len(hits) != toolsearch.DefaultLimit {
		t.Errorf("limit 0: %d hits, want %d", len(hits), toolsearch.DefaultLimit)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ix.Search(cctx, "file", 5, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled search: %v", err)
	}
	f := newFixture(t)
	for _, args := range []string{`{"query":7}`, `{"query":"x","limit":0}`, `{"query":"x","limit":51}`, `{}`} {
		if _, err := f.do(ctx, f.meta[toolsearch.SearchToolsName], args, ""); !errors.Is(err, adapter.ErrArgsInvalid) {
			t.Errorf("search_tools %s: %v, want args_invalid", args, err)
		}
	}
	for _, args := range []string{`{"name":7}`, `{"arguments":{}}`, `{"name":"weather_forecast","arguments":[1]}`, `[]`, `{"name":"x"} {"name":"y"}`} {
		if _, err := f.do(ctx, f.meta[toolsearch.CallToolName], args, ""); !errors.Is(err, adapter.ErrArgsInvalid) {
			t.Errorf("call_tool %s: %v, want args_invalid", args, err)
		}
	}
}
