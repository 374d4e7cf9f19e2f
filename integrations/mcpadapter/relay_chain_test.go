package mcpadapter_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// TestRelayChainedApproval: a gateway fronting another export relays that
// export's approval question: a go-sdk client → export A (no approval of
// its own) importing, over stateless HTTP, export B, whose tool "deploy"
// needs the client's user's approval (ExportOptions.Approver). The client
// is asked B's question once, through A, under A's namespaced id; its
// approval goes back to B under B's own, and the call runs once, B's
// ticket decided by the client. Callers at 2026-07-28 (input-required
// results, answered by go-sdk) and at 2025-11-25 (asked during the call).
// Before, A refused B's question (its "agentadapter/" id) with a tool
// error.
func TestRelayChainedApproval(t *testing.T) {
	// Export B: deploy needs approval, the client's user decides.
	regB := registry.New()
	d := &adapter.Deferred{}
	execB := adapter.NewExecutor(regB, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d, Policy: adapter.ApproveAlways}})
	t.Cleanup(func() { execB.Close() })
	var runs atomic.Int32
	regB.MustRegister(adapter.MustRawTool("deploy", "Deploys.", exObject(nil), func(context.Context, json.RawMessage) (*adapter.Result, error) {
		runs.Add(1)
		return adapter.TextResult("deployed"), nil
	}, nil))
	exB := newExporter(t, regB, execB, &mcpadapter.ExportOptions{Approver: d})
	urlB := exServeHTTP(t, exB, &mcpadapter.HTTPOptions{Stateless: true}).URL

	// Export A: imports B, asks no approval itself.
	regA := registry.New()
	execA := adapter.NewExecutor(regA, nil)
	t.Cleanup(func() { execA.Close() })
	m := mcpadapter.NewManager(regA, &mcpadapter.ManagerOptions{Executor: execA})
	t.Cleanup(func() { m.Close() })
	if err := m.Connect(context.Background(), mcpadapter.Upstream{Name: "b", URL: urlB, Trust: true}); err != nil {
		t.Fatal(err)
	}
	exA := newExporter(t, regA, execA, nil)

	for _, era := range callerEras {
		t.Run(era.name, func(t *testing.T) {
			runs.Store(0)
			var approvals atomic.Int32
			elicit := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				if props, _ := req.Params.RequestedSchema.(map[string]any)["properties"].(map[string]any); props["approve"] == nil {
					t.Errorf("asked %+v, want B's approval question", req.Params)
				}
				approvals.Add(1)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
			}
			cs := era.connect(t, exA, &mcp.ClientOptions{ElicitationHandler: elicit})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
			if err != nil {
				t.Fatal(err)
			}
			if text := relayText(t, res); res.IsError || text != "deployed" {
				t.Errorf("result %q (isError %v), want deployed", text, res.IsError)
			}
			if approvals.Load() != 1 || runs.Load() != 1 {
				t.Errorf("approvals asked %d, deploy ran %d times; want 1, 1", approvals.Load(), runs.Load())
			}
			for tk, err := range d.Pending(context.Background()) {
				if err != nil {
					t.Fatal(err)
				}
				t.Errorf("B's ticket %s left pending", tk.ID)
			}
		})
	}
}

// TestRelayChainedApprovalIDs: at 2026-07-28, by hand, the client sees B's
// approval question through A under "agentadapter/relayed/" and B's id,
// never B's own id (which A would take for its own question).
func TestRelayChainedApprovalIDs(t *testing.T) {
	regB := registry.New()
	d := &adapter.Deferred{}
	execB := adapter.NewExecutor(regB, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d, Policy: adapter.ApproveAlways}})
	t.Cleanup(func() { execB.Close() })
	regB.MustRegister(adapter.MustRawTool("deploy", "Deploys.", exObject(nil), func(context.Context, json.RawMessage) (*adapter.Result, error) {
		return adapter.TextResult("deployed"), nil
	}, nil))
	urlB := exServeHTTP(t, newExporter(t, regB, execB, &mcpadapter.ExportOptions{Approver: d}), &mcpadapter.HTTPOptions{Stateless: true}).URL
	regA := registry.New()
	execA := adapter.NewExecutor(regA, nil)
	t.Cleanup(func() { execA.Close() })
	m := mcpadapter.NewManager(regA, &mcpadapter.ManagerOptions{Executor: execA})
	t.Cleanup(func() { m.Close() })
	if err := m.Connect(context.Background(), mcpadapter.Upstream{Name: "b", URL: urlB, Trust: true}); err != nil {
		t.Fatal(err)
	}
	cs := connectStateless(t, exServeHTTP(t, newExporter(t, regA, execA, nil), &mcpadapter.HTTPOptions{Stateless: true}).URL, mrtrClient(), nil)
	ctx := context.Background()
	r1, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}})
	if err != nil || !r1.NeedsInput() || len(r1.InputRequests) != 1 {
		t.Fatalf("round 1: %+v, %v; want B's approval question", r1, err)
	}
	var id string
	for id = range r1.InputRequests {
	}
	var ticket string
	for tk, err := range d.Pending(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		ticket = tk.ID
	}
	if want := "agentadapter/relayed/agentadapter/approval/" + ticket; ticket == "" || id != want {
		t.Fatalf("round 1 asked %q, want %q", id, want)
	}
	r2, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}, RequestState: r1.RequestState,
		InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}})
	if err != nil || r2.NeedsInput() || r2.IsError || relayText(t, r2) != "deployed" {
		t.Errorf("round 2: %+v, %v; want deployed", r2, err)
	}
}
