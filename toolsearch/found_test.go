package toolsearch_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/toolsearch"
)

func names(specs []*adapter.Spec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// TestAlways: the always-loaded tools come after the meta-tools, in the
// registry's order, patterns included; a denied one is never returned;
// Deferred adds the rest the filter admits after them.
func TestAlways(t *testing.T) {
	f := newFixture(t)
	opts := &toolsearch.ToolsOptions{Filter: f.policy, Always: []string{"weather_forecast", "payroll_*", "echo", "no_such_tool"}}
	got := names(f.ix.Tools(opts))
	if want := []string{"call_tool", "search_tools", "echo", "weather_forecast"}; !slices.Equal(got, want) {
		t.Errorf("Tools with Always: %v, want %v (payroll_export is denied)", got, want)
	}
	// A malformed pattern matches only itself, literally.
	if got := names(f.ix.Tools(&toolsearch.ToolsOptions{Always: []string{"[", "weather_[", "\\"}})); len(got) != 2 {
		t.Errorf("malformed patterns loaded %v", got)
	}
	opts.Deferred = true
	all := names(f.ix.Tools(opts))
	if !slices.Equal(all[:4], got) || slices.Contains(all, "payroll_export") || !slices.Contains(all, "launch_rocket") {
		t.Fatalf("Deferred: %v", all)
	}
	if n := len(realSpecs(t)) + 2 + 2; len(all) != n { // the real tools, two local ones allowed, two meta-tools
		t.Errorf("Deferred returned %d tools, want %d", len(all), n)
	}
	if slices.Compare(names(f.ix.Tools(opts)), all) != 0 {
		t.Error("Tools' order changes from call to call")
	}
}

// TestDirectCopiesFollowPolicy: an always-loaded tool runs as a direct
// call (one record under its name); once the registry drops it, or the
// per-call policy denies it, its copy answers not_found.
func TestDirectCopiesFollowPolicy(t *testing.T) {
	f := newFixture(t)
	opts := &toolsearch.ToolsOptions{Filter: f.policy, Always: []string{"weather_forecast"},
		Allowed: func(ctx context.Context, s *adapter.Spec) bool {
			id := caller.IdentityFrom(ctx)
			return id == nil || id.Subject != "mallory"
		}}
	wf := f.ix.Tools(opts)[2]
	ctx := context.Background()
	if res, err := f.do(ctx, wf, `{"city":"Oslo"}`, ""); err != nil || res.Text() != `weather_forecast {"city":"Oslo"}` {
		t.Fatalf("always-loaded call: %v %v", res, err)
	}
	mctx := caller.WithIdentity(ctx, &caller.Identity{Subject: "mallory"})
	if _, err := f.do(mctx, wf, `{"city":"Oslo"}`, ""); !errors.Is(err, adapter.ErrNotFound) {
		t.Errorf("a call the per-call policy denies: %v, want not_found", err)
	}
	if f.ix.Loaded(mctx, opts)("weather_forecast") {
		t.Error("Loaded sends a tool the per-call policy denies")
	}
	f.reg.Unregister("weather_forecast")
	if _, err := f.do(ctx, wf, `{"city":"Oslo"}`, ""); !errors.Is(err, adapter.ErrNotFound) {
		t.Errorf("a call of an unregistered (quarantined) tool: %v, want not_found", err)
	}
	var tools []string
	for _, r := range f.records(t) {
		tools = append(tools, r.Tool+":"+r.Outcome)
	}
	if want := []string{"weather_forecast:ok", "weather_forecast:not_found", "weather_forecast:not_found"}; !slices.Equal(tools, want) {
		t.Errorf("records %v, want %v", tools, want)
	}
}

// TestLoaded: within a run, the tools a search returned are loaded on
// later turns, the rest are not; another run, or a call outside any run,
// has found nothing; a found tool unregistered or denied is not loaded.
func TestLoaded(t *testing.T) {
	f := newFixture(t)
	opts := &toolsearch.ToolsOptions{Filter: f.policy, Always: []string{"echo"}, Deferred: true}
	meta := f.ix.Tools(opts)
	search := meta[1]
	ctx, _ := adapter.WithRun(context.Background(), nil)
	keep := f.ix.Loaded(ctx, opts)
	var before []string
	for _, s := range meta {
		if keep(s.Name) {
			before = append(before, s.Name)
		}
	}
	if want := []string{"call_tool", "search_tools", "echo"}; !slices.Equal(before, want) {
		t.Fatalf("loaded before any search: %v, want %v", before, want)
	}
	if _, err := f.do(ctx, search, `{"query":"weather forecast payroll","limit":2}`, ""); err != nil {
		t.Fatal(err)
	}
	found := f.ix.Found(ctx)
	if !slices.Contains(found, "weather_forecast") || slices.Contains(found, "payroll_export") {
		t.Fatalf("found %v: want weather_forecast and never the denied payroll_export", found)
	}
	keep = f.ix.Loaded(ctx, opts)
	if !keep("weather_forecast") || keep("payroll_export") || keep("launch_rocket") {
		t.Errorf("after the search: weather_forecast %v, payroll_export %v, launch_rocket %v; want true, false, false",
			keep("weather_forecast"), keep("payroll_export"), keep("launch_rocket"))
	}
	other, _ := adapter.WithRun(context.Background(), nil)
	if f.ix.Loaded(other, opts)("weather_forecast") || len(f.ix.Found(other)) != 0 {
		t.Error("another run sees this run's found tools")
	}
	if _, err := f.do(context.Background(), search, `{"query":"rocket"}`, ""); err != nil {
		t.Fatal(err)
	}
	if f.ix.Loaded(context.Background(), opts)("launch_rocket") {
		t.Error("a search outside any run loaded a tool")
	}
	f.reg.Unregister("weather_forecast")
	if f.ix.Loaded(ctx, opts)("weather_forecast") {
		t.Error("a found tool since unregistered is still loaded")
	}
	// A denial by the filter, after the tool was found, holds too.
	strict := *opts
	strict.Filter = registry.Filter{Func: func(s *adapter.Spec) bool { return s.Name != "echo" }}
	if f.ix.Loaded(ctx, &strict)("echo") {
		t.Error("an always-loaded tool the filter denies is loaded")
	}
}

// TestFoundBounded: a run remembers at most MaxFound names, the latest,
// and its record goes with the run.
func TestFoundBounded(t *testing.T) {
	f := newFixture(t)
	search := f.meta[toolsearch.SearchToolsName]
	n := toolsearch.MaxFound + 20
	for i := range n {
		w := fmt.Sprintf("zq%03d", i)
		f.reg.MustRegister(&adapter.Spec{Name: "bulk_" + w, Description: "Bulk " + w + ".", InputSchema: &jsonschema.Schema{Type: "object"}, Handler: echoHandler})
	}
	ctx, _ := adapter.WithRun(context.Background(), nil)
	for i := range n {
		if _, err := f.do(ctx, search, fmt.Sprintf(`{"query":"zq%03d","limit":1}`, i), ""); err != nil {
			t.Fatal(err)
		}
	}
	got := f.ix.Found(ctx)
	if len(got) != toolsearch.MaxFound || got[0] != "bulk_zq020" || got[len(got)-1] != fmt.Sprintf("bulk_zq%03d", n-1) {
		t.Fatalf("found %d names (%s … %s), want the latest %d", len(got), got[0], got[len(got)-1], toolsearch.MaxFound)
	}
	// A run dropped is forgotten: the index holds no reference to it.
	func() {
		c, _ := adapter.WithRun(context.Background(), nil)
		if _, err := f.do(c, search, `{"query":"weather"}`, ""); err != nil {
			t.Fatal(err)
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		if n := toolsearch.FoundRuns(f.ix); n == 1 || time.Now().After(deadline) {
			if n != 1 {
				t.Errorf("%d runs remembered, want 1 (the live one)", n)
			}
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(ctx)
}

// BenchmarkLoaded: one turn's narrowing of 10,000 deferred definitions,
// 50 of them found.
func BenchmarkLoaded(b *testing.B) {
	specs := nearDuplicates(b, 10000)
	_, ix := newIndex(b, specs)
	opts := &toolsearch.ToolsOptions{Always: []string{"echo"}, Deferred: true}
	all := ix.Tools(opts)
	ctx, _ := adapter.WithRun(context.Background(), nil)
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	if _, err := exec.Do(ctx, &adapter.Request{Spec: all[1], Args: []byte(`{"query":"read file","limit":50}`)}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		keep := ix.Loaded(ctx, opts)
		n := 0
		for _, s := range all {
			if keep(s.Name) {
				n++
			}
		}
		if n < 50 {
			b.Fatalf("%d loaded", n)
		}
	}
}

// TestFoundSoFarTokens reports the definition tokens (bytes/4) a model is
// sent in the found-so-far mode: turn one (the meta-tools and one
// always-loaded tool), then after a search of 5 (those found too), against
// every definition flat.
func TestFoundSoFarTokens(t *testing.T) {
	for _, n := range []int{0, 10000} {
		specs := realSpecs(t)
		if n > 0 {
			specs = nearDuplicates(t, n)
		}
		_, ix := newIndex(t, specs)
		opts := &toolsearch.ToolsOptions{Always: []string{"echo"}, Deferred: true}
		all := ix.Tools(opts)
		ctx, _ := adapter.WithRun(context.Background(), nil)
		sent := func() int {
			keep, size := ix.Loaded(ctx, opts), 0
			for _, s := range all {
				if keep(s.Name) {
					size += len(definition(s))
				}
			}
			return size / 4
		}
		flat := 0
		for _, s := range all[2:] {
			flat += len(definition(s))
		}
		turn1 := sent()
		exec := adapter.NewExecutor(nil, nil)
		if _, err := exec.Do(ctx, &adapter.Request{Spec: all[1], Args: []byte(`{"query":"read a file"}`)}); err != nil {
			t.Fatal(err)
		}
		exec.Close()
		turn2 := sent()
		t.Logf("%d tools: flat %d tokens per turn; found so far: turn 1 %d, after one search of 5: %d (bytes/4)", len(all)-2, flat/4, turn1, turn2)
		if turn1 >= turn2 || turn2 >= flat/4 {
			t.Errorf("turn 1 %d, turn 2 %d, flat %d", turn1, turn2, flat/4)
		}
	}
}
