package mcpadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// approvalSetup registers a destructive tool that counts its runs behind
// an executor that holds every call for a deferred approval.
func approvalSetup(t *testing.T, approver bool) (*mcpadapter.Exporter, *adapter.Deferred, *atomic.Int32) {
	t.Helper()
	runs := new(atomic.Int32)
	reg := registry.New()
	reg.MustRegister(adapter.MustRawTool("delete_file", "Deletes a file.", exObject(nil),
		func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
			runs.Add(1)
			return adapter.TextResult("deleted " + string(args)), nil
		}, nil))
	deferred := &adapter.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: deferred, Policy: adapter.ApproveAlways}})
	t.Cleanup(func() { exec.Close() })
	opts := &mcpadapter.ExportOptions{}
	if approver {
		opts.Approver = deferred
	}
	return newExporter(t, reg, exec, opts), deferred, runs
}

func exPayload(t *testing.T, res *mcp.CallToolResult) adapter.PayloadError {
	t.Helper()
	if !res.IsError || len(res.Content) != 1 {
		t.Fatalf("result is not an error payload: %+v", res)
	}
	var p adapter.Payload
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &p); err != nil {
		t.Fatalf("payload: %v", err)
	}
	return p.Error
}

// elicitor answers approval questions and records them.
type elicitor struct {
	answer  *mcp.ElicitResult
	asked   atomic.Int32
	message atomic.Value
}

func (e *elicitor) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.asked.Add(1)
	e.message.Store(req.Params.Message)
	return e.answer, nil
}

func TestApprovalOverMCP(t *testing.T) {
	accept := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
	refuse := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": false, "reason": "not that file"}}
	decline := &mcp.ElicitResult{Action: "decline"}
	tests := []struct {
		name      string
		transport string // "memory" or "http"
		version   string // in-memory protocol version; "" = 2026-07-28
		answer    *mcp.ElicitResult
		wantKind  adapter.Kind // "" = the call ran
		wantMsg   string
	}{
		{"2026-07-28 input requests, approved", "memory", "", accept, "", ""},
		{"2026-07-28 input requests, refused", "memory", "", refuse, adapter.KindApprovalDenied, "not that file"},
		{"2025-11-25 elicitation, approved", "memory", "2025-11-25", accept, "", ""},
		{"2025-11-25 elicitation, declined", "memory", "2025-11-25", decline, adapter.KindApprovalDenied, "the user declined"},
		{"2025-06-18 elicitation, approved", "memory", "2025-06-18", accept, "", ""},
		{"streamable HTTP elicitation, approved", "http", "", accept, "", ""},
		{"streamable HTTP elicitation, declined", "http", "", decline, adapter.KindApprovalDenied, "the user declined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, deferred, runs := approvalSetup(t, true)
			el := &elicitor{answer: tt.answer}
			copts := &mcp.ClientOptions{ElicitationHandler: el.handle}
			var cs *mcp.ClientSession
			if tt.transport == "http" {
				cs = exConnectHTTP(t, exServeHTTP(t, ex, nil).URL, copts, nil)
			} else {
				cs = exConnect(t, ex, copts, tt.version)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "/tmp/x"}})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if el.asked.Load() != 1 {
				t.Fatalf("the user was asked %d times, want once", el.asked.Load())
			}
			if msg, _ := el.message.Load().(string); !strings.Contains(msg, `"delete_file"`) || !strings.Contains(msg, `{"path":"/tmp/x"}`) {
				t.Errorf("question %q does not name the tool and arguments", msg)
			}
			if tt.wantKind == "" {
				if res.IsError || runs.Load() != 1 {
					t.Fatalf("approved call: result %+v, runs %d; want one successful run", res, runs.Load())
				}
			} else {
				p := exPayload(t, res)
				if p.Kind != tt.wantKind || !strings.Contains(p.Message, tt.wantMsg) {
					t.Errorf("payload = %+v, want kind %s with %q", p, tt.wantKind, tt.wantMsg)
				}
				if runs.Load() != 0 {
					t.Errorf("a refused call ran %d times", runs.Load())
				}
			}
			// Every ticket the user saw is decided: none is left pending.
			for tk, err := range deferred.Pending(context.Background()) {
				if err != nil {
					t.Fatal(err)
				}
				t.Errorf("ticket %s left pending", tk.ID)
			}
		})
	}
}

func TestApprovalTicketWithoutElicitation(t *testing.T) {
	tests := []struct {
		name     string
		approver bool
		copts    *mcp.ClientOptions
		version  string
	}{
		{"no approver configured", false, &mcp.ClientOptions{ElicitationHandler: (&elicitor{}).handle}, ""},
		{"client cannot elicit, 2026-07-28", true, nil, ""},
		{"client cannot elicit, 2025-11-25", true, nil, "2025-11-25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, deferred, runs := approvalSetup(t, tt.approver)
			cs := exConnect(t, ex, tt.copts, tt.version)
			args := map[string]any{"path": "/etc/passwd"}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			p := exPayload(t, res)
			if p.Kind != adapter.KindApprovalPending || p.Ticket == "" || !strings.Contains(p.Message, p.Ticket) {
				t.Fatalf("payload = %+v, want approval_pending naming its ticket", p)
			}
			if got := res.Meta[mcpadapter.MetaKeyError].(map[string]any)["ticket"]; got != p.Ticket {
				t.Errorf("_meta ticket = %v, want %s", got, p.Ticket)
			}
			// Approved out of band, the same call runs once.
			if err := deferred.Approve(context.Background(), p.Ticket, "ops"); err != nil {
				t.Fatal(err)
			}
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: args})
			if err != nil || res.IsError || runs.Load() != 1 {
				t.Fatalf("after approval: %+v, %v, runs %d", res, err, runs.Load())
			}
		})
	}
}

// TestApprovalAnswerForUnaskedTicket checks that a client cannot approve a
// ticket by sending an answer it was never asked for.
func TestApprovalAnswerForUnaskedTicket(t *testing.T) {
	ex, deferred, runs := approvalSetup(t, true)
	cs := exConnect(t, ex, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, "")
	args := map[string]any{"path": "/x"}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	p := exPayload(t, res) // this client declared no elicitation: a plain ticket
	forged := &mcp.CallToolParams{Name: "delete_file", Arguments: args, InputResponses: mcp.InputResponseMap{
		"agentadapter/approval/" + p.Ticket: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}},
	}}
	res, err = cs.CallTool(context.Background(), forged)
	if err != nil {
		t.Fatal(err)
	}
	if got := exPayload(t, res); got.Kind != adapter.KindApprovalPending || runs.Load() != 0 {
		t.Errorf("forged approval: %+v, runs %d; want still pending", got, runs.Load())
	}
	tk, err := deferred.Ticket(context.Background(), p.Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if tk.State != adapter.TicketPending {
		t.Errorf("ticket state = %v, want pending", tk.State)
	}
}
