package mcpadapter_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// TestExportRefusedDefinition: go-sdk's server panics on a tool definition
// it refuses (here an x-mcp-header annotation on an object property). The
// exporter serves every other tool and not that one, and keeps running,
// whether the tool was in the registry when the exporter was made (the
// initial load) or arrived later (a registry change, as when a gateway
// reloads its configuration). Imported tools cannot carry such a definition:
// go-sdk's client drops them from a listing.
func TestExportRefusedDefinition(t *testing.T) {
	refused, err := adapter.NewRawTool("headers", "refused by go-sdk's AddTool",
		impSchema(`{"type":"object","properties":{"o":{"type":"object","x-mcp-header":"X-O"}}}`),
		func(context.Context, json.RawMessage) (*adapter.Result, error) { return adapter.TextResult("ran"), nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := newImportEnv(t, nil)
	if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "srv", Transport: inMemoryTo(t, newImportServer())}); err != nil {
		t.Fatal(err)
	}
	before := newExporter(t, e.reg, e.exec, nil)
	if err := e.reg.Register(refused); err != nil {
		t.Fatal(err)
	}
	after := newExporter(t, e.reg, e.exec, nil)
	for name, ex := range map[string]*mcpadapter.Exporter{"registered after the exporter": before, "registered before it": after} {
		t.Run(name, func(t *testing.T) {
			cs := exConnect(t, ex, nil, "")
			tools := exListTools(t, cs)
			if _, ok := tools["headers"]; ok {
				t.Error("the refused tool is served")
			}
			if _, ok := tools["add"]; !ok {
				t.Fatalf("add is not served: %v", tools)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
			if err != nil || res.IsError {
				t.Fatalf("add: %v %+v", err, res)
			}
		})
	}
}
