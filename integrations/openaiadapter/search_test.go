package openaiadapter_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/openaiadapter"
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

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func wireToolNames(r wireRequest) []string {
	var out []string
	for _, raw := range r.Tools {
		var tl struct {
			Function struct{ Name string } `json:"function"`
		}
		_ = json.Unmarshal(raw, &tl)
		out = append(out, tl.Function.Name)
	}
	return out
}

type searchEnv struct {
	reg  *registry.Registry
	ran  *atomic.Int64
	ix   *toolsearch.Index
	exec *adapter.Executor
	led  *ledger.Memory
	appr *approval.Deferred
	ts   *openaiadapter.Toolset
}

// newSearchEnv builds a toolset over a registry holding only the meta-tools
// of an index over the catalog.
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
	meta := registry.New()
	meta.MustRegister(e.ix.Tools(&toolsearch.ToolsOptions{Filter: notSecret})...)
	if e.ts, err = openaiadapter.New(meta, e.exec, nil); err != nil {
		t.Fatal(err)
	}
	return e
}

// searchScript searches for query, calls the first tool found that want
// admits through call_tool with args, then answers with what it read.
func searchScript(t *testing.T, query string, want func(string) bool, args string) func(int, wireRequest) any {
	return func(n int, r wireRequest) any {
		switch n {
		case 0:
			return completion("", toolCall("s1", toolsearch.SearchToolsName, `{"query":`+jsonString(query)+`,"limit":5}`))
		case 1:
			text, _ := r.toolText("s1")
			pick := ""
			for _, name := range foundNames(t, text) {
				if want(name) {
					pick = name
					break
				}
			}
			return completion("", toolCall("c1", toolsearch.CallToolName, `{"name":`+jsonString(pick)+`,"arguments":`+args+`}`))
		}
		text, _ := r.toolText("c1")
		return completion("done: " + text)
	}
}

// TestSearchLoop: Toolset.Loop over the meta-tools: the model searches,
// picks a found tool and calls it through call_tool: one ledger record
// under the real tool's name with its arguments, none under call_tool; a
// destructive tool reached through call_tool stops the loop with
// ErrPending (the held call is the model's call_tool call, which Resume
// makes again; its ticket names the real tool) and runs once approved; a denied
// tool is never found and call_tool answers it not_found.
func TestSearchLoop(t *testing.T) {
	params := openai.ChatCompletionNewParams{Model: "gpt-test"}
	t.Run("call", func(t *testing.T) {
		e := newSearchEnv(t)
		api := newFakeAPI(t, searchScript(t, "weather forecast for a city", func(string) bool { return true }, `{"city":"Oslo"}`))
		c := api.client()
		params.Messages = userMsg("weather in Oslo?")
		conv, err := e.ts.Loop(bg, &c.Chat.Completions, params)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := conv.Completion.Choices[0].Message.Content, `done: weather_forecast ran with {"city":"Oslo"}`; got != want {
			t.Errorf("answer %q, want %q", got, want)
		}
		if got := wireToolNames(api.requests()[0]); !slices.Equal(got, []string{"call_tool", "search_tools"}) {
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
		api := newFakeAPI(t, searchScript(t, "launch the rocket", func(n string) bool { return n == "launch_rocket" }, `{"city":"Oslo"}`))
		c := api.client()
		params.Messages = userMsg("launch")
		conv, err := e.ts.Loop(bg, &c.Chat.Completions, params)
		if !errors.Is(err, openaiadapter.ErrPending) || len(conv.Held) != 1 || conv.Held[0].Tool != "call_tool" || e.ran.Load() != 0 {
			t.Fatalf("Loop: %v, held %v, ran %d: want ErrPending, the call_tool call held, not run", err, conv.Held, e.ran.Load())
		}
		if tk, err := e.appr.Ticket(bg, conv.Held[0].Ticket); err != nil || tk.Tool != "launch_rocket" {
			t.Fatalf("ticket %+v %v: want one for launch_rocket", tk, err)
		}
		if err := e.appr.Approve(bg, conv.Held[0].Ticket, "operator"); err != nil {
			t.Fatal(err)
		}
		done, err := e.ts.Resume(bg, &c.Chat.Completions, conv, params)
		if err != nil || e.ran.Load() != 1 || !strings.Contains(done.Completion.Choices[0].Message.Content, `launch_rocket ran with {"city":"Oslo"}`) {
			t.Fatalf("Resume: %v, ran %d", err, e.ran.Load())
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
		api := newFakeAPI(t, func(n int, r wireRequest) any {
			switch n {
			case 0:
				return completion("", toolCall("s1", "search_tools", `{"query":"payroll weather of a city","limit":50}`))
			case 1:
				text, _ := r.toolText("s1")
				read = foundNames(t, text)
				return completion("", toolCall("c1", "call_tool", `{"name":"payroll_export","arguments":{"city":"Oslo"}}`))
			}
			text, _ := r.toolText("c1")
			return completion(text)
		})
		c := api.client()
		params.Messages = userMsg("payroll")
		conv, err := e.ts.Loop(bg, &c.Chat.Completions, params)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(read, "payroll_export") || len(read) == 0 {
			t.Errorf("search found %v: want results, never payroll_export", read)
		}
		if out := conv.Completion.Choices[0].Message.Content; !strings.Contains(out, `"kind":"not_found"`) || e.ran.Load() != 0 {
			t.Errorf("call_tool of a denied tool: %q (ran %d), want not_found", out, e.ran.Load())
		}
	})
}
