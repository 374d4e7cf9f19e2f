package anthropicadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/anthropicadapter"
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

type searchEnv struct {
	ran  *atomic.Int64
	exec *adapter.Executor
	led  *ledger.Memory
	appr *approval.Deferred
	ts   *anthropicadapter.Toolset
}

// newSearchEnv builds a toolset over a registry holding only the meta-tools
// of an index over the catalog.
func newSearchEnv(t *testing.T) *searchEnv {
	t.Helper()
	e := &searchEnv{led: ledger.NewMemory(0), appr: &approval.Deferred{}}
	reg, ran := searchCatalog(t)
	e.ran = ran
	ix, err := toolsearch.New(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ix.Close)
	e.exec = adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: e.led, Approval: adapter.ApprovalOptions{Port: e.appr}})
	t.Cleanup(func() { e.exec.Close() })
	meta := registry.New()
	meta.MustRegister(ix.Tools(&toolsearch.ToolsOptions{Filter: notSecret})...)
	if e.ts, err = anthropicadapter.Tools(meta, e.exec, nil); err != nil {
		t.Fatal(err)
	}
	return e
}

func lastResult(t *testing.T, req *anthropic.BetaMessageNewParams) string {
	rs := results(req)
	if len(rs) == 0 {
		return ""
	}
	text, _, _ := read(t, rs[len(rs)-1])
	return text
}

// searchScript searches for query, calls the first tool found that want
// admits through call_tool with args, then answers with what it read.
func searchScript(t *testing.T, query string, want func(string) bool, args string) func(int, *anthropic.BetaMessageNewParams) turn {
	return func(n int, req *anthropic.BetaMessageNewParams) turn {
		switch n {
		case 0:
			return turn{calls: []anthropic.BetaToolUseBlockParam{use("toolu_s", toolsearch.SearchToolsName, `{"query":`+jsonString(query)+`,"limit":5}`)}}
		case 1:
			pick := ""
			for _, name := range foundNames(t, lastResult(t, req)) {
				if want(name) {
					pick = name
					break
				}
			}
			return turn{calls: []anthropic.BetaToolUseBlockParam{use("toolu_c", toolsearch.CallToolName, `{"name":`+jsonString(pick)+`,"arguments":`+args+`}`)}}
		}
		return turn{text: "done: " + lastResult(t, req)}
	}
}

func messageText(m *anthropic.BetaMessage) string {
	var b strings.Builder
	for _, c := range m.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// TestSearchRun: Toolset.Run over the meta-tools: the model searches,
// picks a found tool and calls it through call_tool: one ledger record
// under the real tool's name with its arguments, none under call_tool; a
// destructive tool reached through call_tool stops the run with a Held
// (its ticket for the real tool) and runs once approved and resumed; a
// denied tool is never found and call_tool answers it not_found.
func TestSearchRun(t *testing.T) {
	ctx := context.Background()
	t.Run("call", func(t *testing.T) {
		e := newSearchEnv(t)
		api := newFakeAPI(t, searchScript(t, "weather forecast for a city", func(string) bool { return true }, `{"city":"Oslo"}`))
		c := api.client()
		msg, err := e.ts.Run(ctx, &c.Beta.Messages, ask("weather in Oslo?"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := messageText(msg), `done: weather_forecast ran with {"city":"Oslo"}`; got != want {
			t.Errorf("answer %q, want %q", got, want)
		}
		var sent []string
		for _, tl := range api.requests()[0].Tools {
			if tl.OfTool != nil {
				sent = append(sent, tl.OfTool.Name)
			}
		}
		if !slices.Equal(sent, []string{"call_tool", "search_tools"}) {
			t.Errorf("the model was sent %v, want the two meta-tools", sent)
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
		_, err := e.ts.Run(ctx, &c.Beta.Messages, ask("launch"))
		var held *anthropicadapter.Held
		if !errors.As(err, &held) || len(held.Calls) != 1 || e.ran.Load() != 0 {
			t.Fatalf("Run: %v, ran %d: want one held call, not run", err, e.ran.Load())
		}
		if tk, err := e.appr.Ticket(ctx, held.Calls[0].Ticket); err != nil || tk.Tool != "launch_rocket" {
			t.Fatalf("ticket %+v %v: want one for launch_rocket", tk, err)
		}
		if err := e.appr.Approve(ctx, held.Calls[0].Ticket, "operator"); err != nil {
			t.Fatal(err)
		}
		msg, err := e.ts.Resume(ctx, &c.Beta.Messages, ask("launch"), held)
		if err != nil || e.ran.Load() != 1 || !strings.Contains(messageText(msg), `launch_rocket ran with {"city":"Oslo"}`) {
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
		api := newFakeAPI(t, func(n int, req *anthropic.BetaMessageNewParams) turn {
			switch n {
			case 0:
				return turn{calls: []anthropic.BetaToolUseBlockParam{use("toolu_s", "search_tools", `{"query":"payroll weather of a city","limit":50}`)}}
			case 1:
				read = foundNames(t, lastResult(t, req))
				return turn{calls: []anthropic.BetaToolUseBlockParam{use("toolu_c", "call_tool", `{"name":"payroll_export","arguments":{"city":"Oslo"}}`)}}
			}
			return turn{text: lastResult(t, req)}
		})
		c := api.client()
		msg, err := e.ts.Run(ctx, &c.Beta.Messages, ask("payroll"))
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(read, "payroll_export") || len(read) == 0 {
			t.Errorf("search found %v: want results, never payroll_export", read)
		}
		if out := messageText(msg); !strings.Contains(out, `"kind":"not_found"`) || e.ran.Load() != 0 {
			t.Errorf("call_tool of a denied tool: %q (ran %d), want not_found", out, e.ran.Load())
		}
	})
}
