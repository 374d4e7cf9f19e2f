package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/registry"
)

// The ledger masks every argument a tool mirrors into an Mcp-Param-*
// header, nested ones and numbers included, and its value in the message;
// the rest of the record, and the records of other tools, stay as they
// are; arguments that are not an object pass through.
func TestParamLedger(t *testing.T) {
	var schema jsonschema.Schema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{
		"tenant":{"type":"string","x-mcp-header":"Tenant"},
		"shard":{"type":"integer","x-mcp-header":"Shard"},
		"opts":{"type":"object","properties":{"account":{"type":"string","x-mcp-header":"Account"},"plain":{"type":"string"}}},
		"q":{"type":"string"}}}`), &schema); err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	noop := func(context.Context, json.RawMessage) (*adapter.Result, error) { return &adapter.Result{}, nil }
	reg.MustRegister(adapter.MustRawTool("mirrored", "m", &schema, noop, nil), adapter.MustRawTool("plain", "p", &jsonschema.Schema{Type: "object"}, noop, nil))
	mem := ledger.NewMemory(10)
	l := &paramLedger{next: mem, reg: reg}
	for _, r := range []ledger.Record{
		{Tool: "mirrored", Outcome: "tool_error", Message: "no tenant acme-corp for shard 90210; Mcp-Param-Account: acct-7",
			Args: json.RawMessage(`{"tenant":"acme-corp","shard":90210,"opts":{"account":"acct-7","plain":"kept-1"},"q":"kept-2"}`)},
		{Tool: "plain", Message: "acme-corp", Args: json.RawMessage(`{"tenant":"acme-corp"}`)},
		{Tool: "mirrored", Args: json.RawMessage(`["acme-corp"]`)},
		{Tool: "gone", Args: json.RawMessage(`{"tenant":"acme-corp"}`)},
	} {
		if err := l.Write(context.Background(), &r); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for r, err := range mem.Query(context.Background(), ledger.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(r.Args)+" | "+r.Message)
	}
	if len(got) != 4 {
		t.Fatalf("%d records: %q", len(got), got)
	}
	first := got[0]
	for _, secret := range []string{"acme-corp", "90210", "acct-7"} {
		if strings.Contains(first, secret) {
			t.Errorf("the mirrored %q is in the record: %s", secret, first)
		}
	}
	for _, kept := range []string{"kept-1", "kept-2", "Mcp-Param-Account", "no tenant"} {
		if !strings.Contains(first, kept) {
			t.Errorf("%q was masked too: %s", kept, first)
		}
	}
	for i, want := range []string{`{"tenant":"acme-corp"} | acme-corp`, `["acme-corp"] | `, `{"tenant":"acme-corp"} | `} {
		if got[i+1] != want {
			t.Errorf("record %d: %s, want %s unchanged", i+2, got[i+1], want)
		}
	}
}
