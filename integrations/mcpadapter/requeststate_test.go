package mcpadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// mrtrClient returns options of a 2026-07-28 client that declares
// elicitation but answers input-required results itself (the test plays
// the client's user and retries by hand).
func mrtrClient() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("not asked this way")
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}
}

// connectStateless connects a go-sdk client at 2026-07-28 to url over
// streamable HTTP.
func connectStateless(t *testing.T, url string, copts *mcp.ClientOptions, client *http.Client) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, copts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatalf("Connect %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// ask calls delete_file with args and returns the approval question's
// ticket and requestState.
func ask(t *testing.T, cs *mcp.ClientSession, args map[string]any) (ticket, state string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: args})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if !res.NeedsInput() || len(res.InputRequests) != 1 || res.RequestState == "" {
		t.Fatalf("first call: %+v; want an input-required result with one question and a requestState", res)
	}
	for id := range res.InputRequests {
		ticket = strings.TrimPrefix(id, "agentadapter/approval/")
	}
	return ticket, res.RequestState
}

// answer retries delete_file with the user's answer to ticket's question.
func answer(cs *mcp.ClientSession, args map[string]any, ticket, state string, approve bool) (*mcp.CallToolResult, error) {
	return cs.CallTool(context.Background(), &mcp.CallToolParams{
		Name: "delete_file", Arguments: args, RequestState: state,
		InputResponses: mcp.InputResponseMap{
			"agentadapter/approval/" + ticket: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": approve}},
		},
	})
}

// wantRefused checks that err is the invalid-params error refusing a state
// or an answer, naming why.
func wantRefused(t *testing.T, res *mcp.CallToolResult, err error, why string) {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("result %+v, error %v; want a JSON-RPC error", res, err)
	}
	if je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, why) {
		t.Errorf("error = %d %q, want %d naming %q", je.Code, je.Message, jsonrpc.CodeInvalidParams, why)
	}
}

func wantState(t *testing.T, d *adapter.Deferred, ticket string, want adapter.TicketState) {
	t.Helper()
	tk, err := d.Ticket(context.Background(), ticket)
	if err != nil {
		t.Fatal(err)
	}
	if tk.State != want {
		t.Errorf("ticket %s is %v, want %v", ticket, tk.State, want)
	}
}

// transports2026 runs a case over the in-memory transport and over the
// stateless streamable HTTP endpoint, each at 2026-07-28.
var transports2026 = []struct {
	name    string
	connect func(t *testing.T, ex *mcpadapter.Exporter) *mcp.ClientSession
}{
	{"memory", func(t *testing.T, ex *mcpadapter.Exporter) *mcp.ClientSession {
		return exConnect(t, ex, mrtrClient(), "2026-07-28")
	}},
	{"stateless HTTP", func(t *testing.T, ex *mcpadapter.Exporter) *mcp.ClientSession {
		return connectStateless(t, exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Stateless: true}).URL, mrtrClient(), nil)
	}},
}

