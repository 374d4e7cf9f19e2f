package langchaingoadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tmc/langchaingo/llms"
)

// An MCP Apps app-only tool (_meta.ui.visibility ["app"]) is not offered
// to the model, and a model that names it anyway is answered not_found
// with one not_found ledger record.
func TestAppOnlyToolNotOffered(t *testing.T) {
	ok := func(context.Context, json.RawMessage) (*adapter.Result, error) {
		return &adapter.Result{Content: []adapter.Content{&adapter.TextContent{Text: "ran"}}}, nil
	}
	obj := &jsonschema.Schema{Type: "object"}
	model, err := adapter.NewRawTool("stats", "model tool", obj, ok, nil)
	if err != nil {
		t.Fatal(err)
	}
	app, err := adapter.NewRawTool("poll", "app-only tool", obj, ok, &adapter.ToolOptions{
		Meta: map[string]any{"ui": map[string]any{"resourceUri": "ui://x/app.html", "visibility": []any{"app"}}}})
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	reg.MustRegister(model, app)
	led := adapter.NewMemoryLedger(16)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: led})
	defer exec.Close()

	d, err := langchaingoadapter.NewDispatcher(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, def := range d.Tools() {
		names = append(names, def.Function.Name)
	}
	defs, _ := langchaingoadapter.Definitions(reg, nil)
	for _, def := range defs {
		names = append(names, def.Function.Name)
	}
	ts, err := langchaingoadapter.Tools(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range ts {
		names = append(names, tl.Name())
	}
	if got := strings.Join(names, ","); got != "stats,stats,stats" {
		t.Errorf("offered tools = %s, want stats only in Dispatcher.Tools, Definitions and Tools", got)
	}

	msgs, err := d.Dispatch(context.Background(), []llms.ToolCall{{ID: "c1", Type: "function",
		FunctionCall: &llms.FunctionCall{Name: "poll", Arguments: "{}"}}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(msgs)
	if !strings.Contains(string(out), string(adapter.KindNotFound)) || strings.Contains(string(out), "ran") {
		t.Errorf("answer to a call of the app-only tool = %s, want the not_found payload", out)
	}
	if err := exec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs := led.Records()
	if len(recs) != 1 || recs[0].Tool != "poll" || recs[0].Outcome != string(adapter.KindNotFound) {
		t.Errorf("ledger = %+v, want one not_found record of poll", recs)
	}
}
