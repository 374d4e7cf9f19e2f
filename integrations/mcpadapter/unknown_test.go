package mcpadapter_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// A tools/call naming a tool the export does not serve (made up, or
// hidden from MCP) is answered with the not_found payload every
// integration gives, as an isError result, and leaves exactly one record;
// go-sdk's own answer was a JSON-RPC error and no record.
func TestExportUnknownToolRecorded(t *testing.T) {
	reg := exTools(t)
	l := adapter.NewMemoryLedger(0)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: l})
	t.Cleanup(func() { exec.Close() })
	cs := exConnect(t, newExporter(t, reg, exec, nil), nil, "")
	long := strings.Repeat("n", 10000)
	names := []string{"made_up", "eino_only", long}
	for _, name := range names {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"token": "s3cret"}})
		if err != nil {
			t.Fatalf("CallTool(%.20s) = %v; want an isError result", name, err)
		}
		text := ""
		if len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		if !res.IsError || !strings.Contains(text, `"not_found"`) || len(text) > 1000 {
			t.Errorf("CallTool(%.20s) = %+v; want isError with the not_found payload, bounded", name, res)
		}
		if m, _ := res.Meta[mcpadapter.MetaKeyError].(map[string]any); m["kind"] != "not_found" {
			t.Errorf("CallTool(%.20s) _meta = %v; want kind not_found", name, res.Meta)
		}
	}
	if err := exec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range l.Records() {
		if r.Outcome != string(adapter.KindNotFound) || r.Integration != mcpadapter.Integration || len(r.Tool) > 200 || strings.Contains(string(r.Args), "s3cret") {
			t.Errorf("record %+v: want a bounded, redacted not_found record of the mcp integration", r)
		}
		got = append(got, r.Tool[:min(len(r.Tool), 9)])
	}
	if want := []string{"made_up", "eino_only", "nnnnnnnnn"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("records of tools %v; want one each of %v", got, want)
	}
}
