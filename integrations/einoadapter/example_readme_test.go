package einoadapter_test

import (
	"context"
	"encoding/json"
	"log"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// The README's Eino snippets are the code between the "README: begin" and
// "README: end" markers here, as printed there: a line marked "README:
// omit" is left out of the README, one marked "README: uncomment" is
// printed without its leading "// ".

// README: begin type
type ReportIn struct {
	Name string `json:"name" jsonschema:"the report's file name"`
}

// README: end type

// readmeTools registers the README's two tools: delete_report, built with
// nil options (destructive and open-world, so held), and get_time, marked
// read-only and closed-world (never held).
func readmeTools(deleted, timed *atomic.Int32) *registry.Registry {
	// README: begin tools
	reg := registry.New()
	reg.MustRegister(
		adapter.MustTool("delete_report", "Delete a report.",
			func(ctx context.Context, in ReportIn) (string, error) {
				deleted.Add(1) // README: omit
				return "deleted " + in.Name, nil
			}, nil), // no annotations: destructive and open-world, held for approval
		adapter.MustTool("get_time", "The current time.",
			func(ctx context.Context, _ struct{}) (string, error) {
				timed.Add(1) // README: omit
				return "09:00", nil
			}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: new(bool)}}),
	)
	// README: end tools
	return reg
}

// readmeModel asks for get_time and delete_report in one turn, then answers.
func readmeModel() *scriptedModel {
	return newModel(call("t1", "get_time", `{}`), call("d1", "delete_report", `{"name":"q3.txt"}`))
}

// readmeAgent is the README's Eino snippet as printed there; generate is
// its last statement, so a test can run the agent more than once.
func readmeAgent(ctx context.Context, reg *registry.Registry, chatModel model.ToolCallingChatModel) (func(context.Context, []*schema.Message) (*schema.Message, error), *approval.Deferred, *adapter.Executor) {
	// README: begin agent
	deferred := &approval.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
		Approval: adapter.ApprovalOptions{Port: deferred},
	})
	// defer exec.Close() // README: uncomment

	// react.NewAgent takes no checkpoint store, so a held call cannot pause
	// it: PendingAsPayload hands the model the ticket, and the run goes on.
	tools, err := einoadapter.Tools(reg, exec, &einoadapter.Options{PendingAsPayload: true})
	if err != nil {
		log.Fatal(err)
	}
	a, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: chatModel,
		ToolsConfig: compose.ToolsNodeConfig{
			Tools:               tools,
			ToolCallMiddlewares: []compose.ToolMiddleware{einoadapter.Middleware()},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	generate := func(ctx context.Context, msgs []*schema.Message) (*schema.Message, error) { // README: omit
		msg, err := a.Generate(ctx, msgs,
			agent.WithComposeOptions(compose.WithCallbacks(einoadapter.RunScope(nil))))
		// README: end agent
		return msg, err
	}
	return generate, deferred, exec
}

// pendingTicket returns the ticket of the pending payload the model read
// for call id, or fails the test.
func pendingTicket(t *testing.T, m *scriptedModel, id string) string {
	t.Helper()
	var p adapter.Payload
	got := m.toolResults()[id]
	if got == nil || json.Unmarshal([]byte(got.Content), &p) != nil || p.Error.Kind != adapter.KindApprovalPending || p.Error.Ticket == "" {
		t.Fatalf("model read for %s %v, want a pending payload with a ticket", id, got)
	}
	return p.Error.Ticket
}

// TestReadmeEino runs the README's react.NewAgent snippet: Generate
// succeeds, get_time runs, the held delete_report comes back to the model as
// a pending payload with a ticket; once approved, the model's call with the
// same arguments runs it once, and a call after that is held anew.
func TestReadmeEino(t *testing.T) {
	ctx := context.Background()
	var deleted, timed atomic.Int32
	reg := readmeTools(&deleted, &timed)
	m := readmeModel()
	msgs := userMsg("delete the Q3 report and tell me the time")
	generate, deferred, exec := readmeAgent(ctx, reg, m)
	defer exec.Close()

	msg, err := generate(ctx, msgs)
	if err != nil {
		t.Fatalf("Generate: %v, want success (the held call as a payload)", err)
	}
	if got := timed.Load(); got != 1 {
		t.Errorf("get_time ran %d times, want 1", got)
	}
	if got := deleted.Load(); got != 0 {
		t.Fatalf("delete_report ran %d times before approval, want 0", got)
	}
	if got := m.toolResults()["t1"]; got == nil || got.Content != "09:00" {
		t.Errorf("model read for get_time %v, want 09:00", got)
	}
	ticket := pendingTicket(t, m, "d1")
	if !strings.Contains(msg.Content, "t1=09:00") || !strings.Contains(msg.Content, ticket) {
		t.Errorf("final answer %q, want both tool results (get_time's and the ticket)", msg.Content)
	}
	if tk, err := deferred.Ticket(ctx, ticket); err != nil || tk.State != adapter.TicketPending || tk.Tool != "delete_report" {
		t.Fatalf("ticket %s: %+v %v, want a pending ticket for delete_report", ticket, tk, err)
	}

	if err := deferred.Approve(ctx, ticket, "ops"); err != nil {
		t.Fatal(err)
	}
	// Resume: the model calls again with the same arguments; the approved
	// ticket lets exactly that call run, once.
	if _, err := generate(ctx, msgs); err != nil {
		t.Fatalf("Generate after approval: %v", err)
	}
	if got := deleted.Load(); got != 1 {
		t.Fatalf("delete_report ran %d times after approval, want 1", got)
	}
	if got := m.toolResults()["d1"]; got == nil || got.Content != "deleted q3.txt" {
		t.Errorf("model read for delete_report after approval %v, want deleted q3.txt", got)
	}
	if tk, err := deferred.Ticket(ctx, ticket); err != nil || tk.State != adapter.TicketConsumed {
		t.Errorf("ticket %s after the run: %+v %v, want consumed", ticket, tk, err)
	}

	// The ticket was one-use: the same call again is held with a new one.
	if _, err := generate(ctx, msgs); err != nil {
		t.Fatalf("third Generate: %v", err)
	}
	if got := deleted.Load(); got != 1 {
		t.Errorf("delete_report ran %d times in all, want 1", got)
	}
	if again := pendingTicket(t, m, "d1"); again == ticket {
		t.Errorf("third call reused ticket %s, want a new one", ticket)
	}
	if got := timed.Load(); got != 3 {
		t.Errorf("get_time ran %d times in three runs, want 3", got)
	}
}

// TestReadmeEinoWithoutPayload is what the README warns of: the same agent
// without PendingAsPayload, and so without a checkpoint store to resume
// from, fails Generate with eino's interrupt when a call is held.
func TestReadmeEinoWithoutPayload(t *testing.T) {
	ctx := context.Background()
	var deleted, timed atomic.Int32
	reg := readmeTools(&deleted, &timed)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: &adapter.Deferred{}}})
	defer exec.Close()
	tools, err := einoadapter.Tools(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: readmeModel(),
		ToolsConfig:      compose.ToolsNodeConfig{Tools: tools, ToolCallMiddlewares: []compose.ToolMiddleware{einoadapter.Middleware()}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Generate(ctx, userMsg("delete the Q3 report and tell me the time"))
	if err == nil || !strings.Contains(err.Error(), "interrupt") {
		t.Fatalf("Generate: %v, want eino's interrupt error", err)
	}
	if pending := einoadapter.PendingFromError(err); len(pending) != 1 || pending[0].Tool != "delete_report" {
		t.Errorf("PendingFromError: %+v, want the held delete_report", pending)
	}
}
