package langchaingoadapter_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/agentadapter/agentadapter/adapter"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
)

// A tool call naming a tool the agent does not have (made up, hidden from
// langchaingo, removed since the agent was built) answers not_found and
// leaves exactly one record, through the dispatcher and a Tool alike.
func TestUnknownToolRecorded(t *testing.T) {
	hidden := echoSpec(t, "hidden", noArgsSchema)
	hidden.Targets = []string{adapter.TargetMCP}
	reg := newRegistry(t, addSpec(), hidden, echoSpec(t, "gone", noArgsSchema))
	l := adapter.NewMemoryLedger(0)
	exec := newExecutor(t, reg, &adapter.ExecutorOptions{Ledger: l})
	d := mustDispatcher(t, reg, exec, nil)
	var gone *lca.Tool
	for _, tl := range mustTools(t, reg, exec, nil) {
		if tl.Name() == "gone" {
			gone = tl.(*lca.Tool)
		}
	}
	msgs, err := d.Dispatch(context.Background(), []llms.ToolCall{
		toolCall("1", "made_up", `{"token":"s3cret"}`),
		toolCall("2", "hidden", `{}`),
		toolCall("3", strings.Repeat("x", 10000), `{}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Unregister("gone"); err != nil {
		t.Fatal(err)
	}
	out, err := gone.Call(context.Background(), "{}")
	if p, ok := payload(out); err != nil || !ok || p.Kind != adapter.KindNotFound {
		t.Errorf("Call(gone) = %q, %v; want a not_found payload", out, err)
	}
	for id, c := range toolResponses(msgs) {
		if p, ok := payload(c); !ok || p.Kind != adapter.KindNotFound {
			t.Errorf("response %s = %s; want not_found", id, c)
		}
	}
	if err := exec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range l.Records() {
		if r.Outcome != string(adapter.KindNotFound) || r.Integration != lca.Integration || len(r.Tool) > 200 || strings.Contains(string(r.Args), "s3cret") {
			t.Errorf("record %+v: want a bounded, redacted not_found record of langchaingo", r)
		}
		got = append(got, r.CallID+":"+r.Tool[:min(len(r.Tool), 7)])
	}
	// The dispatcher runs calls in parallel: compare as a set.
	want := map[string]bool{"1:made_up": true, "2:hidden": true, "3:xxxxxxx": true}
	n := 0
	for _, g := range got {
		if want[g] {
			n++
		} else if !strings.HasSuffix(g, ":gone") {
			t.Errorf("unexpected record %s", g)
		}
	}
	if n != 3 || len(got) != 4 {
		t.Errorf("records %v; want one each for made_up, hidden, the long name and gone", got)
	}
}
