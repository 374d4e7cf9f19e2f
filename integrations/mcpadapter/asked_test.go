package mcpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// askedOrTicket calls delete_file with path and returns the ticket of its
// approval question, or "" and the ticket of the pending result it
// answered with instead.
func askedOrTicket(t *testing.T, cs *mcp.ClientSession, path string) (asked, state, pending string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": path}})
	if err != nil {
		t.Fatalf("CallTool %s: %v", path, err)
	}
	if res.NeedsInput() {
		tk, st := askedTicketOf(t, res)
		return tk, st, ""
	}
	var p adapter.Payload
	if err := json.Unmarshal([]byte(exResultText(res)), &p); err != nil || p.Error.Kind != adapter.KindApprovalPending || p.Error.Ticket == "" {
		t.Fatalf("call %s: %s (%v); want a question or the pending payload with its ticket", path, exResultText(res), err)
	}
	return "", "", p.Error.Ticket
}

func askedTicketOf(t *testing.T, res *mcp.CallToolResult) (string, string) {
	t.Helper()
	if len(res.InputRequests) != 1 || res.RequestState == "" {
		t.Fatalf("%+v; want one question and a requestState", res)
	}
	for id := range res.InputRequests {
		return id[len("agentadapter/approval/"):], res.RequestState
	}
	return "", ""
}

// TestAskedCapStateless: a caller of the stateless endpoint flooding it
// with held calls it never answers is asked at most 32 questions, as a
// session is: each request is a temporary session, but the questions are
// the caller's (its token's subject, else its address), not the
// request's. Past the cap its calls answer with their ticket; another
// token is still asked, and an answered question frees its place.
func TestAskedCapStateless(t *testing.T) {
	ex, _, _ := stateSetup(t, nil)
	url := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Stateless: true, Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}}).URL
	alice := connectStateless(t, url, mrtrClient(), bearerClient("alice"))
	const n, maxAsked = 40, 32
	var first, firstState string
	for i := range n {
		asked, state, pending := askedOrTicket(t, alice, fmt.Sprint(i))
		switch {
		case i < maxAsked && asked == "":
			t.Fatalf("call %d of %d: answered with ticket %s, want a question (cap %d)", i+1, n, pending, maxAsked)
		case i >= maxAsked && pending == "":
			t.Fatalf("call %d of %d: asked (ticket %s), want its ticket past the cap of %d questions", i+1, n, asked, maxAsked)
		}
		if i == 0 {
			first, firstState = asked, state
		}
	}
	bob := connectStateless(t, url, mrtrClient(), bearerClient("bob"))
	if asked, _, _ := askedOrTicket(t, bob, "b"); asked == "" {
		t.Error("bob was not asked: alice's flood filled his cap")
	}

	// Answering one of alice's questions frees its place.
	if res, err := answer(alice, map[string]any{"path": "0"}, first, firstState, false); err != nil || !res.IsError {
		t.Fatalf("alice denies %s: %+v, %v", first, res, err)
	}
	if asked, _, pending := askedOrTicket(t, alice, "after"); asked == "" {
		t.Errorf("after answering one question: answered with ticket %s, want a question", pending)
	}
}

// TestAskedCapStatelessAnonymous: without auth the questions of the
// stateless endpoint count per client address.
func TestAskedCapStatelessAnonymous(t *testing.T) {
	ex, _, _ := stateSetup(t, nil)
	url := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Stateless: true}).URL
	cs := connectStateless(t, url, mrtrClient(), http.DefaultClient)
	got := 0
	for i := range 40 {
		if asked, _, _ := askedOrTicket(t, cs, fmt.Sprint(i)); asked != "" {
			got++
		}
	}
	if got != 32 {
		t.Errorf("%d of 40 held calls asked, want 32 (the cap of one client address)", got)
	}
}

// TestAskedCapStatelessWaitFreed: an anonymous stateless caller at its 32
// wait questions whose held call an operator approved and whose retry ran
// it has that question's place back: its next held call is asked again.
func TestAskedCapStatelessWaitFreed(t *testing.T) {
	url, d, runs := waitSetup(t)
	cs := connectStateless(t, url, mrtrClient(), nil)
	var ticket, state string
	for i := range 32 {
		ticket, state = askedWait(t, cs, map[string]any{"path": fmt.Sprint(i)}, "", nil)
	}
	if err := d.Approve(context.Background(), ticket, "operator"); err != nil {
		t.Fatal(err)
	}
	if res, err := waitRetry(cs, map[string]any{"path": "31"}, "", state, accepted); err != nil || res.IsError || runs.Load() != 1 {
		t.Fatalf("the approved call's retry: %+v, %v (runs %d); want it run", res, err, runs.Load())
	}
	askedWait(t, cs, map[string]any{"path": "next"}, "", nil)
}
