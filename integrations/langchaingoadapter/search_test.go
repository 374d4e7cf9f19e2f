package langchaingoadapter_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/kit"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
	"github.com/agentadapter/agentadapter/internal/searchtest"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/toolsearch"
)

// The catalog, policy and readers every integration's search tests share
// (internal/searchtest).
var (
	searchCatalog = searchtest.Catalog
	notSecret     = searchtest.Policy
	toolRecords   = searchtest.Records
	foundNames    = searchtest.Found
)

// searchTurns are the model's turns: search for query, then call the
// first tool found that want admits (through call_tool, or directly when
// direct) with args, then answer with what it read. The calls are in the
// functions agent's {"__arg1": ...} wrapper.
func searchTurns(t *testing.T, query string, want func(string) bool, args string, direct bool) []turn {
	arg1 := func(s string) string { return `{"__arg1": ` + s + `}` }
	return []turn{
		callTools(toolCall("s1", toolsearch.SearchToolsName, arg1(`{"query":`+jsonString(query)+`,"limit":5}`))),
		func(msgs []llms.MessageContent, _ llms.CallOptions) *llms.ContentResponse {
			pick := ""
			for _, n := range foundNames(t, lastToolContent(msgs)) {
				if want(n) {
					pick = n
					break
				}
			}
			c := toolCall("c1", toolsearch.CallToolName, arg1(`{"name":`+jsonString(pick)+`,"arguments":`+args+`}`))
			if direct {
				c = toolCall("c1", pick, arg1(args))
			}
			return callTools(c)(msgs, llms.CallOptions{})
		},
		answerWithLastTool("done: "),
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func functionNames(o llms.CallOptions) []string {
	var out []string
	for _, f := range o.Functions {
		out = append(out, f.Name)
	}
	for _, t := range o.Tools {
		if t.Function != nil {
			out = append(out, t.Function.Name)
		}
	}
	return out
}

type searchEnv struct {
	reg  *registry.Registry
	ran  *atomic.Int64
	ix   *toolsearch.Index
	exec *adapter.Executor
	led  *ledger.Memory
}

func newSearchEnv(t *testing.T, port adapter.ApprovalPort) *searchEnv {
	t.Helper()
	e := &searchEnv{led: ledger.NewMemory(0)}
	e.reg, e.ran = searchCatalog(t)
	var err error
	if e.ix, err = toolsearch.New(e.reg, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.ix.Close)
	e.exec = adapter.NewExecutor(e.reg, &adapter.ExecutorOptions{Ledger: e.led, Approval: adapter.ApprovalOptions{Port: port}})
	t.Cleanup(func() { e.exec.Close() })
	return e
}

func (e *searchEnv) tools(t *testing.T, opts *toolsearch.ToolsOptions) []tools.Tool {
	t.Helper()
	var out []tools.Tool
	for _, s := range e.ix.Tools(opts) {
		tl, err := lca.NewTool(s, e.exec, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tl)
	}
	return out
}

// TestSearchFunctionsAgent: langchaingo's OpenAIFunctionsAgent run by its
// agents executor, sent only the meta-tools, searches, picks a found tool
// and calls it through call_tool: one ledger record under the real tool's
// name with the model's arguments, none under call_tool; a destructive
// tool reached through call_tool asks the approval port as a direct call
// does (denied here: it never runs); a denied tool is never found and
// call_tool answers it not_found.
func TestSearchFunctionsAgent(t *testing.T) {
	opts := &toolsearch.ToolsOptions{Filter: kit.Filter(notSecret, lca.Integration)}
	ctx := context.Background()
	t.Run("call", func(t *testing.T) {
		e := newSearchEnv(t, nil)
		m := &scriptedModel{turns: searchTurns(t, "weather forecast for a city", func(string) bool { return true }, `{"city":"Oslo"}`, false)}
		out, err := lca.Run(ctx, agents.NewExecutor(agents.NewOpenAIFunctionsAgent(m, e.tools(t, opts))), "weather in Oslo?", nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := `done: weather_forecast ran with {"city":"Oslo"}`; out != want {
			t.Errorf("answer %q, want %q", out, want)
		}
		if got := functionNames(m.opts[0]); !slices.Equal(got, []string{"call_tool", "search_tools"}) {
			t.Errorf("the model was sent %v, want the two meta-tools", got)
		}
		if got, want := toolRecords(t, e.exec, e.led), []string{"search_tools:ok", "weather_forecast:ok"}; !slices.Equal(got, want) {
			t.Errorf("ledger %v, want %v", got, want)
		}
		if r := e.led.Records()[1]; string(r.Args) != `{"city":"Oslo"}` {
			t.Errorf("the record's args %s", r.Args)
		}
	})
	t.Run("approval", func(t *testing.T) {
		var mu sync.Mutex
		var asked []string
		port := adapter.ApprovalFunc(func(_ context.Context, req *adapter.ApprovalRequest) (adapter.Decision, error) {
			mu.Lock()
			asked = append(asked, req.Tool+" "+string(req.Args))
			mu.Unlock()
			return adapter.Decision{Verdict: adapter.VerdictDenied, Reason: "not today"}, nil
		})
		e := newSearchEnv(t, port)
		m := &scriptedModel{turns: searchTurns(t, "launch the rocket", func(n string) bool { return n == "launch_rocket" }, `{"city":"Oslo"}`, false)}
		out, err := lca.Run(ctx, agents.NewExecutor(agents.NewOpenAIFunctionsAgent(m, e.tools(t, opts))), "launch", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(asked, []string{`launch_rocket {"city":"Oslo"}`}) || e.ran.Load() != 0 {
			t.Errorf("approval asked %v, ran %d: want launch_rocket asked once, never run", asked, e.ran.Load())
		}
		if !strings.Contains(out, `"kind":"approval_denied"`) || !strings.Contains(out, `"tool":"launch_rocket"`) {
			t.Errorf("the model read %q, want approval_denied for launch_rocket", out)
		}
		if got, want := toolRecords(t, e.exec, e.led), []string{"search_tools:ok", "launch_rocket:approval_denied"}; !slices.Equal(got, want) {
			t.Errorf("ledger %v, want %v", got, want)
		}
	})
	t.Run("denied", func(t *testing.T) {
		e := newSearchEnv(t, nil)
		var read []string
		m := &scriptedModel{turns: []turn{
			callTools(toolCall("s1", "search_tools", `{"__arg1": {"query":"payroll weather of a city","limit":50}}`)),
			func(msgs []llms.MessageContent, _ llms.CallOptions) *llms.ContentResponse {
				read = foundNames(t, lastToolContent(msgs))
				return callTools(toolCall("c1", "call_tool", `{"__arg1": {"name":"payroll_export","arguments":{"city":"Oslo"}}}`))(msgs, llms.CallOptions{})
			},
			answerWithLastTool(""),
		}}
		out, err := lca.Run(ctx, agents.NewExecutor(agents.NewOpenAIFunctionsAgent(m, e.tools(t, opts))), "payroll", nil)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(read, "payroll_export") || len(read) == 0 {
			t.Errorf("search found %v: want results, never payroll_export", read)
		}
		if !strings.Contains(out, `"kind":"not_found"`) || e.ran.Load() != 0 {
			t.Errorf("call_tool of a denied tool: %q (ran %d), want not_found", out, e.ran.Load())
		}
	})
}

// TestSearchFunctionsAgentFoundSoFar: with the found-so-far model wrapper,
// turn one sends the meta-tools and the always-loaded tool; after the
// search, the tools found too, and the model calls one directly; a tool
// not found is never sent.
func TestSearchFunctionsAgentFoundSoFar(t *testing.T) {
	e := newSearchEnv(t, nil)
	opts := &toolsearch.ToolsOptions{Filter: kit.Filter(notSecret, lca.Integration), Always: []string{"echo"}, Deferred: true}
	tls := e.tools(t, opts)
	m := &scriptedModel{turns: searchTurns(t, "weather forecast payroll", func(string) bool { return true }, `{"city":"Oslo"}`, true)}
	ctx, _ := adapter.WithRun(context.Background(), nil)
	agent := agents.NewOpenAIFunctionsAgent(&foundSoFar{Model: m, ix: e.ix, opts: opts}, tls)
	out, err := lca.Run(ctx, agents.NewExecutor(agent), "weather in Oslo?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := `done: weather_forecast ran with {"city":"Oslo"}`; out != want {
		t.Errorf("answer %q, want %q", out, want)
	}
	if len(m.opts) != 3 || len(tls) < 70 {
		t.Fatalf("%d turns, %d tools", len(m.opts), len(tls))
	}
	if got, want := functionNames(m.opts[0]), []string{"call_tool", "search_tools", "echo"}; !slices.Equal(got, want) {
		t.Errorf("turn 1 sent %v, want %v", got, want)
	}
	found := e.ix.Found(ctx)
	var want []string
	for _, tl := range tls {
		if n := tl.Name(); slices.Contains([]string{"call_tool", "search_tools", "echo"}, n) || slices.Contains(found, n) {
			want = append(want, n)
		}
	}
	turn2 := functionNames(m.opts[1])
	if !slices.Equal(turn2, want) || !slices.Contains(turn2, "weather_forecast") || slices.Contains(turn2, "launch_rocket") || slices.Contains(turn2, "read_file") {
		t.Errorf("turn 2 sent %v, want %v (found %v): weather_forecast, never launch_rocket or read_file", turn2, want, found)
	}
	if got, want := toolRecords(t, e.exec, e.led), []string{"search_tools:ok", "weather_forecast:ok"}; !slices.Equal(got, want) {
		t.Errorf("ledger %v, want %v", got, want)
	}
}
