package mcpadapter_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// waitSetup is an export of a held delete_file with no client approver
// (an operator decides out of band), served on the stateless endpoint.
func waitSetup(t *testing.T) (url string, d *adapter.Deferred, runs *atomic.Int32) {
	t.Helper()
	runs = new(atomic.Int32)
	h := func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		runs.Add(1)
		return adapter.TextResult("deleted " + string(args)), nil
	}
	reg := registry.New()
	reg.MustRegister(adapter.MustRawTool("delete_file", "Deletes a file.", exObject(nil), h, nil))
	d = &adapter.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d, Policy: adapter.ApproveAlways}})
	t.Cleanup(func() { exec.Close() })
	ex := newExporter(t, reg, exec, &mcpadapter.ExportOptions{})
	return exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Stateless: true}).URL, d, runs
}

// askedWait calls delete_file (with state and answer, when given) and
// returns the wait question's ticket and requestState.
func askedWait(t *testing.T, cs *mcp.ClientSession, args map[string]any, state string, answer *mcp.ElicitResult) (ticket, next string) {
	t.Helper()
	res, err := waitRetry(cs, args, "", state, answer)
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if !res.NeedsInput() || len(res.InputRequests) != 1 || res.RequestState == "" {
		t.Fatalf("%+v (%s); want a wait question", res, exResultText(res))
	}
	for id, ir := range res.InputRequests {
		ticket = strings.TrimPrefix(id, "agentadapter/wait/")
		ep, ok := ir.(*mcp.ElicitParams)
		if !ok || !strings.HasPrefix(id, "agentadapter/wait/") || !strings.Contains(ep.Message, ticket) || ep.Mode != "form" {
			t.Fatalf("question %s: %+v; want a form naming its ticket", id, ir)
		}
		if props, _ := ep.RequestedSchema.(map[string]any)["properties"].(map[string]any); len(props) != 0 {
			t.Errorf("the wait question asks for %v, want nothing", props)
		}
	}
	return ticket, res.RequestState
}

// waitRetry retries delete_file with state, answering ticket's wait
// question with answer (none when nil).
func waitRetry(cs *mcp.ClientSession, args map[string]any, ticket, state string, answer *mcp.ElicitResult) (*mcp.CallToolResult, error) {
	p := &mcp.CallToolParams{Name: "delete_file", Arguments: args, RequestState: state}
	if answer != nil {
		if ticket == "" {
			ticket = ticketOfState(state)
		}
		p.InputResponses = mcp.InputResponseMap{"agentadapter/wait/" + ticket: answer}
	}
	return cs.CallTool(context.Background(), p)
}

// ticketOfState reads the ticket a requestState names (its payload is
// signed, not secret).
func ticketOfState(state string) string {
	i := strings.Index(state, ".")
	if i < 0 {
		return ""
	}
	b, _ := base64URL(state[:i])
	var st struct {
		Ticket string `json:"tkt"`
	}
	json.Unmarshal(b, &st)
	return st.Ticket
}

func exResultText(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

var accepted = &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}

