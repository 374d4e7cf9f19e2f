package mcpadapter_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// TestExportTasksCloseWaits: Close returns once the running tasks' calls
// have returned, not while one is still inside the executor: the gateway
// closes the executor right after the exporter on a reload, and a call
// ending after that is not recorded.
func TestExportTasksCloseWaits(t *testing.T) {
	var inside atomic.Int32
	reg := registry.New()
	reg.MustRegister(adapter.MustRawTool("linger", "Runs until cancelled.", exObject(nil),
		func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			inside.Add(1)
			<-ctx.Done()
			return nil, ctx.Err()
		}, nil))
	ledger := adapter.NewMemoryLedger(100)
	// A hook that takes its time after the tool returned (cleaning up).
	slowHook := func(next adapter.Invoker) adapter.Invoker {
		return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
			res, err := next(ctx, c)
			time.Sleep(300 * time.Millisecond)
			return res, err
		}
	}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: ledger, Hooks: []adapter.Hook{slowHook}})
	ex, err := mcpadapter.NewExporter(reg, exec, &mcpadapter.ExportOptions{Tasks: &mcpadapter.TaskOptions{
		Support: func(*adapter.Spec, *mcp.CallToolRequest) mcpadapter.TaskSupport { return mcpadapter.TaskOptional }}})
	if err != nil {
		t.Fatal(err)
	}
	url := exServeHTTP(t, ex, nil).URL
	c := &rawClient{t: t, url: url, tasks: true}
	for range 3 {
		if r := c.call("linger", nil); !isTask(r) {
			t.Fatalf("not a task: %v", r)
		}
	}
	for inside.Load() < 3 {
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	if err := ex.Close(); err != nil {
		t.Fatal(err)
	}
	waited := time.Since(start)
	_ = exec.Close() // as the gateway's reload does
	if n := len(ledger.Records()); n != 3 {
		t.Errorf("after Close (%v) and the executor's: %d ledger records of 3 tasks; a task was still in the executor", waited, n)
	}
}