// TestRequestStateApproval: a 2026-07-28 client's held call is asked with
// an input-required result carrying a requestState; the retry with the
// answer and the state approves or denies the ticket, once.
func TestRequestStateApproval(t *testing.T) {
	args := map[string]any{"path": "/tmp/x"}
	for _, tr := range transports2026 {
		t.Run(tr.name+"/approve, then replay", func(t *testing.T) {
			ex, d, runs := stateSetup(t, nil)
			cs := tr.connect(t, ex)
			ticket, state := ask(t, cs, args)
			res, err := answer(cs, args, ticket, state, true)
			if err != nil || res.IsError || runs.Load() != 1 {
				t.Fatalf("approved retry: %+v, %v (runs %d); want one run", res, err, runs.Load())
			}
			wantState(t, d, ticket, adapter.TicketConsumed)
			// The same answer again: the ticket was decided once.
			res, err = answer(cs, args, ticket, state, true)
			wantRefused(t, res, err, "no longer pending")
			if runs.Load() != 1 {
				t.Errorf("a replayed answer ran the call again (runs %d)", runs.Load())
			}
		})
		t.Run(tr.name+"/deny, then replay as approve", func(t *testing.T) {
			ex, d, runs := stateSetup(t, nil)
			cs := tr.connect(t, ex)
			ticket, state := ask(t, cs, args)
			res, err := answer(cs, args, ticket, state, false)
			if err != nil {
				t.Fatal(err)
			}
			if p := exPayload(t, res); p.Kind != adapter.KindApprovalDenied {
				t.Errorf("denied retry: %+v, want approval_denied", p)
			}
			res, err = answer(cs, args, ticket, state, true)
			wantRefused(t, res, err, "no longer pending")
			if runs.Load() != 0 {
				t.Errorf("a denied call ran (runs %d)", runs.Load())
			}
			wantState(t, d, ticket, adapter.TicketConsumed)
		})
		t.Run(tr.name+"/hostile states decide nothing", func(t *testing.T) {
			ex, d, runs := stateSetup(t, nil)
			cs := tr.connect(t, ex)
			ticket, state := ask(t, cs, args)
			p64, mac, _ := strings.Cut(state, ".")
			flip := func(s string) string { // another base64url character at the middle
				b := []byte(s)
				if b[len(b)/2] == 'A' {
					b[len(b)/2] = 'B'
				} else {
					b[len(b)/2] = 'A'
				}
				return string(b)
			}
			for _, c := range []struct{ name, state, why string }{
				{"payload altered", flip(p64) + "." + mac, "integrity"},
				{"mac altered", p64 + "." + flip(mac), "integrity"},
				{"suffix", state + "-TAMPERED", "integrity"},
				{"no mac", p64, "malformed"},
				{"oversized", strings.Repeat("A", 5000) + "." + mac, "longer than"},
				{"another key", otherKeyState(t, args), "integrity"},
			} {
				res, err := answer(cs, args, ticket, c.state, true)
				wantRefused(t, res, err, c.why)
			}
			// A valid state, but other arguments or another tool.
			res, err := answer(cs, map[string]any{"path": "/etc"}, ticket, state, true)
			wantRefused(t, res, err, "other arguments")
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "other", Arguments: args, RequestState: state,
				InputResponses: mcp.InputResponseMap{"agentadapter/approval/" + ticket: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}})
			wantRefused(t, res, err, "another tool")
			// The answer is not an elicitation result.
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: args, RequestState: state,
				InputResponses: mcp.InputResponseMap{"agentadapter/approval/" + ticket: &mcp.ListRootsResult{Roots: []*mcp.Root{}}}})
			wantRefused(t, res, err, "not an elicitation result")
			if runs.Load() != 0 {
				t.Errorf("a hostile retry ran the call (runs %d)", runs.Load())
			}
			wantState(t, d, ticket, adapter.TicketPending)
			// The genuine answer still works.
			if res, err := answer(cs, args, ticket, state, true); err != nil || res.IsError || runs.Load() != 1 {
				t.Fatalf("genuine answer after the attacks: %+v, %v (runs %d)", res, err, runs.Load())
			}
		})
		t.Run(tr.name+"/a valid state without its answer is asked again", func(t *testing.T) {
			ex, d, runs := stateSetup(t, nil)
			cs := tr.connect(t, ex)
			ticket, state := ask(t, cs, args)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: args, RequestState: state,
				InputResponses: mcp.InputResponseMap{"agentadapter/approval/tkt_forged": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}})
			if err != nil || !res.NeedsInput() {
				t.Fatalf("retry without the answer: %+v, %v; want the question again", res, err)
			}
			if _, ok := res.InputRequests["agentadapter/approval/"+ticket]; !ok || runs.Load() != 0 {
				t.Errorf("asked %v (runs %d), want the same ticket %s again", res.InputRequests, runs.Load(), ticket)
			}
			wantState(t, d, ticket, adapter.TicketPending)
		})
	}
}

// stateSetup is approvalSetup with a second held tool, "other", and
// RequestStateKey key (nil: a random one).
func stateSetup(t *testing.T, key []byte) (*mcpadapter.Exporter, *adapter.Deferred, *atomic.Int32) {
	t.Helper()
	runs := new(atomic.Int32)
	h := func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		runs.Add(1)
		return adapter.TextResult("deleted " + string(args)), nil
	}
	reg := registry.New()
	reg.MustRegister(adapter.MustRawTool("delete_file", "Deletes a file.", exObject(nil), h, nil),
		adapter.MustRawTool("other", "Another destructive tool.", exObject(nil), h, nil))
	d := &adapter.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d, Policy: adapter.ApproveAlways}})
	t.Cleanup(func() { exec.Close() })
	return newExporter(t, reg, exec, &mcpadapter.ExportOptions{Approver: d, RequestStateKey: key}), d, runs
}

// otherKeyState is a requestState minted by another exporter (another key)
// for the same call.
func otherKeyState(t *testing.T, args map[string]any) string {
	ex, _, _ := stateSetup(t, nil)
	_, state := ask(t, exConnect(t, ex, mrtrClient(), "2026-07-28"), args)
	return state
}

// TestRequestStateExpires: a question answered after it lapsed decides
// nothing; calling again asks anew.
func TestRequestStateExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ex, d, runs := stateSetup(t, nil)
		cs := exConnect(t, ex, mrtrClient(), "2026-07-28")
		args := map[string]any{"path": "/tmp/x"}
		ticket, state := ask(t, cs, args)
		time.Sleep(10*time.Minute + time.Second)
		res, err := answer(cs, args, ticket, state, true)
		wantRefused(t, res, err, "expired")
		if runs.Load() != 0 {
			t.Errorf("an expired answer ran the call (runs %d)", runs.Load())
		}
		wantState(t, d, ticket, adapter.TicketPending)
	})
}

