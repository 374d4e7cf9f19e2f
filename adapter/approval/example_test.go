package approval_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/registry"
)

// A deferred approval port holds a call with a ticket; the call made again
// with the same arguments, once the ticket is approved, runs once.
func ExampleDeferred() {
	deleted := 0
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("delete_report", "Delete a report.",
		func(_ context.Context, in struct {
			Name string `json:"name"`
		}) (string, error) {
			deleted++
			return "deleted " + in.Name, nil
		}, nil)) // no annotations: destructive, so approval is needed
	approvals := &approval.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: approvals}})
	defer exec.Close()

	ctx := context.Background()
	args := json.RawMessage(`{"name":"draft.txt"}`)
	_, err := exec.Call(ctx, "delete_report", args)
	var e *adapter.Error
	errors.As(err, &e)
	fmt.Println(e.Kind, deleted)

	if err := approvals.Approve(ctx, e.Ticket, "alice"); err != nil {
		panic(err)
	}
	res, err := exec.Call(ctx, "delete_report", args)
	if err != nil {
		panic(err)
	}
	fmt.Println(adapter.Render(res, nil), deleted)
	// Output:
	// approval_pending 0
	// deleted draft.txt 1
}
