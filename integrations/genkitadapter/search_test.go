package genkitadapter_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
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

// lastOutput returns the text of the last tool response of req.
func lastOutput(req *ai.ModelRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		for _, p := range req.Messages[i].Content {
			if p.IsToolResponse() {
				if s, ok := p.ToolResponse.Output.(string); ok {
					return s
				}
				b, _ := json.Marshal(p.ToolResponse.Output)
				return string(b)
			}
		}
	}
	return ""
}

func sentNames(req *ai.ModelRequest) []string {
	var out []string
	for _, d := range req.Tools {
		out = append(out, d.Name)
	}
	return out
}

// searchSteps are the model's turns: search for query, then call the
// first tool found that want admits (through call_tool, or directly when
// direct) with args, then answer with what it read.
func searchSteps(t *testing.T, query string, want func(string) bool, args map[string]any, direct bool) []step {
	return []step{
		callTool(toolsearch.SearchToolsName, "s1", map[string]any{"query": query, "limit": 5}),
		func(req *ai.ModelRequest) *ai.Message {
			pick := ""
			for _, n := range foundNames(t, lastOutput(req)) {
				if want(n) {
					pick = n
					break
				}
			}
			if direct {
				return callTool(pick, "c1", args)(req)
			}
			return callTool(toolsearch.CallToolName, "c1", map[string]any{"name": pick, "arguments": args})(req)
		},
		func(req *ai.ModelRequest) *ai.Message { return ai.NewModelTextMessage("done: " + lastOutput(req)) },
	}
}

type searchEnv struct {
	reg  *registry.Registry
	ran  *atomic.Int64
	ix   *toolsearch.Index
	exec *adapter.Executor
	led  *ledger.Memory
	appr *approval.Deferred
}

func newSearchEnv(t *testing.T) *searchEnv {
	t.Helper()
	e := &searchEnv{led: ledger.NewMemory(0), appr: &approval.Deferred{}}
	e.reg, e.ran = searchCatalog(t)
	var err error
	if e.ix, err = toolsearch.New(e.reg, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.ix.Close)
	e.exec = adapter.NewExecutor(e.reg, &adapter.ExecutorOptions{Ledger: e.led, Approval: adapter.ApprovalOptions{Port: e.appr}})
	t.Cleanup(func() { e.exec.Close() })
	return e
}

func (e *searchEnv) tools(t *testing.T, opts *toolsearch.ToolsOptions) []ai.ToolRef {
	t.Helper()
	var out []ai.ToolRef
	for _, s := range e.ix.Tools(opts) {
		tl, err := genkitadapter.NewTool(s, e.exec, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tl)
	}
	return out
}

