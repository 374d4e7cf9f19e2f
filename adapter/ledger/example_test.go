package ledger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/registry"
)

// An executor hands every call's record to its ledger; the chain then
// verifies, and a kept head checks that no record was cut since.
func Example() {
	ctx := context.Background()
	reg := registry.New()
	reg.MustRegister(adapter.MustRawTool("add", "Add two integers", &jsonschema.Schema{Type: "object"},
		func(context.Context, json.RawMessage) (*adapter.Result, error) { return adapter.TextResult("5"), nil },
		&adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: new(bool)}}))

	l := ledger.NewMemory(0)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: l})
	defer exec.Close()
	exec.Call(ctx, "add", json.RawMessage(`{"a":2,"b":3}`))
	exec.Flush(ctx) // the executor writes records from a goroutine of its own

	for r := range l.Query(ctx, ledger.Query{Tool: "add"}) {
		fmt.Println(r.Seq, r.Tool, r.Outcome)
	}
	if err := l.Verify(ctx); err != nil {
		log.Fatal(err)
	}
	kept, _ := l.Head(ctx)
	fmt.Println(l.VerifyHead(ctx, kept))
	// Output:
	// 1 add ok
	// <nil>
}
