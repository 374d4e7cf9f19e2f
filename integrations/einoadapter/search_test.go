package einoadapter_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
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

// searchModel is a scripted model.ToolCallingChatModel that plays a model
// using tool search: on each turn step reads the conversation and returns
// the reply. It records the names of the tools it was sent on each turn.
type searchModel struct {
	step func(turn int, in []*schema.Message) *schema.Message

	mu    sync.Mutex
	bound []*schema.ToolInfo
	sent  [][]string
}

func (m *searchModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	var names []string
	for _, t := range m.bound {
		names = append(names, t.Name)
	}
	m.sent = append(m.sent, names)
	turn := len(m.sent) - 1
	m.mu.Unlock()
	return m.step(turn, in), nil
}

func (m *searchModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *searchModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	m.mu.Lock()
	m.bound = tools
	m.mu.Unlock()
	return m, nil
}

func (m *searchModel) turns() [][]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.sent)
}

// lastTool returns the text of the last tool message of in.
func lastTool(in []*schema.Message) string {
	for i := len(in) - 1; i >= 0; i-- {
		if in[i].Role == schema.Tool {
			return toolText(in[i])
		}
	}
	return ""
}

// searcher returns a step that searches for query, then calls the first
// tool found that want admits (through call_tool, or directly when
// direct), with args, then answers with what it read.
func searcher(t *testing.T, query string, want func(string) bool, args string, direct bool) func(int, []*schema.Message) *schema.Message {
	return func(turn int, in []*schema.Message) *schema.Message {
		switch turn {
		case 0:
			return schema.AssistantMessage("", []schema.ToolCall{call("s1", toolsearch.SearchToolsName, `{"query":`+jsonString(query)+`,"limit":5}`)})
		case 1:
			pick := ""
			for _, n := range foundNames(t, lastTool(in)) {
				if want(n) {
					pick = n
					break
				}
			}
			if pick == "" {
				return schema.AssistantMessage("nothing found: "+lastTool(in), nil)
			}
			if direct {
				return schema.AssistantMessage("", []schema.ToolCall{call("c1", pick, args)})
			}
			return schema.AssistantMessage("", []schema.ToolCall{call("c1", toolsearch.CallToolName, `{"name":`+jsonString(pick)+`,"arguments":`+args+`}`)})
		}
		return schema.AssistantMessage("done: "+lastTool(in), nil)
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// searchAgent builds eino's react agent over specs, run inside a graph
// compiled with a checkpoint store (so that a held call interrupts it).
func searchAgent(t *testing.T, m model.ToolCallingChatModel, specs []*adapter.Spec, exec *adapter.Executor) runFunc {
	t.Helper()
	var tools []tool.BaseTool
	for _, s := range specs {
		tools = append(tools, mustTool(t, s, exec, nil))
	}
	ctx := context.Background()
	a, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: m, ToolsConfig: compose.ToolsNodeConfig{Tools: tools}, MaxStep: 20})
	if err != nil {
		t.Fatal(err)
	}
	g := compose.NewGraph[[]*schema.Message, *schema.Message]()
	ag, addOpts := a.ExportGraph()
	must(t, g.AddGraphNode("agent", ag, addOpts...))
	must(t, g.AddEdge(compose.START, "agent"))
	must(t, g.AddEdge("agent", compose.END))
	r, err := g.Compile(ctx, compose.WithCheckPointStore(&memStore{}))
	if err != nil {
		t.Fatal(err)
	}
	return r.Invoke
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

// TestSearchAgent: eino's react agent, sent only the meta-tools, searches,
// picks a tool from the result it read and calls it through call_tool:
// the ledger holds one record under the real tool's name with the model's
// arguments and none under call_tool; a destructive tool reached through
// call_tool interrupts the run as a direct call does (the held call is the
// model's call_tool call, its ticket names the real tool); a denied tool is
// never found and call_tool answers it not_found.
func TestSearchAgent(t *testing.T) {
	opts := &toolsearch.ToolsOptions{Filter: kit.Filter(notSecret, adapter.TargetEino)}
	t.Run("call", func(t *testing.T) {
		e := newSearchEnv(t)
		m := &searchModel{step: searcher(t, "weather forecast for a city", func(string) bool { return true }, `{"city":"Oslo"}`, false)}
		run := searchAgent(t, m, e.ix.Tools(opts), e.exec)
		out, err := run(context.Background(), userMsg("weather in Oslo?"), compose.WithCheckPointID("a"))
		if err != nil {
			t.Fatal(err)
		}
		if want := `done: weather_forecast ran with {"city":"Oslo"}`; out.Content != want {
			t.Errorf("answer %q, want %q", out.Content, want)
		}
		if got := m.turns()[0]; !slices.Equal(got, []string{"call_tool", "search_tools"}) {
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
		m := &searchModel{step: searcher(t, "launch the rocket", func(n string) bool { return n == "launch_rocket" }, `{"city":"Oslo"}`, false)}
		run := searchAgent(t, m, e.ix.Tools(opts), e.exec)
		ctx := context.Background()
		_, err := run(ctx, userMsg("launch"), compose.WithCheckPointID("b"))
		pend := einoadapter.PendingFromError(err)
		if len(pend) != 1 || pend[0].Tool != "call_tool" || pend[0].Ticket == "" {
			t.Fatalf("err %v, pending %+v: want the call_tool call held", err, pend)
		}
		if tk, err := e.appr.Ticket(ctx, pend[0].Ticket); err != nil || tk.Tool != "launch_rocket" || tk.State != adapter.TicketPending {
			t.Fatalf("ticket %+v %v", tk, err)
		}
		if e.ran.Load() != 0 {
			t.Fatal("the held tool ran")
		}
		must(t, e.appr.Approve(ctx, pend[0].Ticket, "operator"))
		out, err := run(compose.Resume(ctx, pend[0].InterruptID), nil, compose.WithCheckPointID("b"))
		if err != nil || !strings.Contains(out.Content, `launch_rocket ran with {"city":"Oslo"}`) || e.ran.Load() != 1 {
			t.Fatalf("resumed: %v %v, ran %d", out, err, e.ran.Load())
		}
		for _, r := range toolRecords(t, e.exec, e.led) {
			if strings.HasPrefix(r, "call_tool:") {
				t.Errorf("a record under call_tool: %s", r)
			}
		}
	})
	t.Run("denied", func(t *testing.T) {
		e := newSearchEnv(t)
		var read []string
		m := &searchModel{step: func(turn int, in []*schema.Message) *schema.Message {
			switch turn {
			case 0:
				return schema.AssistantMessage("", []schema.ToolCall{call("s1", "search_tools", `{"query":"payroll weather of a city","limit":50}`)})
			case 1:
				read = foundNames(t, lastTool(in))
				return schema.AssistantMessage("", []schema.ToolCall{call("c1", "call_tool", `{"name":"payroll_export","arguments":{"city":"Oslo"}}`)})
			}
			return schema.AssistantMessage("done: "+lastTool(in), nil)
		}}
		out, err := searchAgent(t, m, e.ix.Tools(opts), e.exec)(context.Background(), userMsg("payroll"), compose.WithCheckPointID("c"))
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(read, "payroll_export") || len(read) == 0 {
			t.Errorf("search found %v: want results, never payroll_export", read)
		}
		if !strings.Contains(out.Content, `"kind":"not_found"`) || e.ran.Load() != 0 {
			t.Errorf("call_tool of a denied tool: %q (ran %d), want not_found", out.Content, e.ran.Load())
		}
	})
}

// TestSearchAgentFoundSoFar: with the found-so-far wrapper, the model is
// sent the meta-tools and the always-loaded tool on turn one; after its
// search, the tools found too, and it calls one directly; a tool it did
// not find is never sent.
func TestSearchAgentFoundSoFar(t *testing.T) {
	e := newSearchEnv(t)
	opts := &toolsearch.ToolsOptions{Filter: kit.Filter(notSecret, adapter.TargetEino), Always: []string{"echo"}, Deferred: true}
	specs := e.ix.Tools(opts)
	m := &searchModel{step: searcher(t, "weather forecast payroll", func(string) bool { return true }, `{"city":"Oslo"}`, true)}
	run := searchAgent(t, &foundSoFar{ToolCallingChatModel: m, ix: e.ix, opts: opts}, specs, e.exec)
	ctx, _ := adapter.WithRun(context.Background(), nil)
	out, err := run(ctx, userMsg("weather in Oslo?"), compose.WithCheckPointID("d"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `done: weather_forecast ran with {"city":"Oslo"}`; out.Content != want {
		t.Errorf("answer %q, want %q", out.Content, want)
	}
	turns := m.turns()
	if len(turns) != 3 {
		t.Fatalf("%d turns", len(turns))
	}
	if want := []string{"call_tool", "search_tools", "echo"}; !slices.Equal(turns[0], want) {
		t.Errorf("turn 1 sent %v, want %v", turns[0], want)
	}
	found := e.ix.Found(ctx)
	if want := append([]string{"call_tool", "search_tools"}, sortedByRegistry(specs, append([]string{"echo"}, found...))...); !slices.Equal(turns[1], want) {
		t.Errorf("turn 2 sent %v, want %v (found %v)", turns[1], want, found)
	}
	if !slices.Contains(turns[1], "weather_forecast") || slices.Contains(turns[1], "launch_rocket") || slices.Contains(turns[1], "payroll_export") || slices.Contains(turns[1], "read_file") {
		t.Errorf("turn 2 sent %v: want weather_forecast, never launch_rocket (not found), payroll_export (denied), read_file (not found)", turns[1])
	}
	if got, want := toolRecords(t, e.exec, e.led), []string{"search_tools:ok", "weather_forecast:ok"}; !slices.Equal(got, want) {
		t.Errorf("ledger %v, want %v", got, want)
	}
	// Flat, the model would have been sent every tool on every turn.
	if len(specs) < 70 {
		t.Errorf("%d tools registered with the agent", len(specs))
	}
}

// sortedByRegistry returns names in the order of specs (the order Tools
// returned them, which the wrapper keeps).
func sortedByRegistry(specs []*adapter.Spec, names []string) []string {
	var out []string
	for _, s := range specs {
		if slices.Contains(names, s.Name) {
			out = append(out, s.Name)
		}
	}
	return out
}