// TestSearchGenerate: genkit's Generate tool loop, sent only the
// meta-tools, searches, picks a found tool and calls it through
// call_tool: one ledger record under the real tool's name with the
// model's arguments, none under call_tool; a destructive tool reached
// through call_tool interrupts the generation with its ticket, as a direct
// call does, and runs once approved; a denied tool is never found and
// call_tool answers it not_found.
func TestSearchGenerate(t *testing.T) {
	opts := &toolsearch.ToolsOptions{Filter: kit.Filter(notSecret, adapter.TargetGenkit)}
	ctx := context.Background()
	t.Run("call", func(t *testing.T) {
		e := newSearchEnv(t)
		g := newGenkit(t)
		m := defineScripted(t, g, "m", searchSteps(t, "weather forecast for a city", func(string) bool { return true }, map[string]any{"city": "Oslo"}, false)...)
		resp, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithTools(e.tools(t, opts)...), ai.WithPrompt("weather in Oslo?"))
		if err != nil {
			t.Fatal(err)
		}
		if want := `done: weather_forecast ran with {"city":"Oslo"}`; resp.Text() != want {
			t.Errorf("answer %q, want %q", resp.Text(), want)
		}
		if got := sentNames(m.requests()[0]); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"call_tool", "search_tools"}) {
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
		e := newSearchEnv(t)
		g := newGenkit(t)
		steps := searchSteps(t, "launch the rocket", func(n string) bool { return n == "launch_rocket" }, map[string]any{"city": "Oslo"}, false)
		m := defineScripted(t, g, "m", steps...)
		gopts := []ai.GenerateOption{ai.WithModel(m), ai.WithTools(e.tools(t, opts)...)}
		resp, err := genkit.Generate(ctx, g, append(gopts, ai.WithPrompt("launch"))...)
		if err != nil {
			t.Fatal(err)
		}
		as := genkitadapter.Approvals(resp)
		if resp.FinishReason != ai.FinishReasonInterrupted || len(as) != 1 {
			t.Fatalf("finish %q, %d approvals: want one interrupt", resp.FinishReason, len(as))
		}
		tk, err := e.appr.Ticket(ctx, as[0].Ticket)
		if err != nil || tk.Tool != "launch_rocket" || tk.State != adapter.TicketPending || e.ran.Load() != 0 {
			t.Fatalf("ticket %+v %v, ran %d: want launch_rocket pending, not run", tk, err, e.ran.Load())
		}
		resp2, err := genkitadapter.Resume(ctx, g, resp, func(ctx context.Context, a *genkitadapter.Approval) error {
			return e.appr.Approve(ctx, a.Ticket, "operator")
		}, gopts...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(resp2.Text(), `launch_rocket ran with {"city":"Oslo"}`) || e.ran.Load() != 1 {
			t.Errorf("resumed: %q, ran %d", resp2.Text(), e.ran.Load())
		}
		for _, r := range toolRecords(t, e.exec, e.led) {
			if strings.HasPrefix(r, "call_tool:") {
				t.Errorf("a record under call_tool: %s", r)
			}
		}
	})
	t.Run("denied", func(t *testing.T) {
		e := newSearchEnv(t)
		g := newGenkit(t)
		var read []string
		m := defineScripted(t, g, "m",
			callTool("search_tools", "s1", map[string]any{"query": "payroll weather of a city", "limit": 50}),
			func(req *ai.ModelRequest) *ai.Message {
				read = foundNames(t, lastOutput(req))
				return callTool("call_tool", "c1", map[string]any{"name": "payroll_export", "arguments": map[string]any{"city": "Oslo"}})(req)
			},
			func(req *ai.ModelRequest) *ai.Message { return ai.NewModelTextMessage(lastOutput(req)) })
		resp, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithTools(e.tools(t, opts)...), ai.WithPrompt("payroll"))
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(read, "payroll_export") || len(read) == 0 {
			t.Errorf("search found %v: want results, never payroll_export", read)
		}
		if !strings.Contains(resp.Text(), `"kind":"not_found"`) || e.ran.Load() != 0 {
			t.Errorf("call_tool of a denied tool: %q (ran %d), want not_found", resp.Text(), e.ran.Load())
		}
	})
}

// TestSearchGenerateFoundSoFar: with the found-so-far middleware, turn one
// sends the meta-tools and the always-loaded tool; after the search, the
// tools found too, and the model calls one directly; a tool not found is
// never sent.
func TestSearchGenerateFoundSoFar(t *testing.T) {
	e := newSearchEnv(t)
	g := newGenkit(t)
	opts := &toolsearch.ToolsOptions{Filter: kit.Filter(notSecret, adapter.TargetGenkit), Always: []string{"echo"}, Deferred: true}
	tools := e.tools(t, opts)
	m := defineScripted(t, g, "m", searchSteps(t, "weather forecast payroll", func(string) bool { return true }, map[string]any{"city": "Oslo"}, true)...)
	ctx, _ := adapter.WithRun(context.Background(), nil)
	resp, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithTools(tools...), ai.WithMiddleware(foundSoFar(e.ix, opts)), ai.WithPrompt("weather in Oslo?"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `done: weather_forecast ran with {"city":"Oslo"}`; resp.Text() != want {
		t.Errorf("answer %q, want %q", resp.Text(), want)
	}
	reqs := m.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d turns", len(reqs))
	}
	if got, want := sentNames(reqs[0]), []string{"call_tool", "echo", "search_tools"}; !slices.Equal(got, want) {
		t.Errorf("turn 1 sent %v, want %v", got, want)
	}
	found := e.ix.Found(ctx)
	want := slices.Sorted(slices.Values(append([]string{"call_tool", "search_tools", "echo"}, found...)))
	if len(tools) < 70 {
		t.Errorf("%d tools with the generation", len(tools))
	}
	turn2 := sentNames(reqs[1])
	if !slices.Equal(turn2, want) {
		t.Errorf("turn 2 sent %v, want %v (found %v)", turn2, want, found)
	}
	if !slices.Contains(turn2, "weather_forecast") || slices.Contains(turn2, "launch_rocket") || slices.Contains(turn2, "payroll_export") || slices.Contains(turn2, "read_file") {
		t.Errorf("turn 2 sent %v: want weather_forecast, never launch_rocket or read_file (not found), payroll_export (denied)", turn2)
	}
	if got, want := toolRecords(t, e.exec, e.led), []string{"search_tools:ok", "weather_forecast:ok"}; !slices.Equal(got, want) {
		t.Errorf("ledger %v, want %v", got, want)
	}
}