// TestRequestStateCrossIdentity: alice's state, presented by bob's
// authenticated session (or by an anonymous caller), is refused and leaves
// her ticket pending; alice's own retry on another stateless request
// works.
func TestRequestStateCrossIdentity(t *testing.T) {
	ex, d, runs := stateSetup(t, nil)
	url := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Stateless: true, Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}}).URL
	alice := connectStateless(t, url, mrtrClient(), bearerClient("alice"))
	bob := connectStateless(t, url, mrtrClient(), bearerClient("bob"))
	args := map[string]any{"path": "/home/alice"}
	ticket, state := ask(t, alice, args)
	res, err := answer(bob, args, ticket, state, true)
	wantRefused(t, res, err, "another caller")
	wantState(t, d, ticket, adapter.TicketPending)

	anonURL := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Stateless: true}).URL
	anon := connectStateless(t, anonURL, mrtrClient(), nil)
	res, err = answer(anon, args, ticket, state, true)
	wantRefused(t, res, err, "another caller")
	wantState(t, d, ticket, adapter.TicketPending)
	if runs.Load() != 0 {
		t.Fatalf("a foreign answer ran alice's call (runs %d)", runs.Load())
	}
	// An anonymous caller's state is not bob's either.
	_, anonState := ask(t, anon, args)
	res, err = answer(bob, args, ticket, anonState, true)
	wantRefused(t, res, err, "another caller")

	// Alice herself, in a session of the older era (one that outlives a
	// request): the state was minted for another session.
	statefulURL := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}}).URL
	res, err = answer(exConnectHTTP(t, statefulURL, mrtrClient(), bearerClient("alice")), args, ticket, state, true)
	wantRefused(t, res, err, "another session")
	wantState(t, d, ticket, adapter.TicketPending)

	if res, err := answer(alice, args, ticket, state, true); err != nil || res.IsError || runs.Load() != 1 {
		t.Fatalf("alice's own answer: %+v, %v (runs %d)", res, err, runs.Load())
	}
	tk, err := d.Ticket(context.Background(), ticket)
	if err != nil || tk.Approver != mcpadapter.ClientApprover+":alice" {
		t.Errorf("ticket approver = %q, %v; want client:alice", tk.Approver, err)
	}
}

// TestRequestStateSessionBound: in sessions that outlive a request, a
// state is also bound to its session: another in-memory session of an
// anonymous caller cannot use it.
func TestRequestStateSessionBound(t *testing.T) {
	ex, d, runs := stateSetup(t, nil)
	a := exConnect(t, ex, mrtrClient(), "2026-07-28")
	b := exConnect(t, ex, mrtrClient(), "2026-07-28")
	args := map[string]any{"path": "/x"}
	ticket, state := ask(t, a, args)
	res, err := answer(b, args, ticket, state, true)
	wantRefused(t, res, err, "another caller")
	if runs.Load() != 0 {
		t.Fatalf("another session's answer ran the call")
	}
	wantState(t, d, ticket, adapter.TicketPending)
}

// TestRequestStateKey: a key shorter than 32 bytes is refused; two
// exporters sharing a key and a name verify each other's states
// (replicas, restarts), another name's are refused.
func TestRequestStateKey(t *testing.T) {
	reg := registry.New()
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	if _, err := mcpadapter.NewExporter(reg, exec, &mcpadapter.ExportOptions{RequestStateKey: make([]byte, 31)}); err == nil {
		t.Error("NewExporter accepted a 31-byte RequestStateKey")
	}

	key := []byte("0123456789abcdef0123456789abcdef")
	var runs atomic.Int32
	reg.MustRegister(adapter.MustRawTool("delete_file", "Deletes a file.", exObject(nil),
		func(context.Context, json.RawMessage) (*adapter.Result, error) {
			runs.Add(1)
			return adapter.TextResult("deleted"), nil
		}, nil))
	d := &adapter.Deferred{}
	exec2 := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d, Policy: adapter.ApproveAlways}})
	defer exec2.Close()
	one := newExporter(t, reg, exec2, &mcpadapter.ExportOptions{Approver: d, RequestStateKey: key})
	two := newExporter(t, reg, exec2, &mcpadapter.ExportOptions{Approver: d, RequestStateKey: key})
	args := map[string]any{"path": "/x"}
	ticket, state := ask(t, connectStateless(t, exServeHTTP(t, one, &mcpadapter.HTTPOptions{Stateless: true}).URL, mrtrClient(), nil), args)
	other := connectStateless(t, exServeHTTP(t, two, &mcpadapter.HTTPOptions{Stateless: true}).URL, mrtrClient(), nil)
	// Another server sharing the key (a gateway's other virtual server)
	// does not take the answer.
	third := newExporter(t, reg, exec2, &mcpadapter.ExportOptions{Name: "other-server", Approver: d, RequestStateKey: key})
	res, err := answer(connectStateless(t, exServeHTTP(t, third, &mcpadapter.HTTPOptions{Stateless: true}).URL, mrtrClient(), nil), args, ticket, state, true)
	wantRefused(t, res, err, "another server")
	wantState(t, d, ticket, adapter.TicketPending)
	if res, err := answer(other, args, ticket, state, true); err != nil || res.IsError || runs.Load() != 1 {
		t.Fatalf("answer at the other replica: %+v, %v (runs %d)", res, err, runs.Load())
	}
}
