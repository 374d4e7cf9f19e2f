package kit_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestRawTool(t *testing.T) {
	type in struct {
		N int `json:"n"`
	}
	spec := adapter.MustTool("echo", "", func(_ context.Context, v in) (int, error) { return v.N, nil }, nil)
	deferred := &adapter.Deferred{}
	exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: deferred}})
	defer exec.Close()
	ctx := context.Background()
	tool := &kit.RawTool{Spec: spec, Exec: exec, Integration: "myfw", Native: "native", Runs: kit.NewTraceRuns("myfw_")}

	parts, held, err := tool.Call(ctx, json.RawMessage(`{"n":7}`))
	if err != nil || parts != nil || held == nil || held.Ticket == "" || held.Tool != "echo" {
		t.Fatalf("Call = %+v, %+v, %v; want the call held with a ticket", parts, held, err)
	}
	if err := deferred.Approve(ctx, held.Ticket, "alice"); err != nil {
		t.Fatal(err)
	}
	restart, _ := json.Marshal(kit.Resume{Ticket: held.Ticket, Ref: "r1", Args: json.RawMessage(`{"n":7}`)}.Input())
	first := held
	parts, held, err = tool.Call(ctx, restart)
	if err != nil || held != nil || adapter.PartsText(parts) != "7" {
		t.Errorf("restarted Call = %+v, %+v, %v; want the approved call's result 7", parts, held, err)
	}
	if parts, held, err = tool.Call(ctx, restart); err != nil || held == nil || held.Ticket == first.Ticket {
		t.Errorf("Call with a used ticket = %+v, %+v, %v; want it held anew", parts, held, err)
	}
	parts, held, err = tool.Call(ctx, json.RawMessage("null"))
	if err != nil || held != nil || len(parts) != 1 || !strings.Contains(parts[0].Text, "missing properties") {
		t.Errorf("Call(null) = %+v, %+v, %v; want null read as no arguments (args_invalid: n is missing)", parts, held, err)
	}
}