// TestApprovalWait: without a client approver an anonymous 2026-07-28
// caller on the stateless endpoint, which declares elicitation, is asked
// to wait for the operator's decision; its answer brings the ticket and
// the caller back, so the approved call runs, once. Asked again while
// pending; denied is approval_denied; a declined wait is the pending
// payload and runs nothing; a replayed state after the run does not run
// it twice.
func TestApprovalWait(t *testing.T) {
	args := map[string]any{"path": "/tmp/x"}
	t.Run("approved runs once", func(t *testing.T) {
		url, d, runs := waitSetup(t)
		cs := connectStateless(t, url, mrtrClient(), nil)
		ticket, state := askedWait(t, cs, args, "", nil)
		wantState(t, d, ticket, adapter.TicketPending)
		// Answered before the operator decided: the same ticket, asked again.
		again, state2 := askedWait(t, cs, args, state, accepted)
		if again != ticket || runs.Load() != 0 {
			t.Fatalf("while pending: asked about %s (runs %d), want %s again", again, runs.Load(), ticket)
		}
		if err := d.Approve(context.Background(), ticket, "ops"); err != nil {
			t.Fatal(err)
		}
		res, err := waitRetry(cs, args, ticket, state2, accepted)
		if err != nil || res.IsError || res.NeedsInput() || runs.Load() != 1 {
			t.Fatalf("after approval: %+v %v (%s), runs %d; want one run", res, err, exResultText(res), runs.Load())
		}
		wantState(t, d, ticket, adapter.TicketConsumed)
		// Replays of either state do not run it again: a new ticket is held.
		for _, st := range []string{state, state2} {
			next, _ := askedWait(t, cs, args, st, accepted)
			if next == ticket || runs.Load() != 1 {
				t.Errorf("replayed state: asked about %s (runs %d), want a new ticket and no run", next, runs.Load())
			}
		}
	})
	t.Run("denied", func(t *testing.T) {
		url, d, runs := waitSetup(t)
		cs := connectStateless(t, url, mrtrClient(), nil)
		ticket, state := askedWait(t, cs, args, "", nil)
		if err := d.Deny(context.Background(), ticket, "not today", "ops"); err != nil {
			t.Fatal(err)
		}
		res, err := waitRetry(cs, args, ticket, state, accepted)
		if err != nil || !res.IsError || !strings.Contains(exResultText(res), `"approval_denied"`) || !strings.Contains(exResultText(res), "not today") || runs.Load() != 0 {
			t.Fatalf("after denial: %+v %v (%s), runs %d", res, err, exResultText(res), runs.Load())
		}
	})
	t.Run("declined wait", func(t *testing.T) {
		url, d, runs := waitSetup(t)
		cs := connectStateless(t, url, mrtrClient(), nil)
		ticket, state := askedWait(t, cs, args, "", nil)
		for _, action := range []string{"decline", "cancel"} {
			res, err := waitRetry(cs, args, ticket, state, &mcp.ElicitResult{Action: action})
			if err != nil || !res.IsError || res.NeedsInput() || !strings.Contains(exResultText(res), ticket) || !strings.Contains(exResultText(res), `"approval_pending"`) {
				t.Errorf("%s: %+v %v (%s); want the pending payload of %s", action, res, err, exResultText(res), ticket)
			}
		}
		wantState(t, d, ticket, adapter.TicketPending)
		// Declined after the approval: still not run, the approval kept.
		if err := d.Approve(context.Background(), ticket, "ops"); err != nil {
			t.Fatal(err)
		}
		if res, err := waitRetry(cs, args, ticket, state, &mcp.ElicitResult{Action: "decline"}); err != nil || !strings.Contains(exResultText(res), "stopped waiting") || runs.Load() != 0 {
			t.Errorf("declined once approved: %+v %v (%s), runs %d; want no run", res, err, exResultText(res), runs.Load())
		}
		wantState(t, d, ticket, adapter.TicketApproved)
	})
	t.Run("rounds bounded", func(t *testing.T) {
		url, _, runs := waitSetup(t)
		cs := connectStateless(t, url, mrtrClient(), nil)
		ticket, state := askedWait(t, cs, args, "", nil)
		for range 7 { // maxWaitRounds, less the first question
			_, state = askedWait(t, cs, args, state, accepted)
		}
		res, err := waitRetry(cs, args, ticket, state, accepted)
		if err != nil || !res.IsError || res.NeedsInput() || !strings.Contains(exResultText(res), ticket) || runs.Load() != 0 {
			t.Errorf("the 9th round: %+v %v (%s); want the pending payload of %s", res, err, exResultText(res), ticket)
		}
	})
	t.Run("an approval answer decides nothing", func(t *testing.T) {
		url, d, runs := waitSetup(t)
		cs := connectStateless(t, url, mrtrClient(), nil)
		ticket, state := askedWait(t, cs, args, "", nil)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: args, RequestState: state,
			InputResponses: mcp.InputResponseMap{"agentadapter/approval/" + ticket: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}})
		if err != nil || !res.NeedsInput() || runs.Load() != 0 {
			t.Errorf("a self-approval: %+v %v, runs %d; want asked to wait again", res, err, runs.Load())
		}
		wantState(t, d, ticket, adapter.TicketPending)
	})
}

// TestApprovalWaitAttacks: another anonymous request (bob) gets no part
// of alice's approval: its own identical call is held under a ticket of
// its own, and alice's state with other arguments, another tool's name or
// altered is refused before any run. The state is the anonymous caller's
// only proof, a bearer's: racing replays of it run the approved call once.
func TestApprovalWaitAttacks(t *testing.T) {
	args := map[string]any{"path": "/tmp/x"}
	url, d, runs := waitSetup(t)
	alice, bob := connectStateless(t, url, mrtrClient(), nil), connectStateless(t, url, mrtrClient(), nil)
	ticket, state := askedWait(t, alice, args, "", nil)
	if err := d.Approve(context.Background(), ticket, "ops"); err != nil {
		t.Fatal(err)
	}
	if bt, _ := askedWait(t, bob, args, "", nil); bt == ticket || runs.Load() != 0 {
		t.Fatalf("bob's identical call: ticket %s (runs %d), want one of its own", bt, runs.Load())
	}
	res, err := waitRetry(bob, map[string]any{"path": "/etc/passwd"}, ticket, state, accepted)
	wantRefused(t, res, err, "other arguments")
	p, m, _ := strings.Cut(state, ".")
	b, _ := base64URL(p)
	forged := strings.Replace(string(b), `"args":"`, `"args":"x`, 1)
	res, err = waitRetry(bob, args, ticket, base64URLEncode([]byte(forged))+"."+m, accepted)
	wantRefused(t, res, err, "integrity")
	res, err = bob.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: args, RequestState: state})
	if err == nil && !res.IsError {
		t.Errorf("alice's state on another tool: %+v", res)
	}
	if runs.Load() != 0 {
		t.Fatalf("runs %d after the attacks", runs.Load())
	}
	wantState(t, d, ticket, adapter.TicketApproved)
	// Racing replays of alice's state (hers, or a thief's) run her
	// approved call once.
	var wg sync.WaitGroup
	var ran atomic.Int32
	for i := range 8 {
		cs := alice
		if i%2 == 1 {
			cs = bob
		}
		wg.Go(func() {
			if res, err := waitRetry(cs, args, ticket, state, accepted); err == nil && !res.IsError && !res.NeedsInput() {
				ran.Add(1)
			}
		})
	}
	wg.Wait()
	if runs.Load() != 1 || ran.Load() != 1 {
		t.Fatalf("8 racing retries of one approved wait: runs %d, %d results; want 1", runs.Load(), ran.Load())
	}
	wantState(t, d, ticket, adapter.TicketConsumed)
}

// TestApprovalWaitWithoutElicitation: an anonymous stateless caller that
// cannot be asked gets the pending payload saying why its retry cannot be
// matched.
func TestApprovalWaitWithoutElicitation(t *testing.T) {
	args := map[string]any{"path": "/tmp/x"}
	url, _, runs := waitSetup(t)
	cs := connectStateless(t, url, nil, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: args})
	txt := exResultText(res)
	if err != nil || !res.IsError || res.NeedsInput() || !strings.Contains(txt, `"approval_pending"`) ||
		!strings.Contains(txt, "anonymous and stateless") || !strings.Contains(txt, "declares elicitation") || runs.Load() != 0 {
		t.Fatalf("%+v %v (%s); want the pending payload explaining the stateless caller", res, err, txt)
	}
	var p adapter.Payload
	if err := json.Unmarshal([]byte(txt), &p); err != nil || p.Error.Ticket == "" || p.Error.Kind != adapter.KindApprovalPending {
		t.Errorf("payload %s: %v", txt, err)
	}
}

func base64URL(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }

func base64URLEncode(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// TestApprovalWaitFlood: a client flooding the stateless endpoint with
// held calls, each asked to wait and never answered, and with retries of
// one wait state, is asked 32 times (the questions of one client address;
// past them its calls answer with their ticket), leaves no goroutine per
// request behind, and its retries open no ticket.
func TestApprovalWaitFlood(t *testing.T) {
	url, d, runs := waitSetup(t)
	cs := connectStateless(t, url, mrtrClient(), nil)
	base := runtime.NumGoroutine()
	const n, maxAsked = 200, 32
	start := time.Now()
	var state string
	for i := range n {
		if i < maxAsked {
			_, state = askedWait(t, cs, map[string]any{"path": fmt.Sprint(i)}, "", nil)
			continue
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": fmt.Sprint(i)}})
		if err != nil || res.NeedsInput() || !strings.Contains(exResultText(res), `"kind":"approval_pending"`) {
			t.Fatalf("held call %d past %d questions: %+v, %v; want its ticket", i+1, maxAsked, res, err)
		}
	}
	ticket := ticketOfState(state)
	for range n {
		if tk, _ := askedWait(t, cs, map[string]any{"path": fmt.Sprint(maxAsked - 1)}, state, accepted); tk != ticket {
			t.Fatalf("a retry was asked about %s, want %s", tk, ticket)
		}
	}
	t.Logf("%d held calls and %d retries of one wait: %v", n, n, time.Since(start))
	got := 0
	for _, err := range d.Pending(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		got++
	}
	if got != n {
		t.Errorf("%d pending tickets, want %d (one per held call, none per retry)", got, n)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base+5 {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after the flood, %d before", runtime.NumGoroutine(), base)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if runs.Load() != 0 {
		t.Errorf("runs %d", runs.Load())
	}
}
