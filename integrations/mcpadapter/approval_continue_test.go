package mcpadapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// contEnv serves a tool "wipe" that needs approval (ApproveAlways, the
// client's user decides) and, once run, asks the user to confirm with an
// InputRequired; confirmed, it wipes (counted). With upstream set, wipe is
// an imported tool of a real go-sdk server (2026-07-28 to the import)
// asking the same by an input-required result, relayed to the caller.
func contEnv(t *testing.T, upstream bool) (ex *mcpadapter.Exporter, d *adapter.Deferred, runs, wiped *atomic.Int32, ml *adapter.MemoryLedger, exec *adapter.Executor) {
	t.Helper()
	runs, wiped = new(atomic.Int32), new(atomic.Int32)
	confirmed := func(state string, resp mcp.InputResponseMap) bool {
		er, ok := resp["confirm"].(*mcp.ElicitResult)
		return state == "asked-confirm" && ok && er.Action == "accept" && er.Content["sure"] == true
	}
	ask := mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Really wipe?", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"sure": map[string]any{"type": "boolean"}}, "required": []any{"sure"}}}}
	reg := registry.New()
	d = &adapter.Deferred{}
	ml = adapter.NewMemoryLedger(100)
	exec = adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: ml, Approval: adapter.ApprovalOptions{Port: d, Policy: adapter.ApproveAlways}})
	t.Cleanup(func() { exec.Close() })
	if upstream {
		s := mcp.NewServer(&mcp.Implementation{Name: "wiper", Version: "v1"}, nil)
		s.AddTool(&mcp.Tool{Name: "wipe", Description: "Wipes a disk.", InputSchema: &jsonschema.Schema{Type: "object"}},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				runs.Add(1)
				if confirmed(req.Params.RequestState, req.Params.InputResponses) {
					wiped.Add(1)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wiped"}}}, nil
				}
				return &mcp.CallToolResult{RequestState: "asked-confirm", InputRequests: ask}, nil
			})
		ct, st := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		m := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Executor: exec})
		t.Cleanup(func() { m.Close() })
		if err := m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Transport: ct, Trust: true}); err != nil {
			t.Fatal(err)
		}
	} else {
		reg.MustRegister(adapter.MustRawTool("wipe", "Wipes a disk.", exObject(nil),
			func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
				runs.Add(1)
				p := mcpadapter.RequestFromContext(ctx).Params
				if confirmed(p.RequestState, p.InputResponses) {
					wiped.Add(1)
					return adapter.TextResult("wiped"), nil
				}
				return nil, &mcpadapter.InputRequired{State: "asked-confirm", Requests: ask}
			}, nil))
	}
	return newExporter(t, reg, exec, &mcpadapter.ExportOptions{Approver: d}), d, runs, wiped, ml, exec
}

// contUser plays the client's user: it approves every approval question
// and confirms the tool's, counting each kind.
type contUser struct{ approvals, confirms atomic.Int32 }

func (u *contUser) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if props, _ := req.Params.RequestedSchema.(map[string]any)["properties"].(map[string]any); props["approve"] != nil {
		u.approvals.Add(1)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}
	u.confirms.Add(1)
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"sure": true}}, nil
}

// TestApprovalContinuesToolInput: a call the user approves whose tool then
// asks for input (an InputRequired of its own, or a relayed upstream's)
// runs to its end with one approval, at 2026-07-28 over stateless HTTP
// with the real go-sdk client (three rounds: approval, the tool's question,
// the answer), and at 2025-11-25 (elicitation during the call). Before
// the continuation, the third round was held for approval again, each
// round after, until the go-sdk client's cap of 10 retries. The ledger
// records the continued run as approved under the same ticket.
func TestApprovalContinuesToolInput(t *testing.T) {
	for _, upstream := range []bool{false, true} {
		for _, era := range []string{"2026-07-28 stateless HTTP", "2025-11-25 streamable HTTP", "2025-11-25 in memory"} {
			name := era + "/local"
			if upstream {
				name = era + "/upstream"
			}
			t.Run(name, func(t *testing.T) {
				ex, d, runs, wiped, ml, exec := contEnv(t, upstream)
				u := &contUser{}
				var rounds atomic.Int32
				copts := &mcp.ClientOptions{ElicitationHandler: u.handle}
				var cs *mcp.ClientSession
				switch era {
				case "2026-07-28 stateless HTTP":
					// Counts the rounds: the tools/call requests the client sends.
					hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
						if r.Header.Get("Mcp-Method") == "tools/call" {
							rounds.Add(1)
						}
						return http.DefaultTransport.RoundTrip(r)
					})}
					cs = connectStateless(t, exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Stateless: true}).URL, copts, hc)
				case "2025-11-25 streamable HTTP":
					cs = exConnectHTTP(t, exServeHTTP(t, ex, nil).URL, copts, nil)
				default:
					cs = exConnect(t, ex, copts, "2025-11-25")
				}
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wipe", Arguments: map[string]any{"disk": "sda"}})
				if err != nil {
					t.Fatalf("CallTool: %v (approvals asked %d, tool runs %d)", err, u.approvals.Load(), runs.Load())
				}
				if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "wiped" {
					t.Fatalf("result %+v, want wiped", res)
				}
				if u.approvals.Load() != 1 || u.confirms.Load() != 1 || runs.Load() != 2 || wiped.Load() != 1 {
					t.Errorf("approvals asked %d, confirms %d, tool runs %d, wiped %d; want 1, 1, 2, 1",
						u.approvals.Load(), u.confirms.Load(), runs.Load(), wiped.Load())
				}
				if era == "2026-07-28 stateless HTTP" && rounds.Load() != 3 {
					t.Errorf("%d rounds, want 3 (approval, the tool's question, its answer)", rounds.Load())
				}
				for tk, err := range d.Pending(context.Background()) {
					if err != nil {
						t.Fatal(err)
					}
					t.Errorf("ticket %s left pending", tk.ID)
				}
				// The two runs of wipe: both approved under one ticket.
				if err := exec.Flush(context.Background()); err != nil {
					t.Fatal(err)
				}
				var recs []adapter.Record
				for _, r := range ml.Records() {
					if r.Tool == "wipe" && r.Approval == "approved" {
						recs = append(recs, r)
					}
				}
				want := 2 // the run that asked, and the one that continued
				if upstream && !strings.HasPrefix(era, "2026") {
					want = 1 // the relay asks an older caller during the one run
				}
				if len(recs) != want || recs[0].Ticket == "" || recs[len(recs)-1].Ticket != recs[0].Ticket ||
					recs[len(recs)-1].Approver != recs[0].Approver || !strings.HasPrefix(recs[0].Approver, mcpadapter.ClientApprover) {
					t.Errorf("ledger records of wipe %+v; want %d approved under one ticket by the client", recs, want)
				}
			})
		}
	}
}

// toConfirm plays rounds 1 and 2 by hand: the approval question, approved,
// then the tool's own question. It returns the tool question's
// requestState, the one the third round presents.
func toConfirm(t *testing.T, cs *mcp.ClientSession, args map[string]any) string {
	t.Helper()
	ctx := context.Background()
	r1, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wipe", Arguments: args})
	if err != nil || !r1.NeedsInput() || len(r1.InputRequests) != 1 {
		t.Fatalf("round 1: %+v, %v; want one approval question", r1, err)
	}
	var id string
	for id = range r1.InputRequests {
	}
	if !strings.HasPrefix(id, "agentadapter/approval/") {
		t.Fatalf("round 1 asked %q, want an approval question", id)
	}
	r2, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wipe", Arguments: args, RequestState: r1.RequestState,
		InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}})
	if err != nil || !r2.NeedsInput() || r2.InputRequests["confirm"] == nil {
		t.Fatalf("round 2: %+v, %v; want the tool's question", r2, err)
	}
	return r2.RequestState
}

var sure = mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"sure": true}}}

// wantApprovalAsked checks that a call was held and asked for approval
// anew, not run.
func wantApprovalAsked(t *testing.T, res *mcp.CallToolResult, err error) {
	t.Helper()
	if err != nil || !res.NeedsInput() || len(res.InputRequests) != 1 {
		t.Fatalf("result %+v, %v; want an approval question", res, err)
	}
	for id := range res.InputRequests {
		if !strings.HasPrefix(id, "agentadapter/approval/") {
			t.Errorf("asked %q, want an approval question", id)
		}
	}
}

// TestApprovalContinuationHostile: the third round's state continues the
// approved call only for its caller, tool and arguments, once, while the
// state and the ticket live: replayed with other arguments, by another
// identity, tampered or expired it is refused; replayed after its use it
// is asked approval again; presented after the ticket lapsed it is denied.
// None of these wipes.
func TestApprovalContinuationHostile(t *testing.T) {
	args := map[string]any{"disk": "sda"}
	t.Run("stateless HTTP", func(t *testing.T) {
		ex, d, _, wiped, _, _ := contEnv(t, false)
		url := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{Stateless: true, Auth: &mcpadapter.AuthOptions{Verifier: exVerifier}}).URL
		alice := connectStateless(t, url, mrtrClient(), bearerClient("alice"))
		bob := connectStateless(t, url, mrtrClient(), bearerClient("bob"))
		ctx := context.Background()
		state := toConfirm(t, alice, args)
		for _, c := range []struct {
			name  string
			cs    *mcp.ClientSession
			args  map[string]any
			state string
			why   string
		}{
			{"other arguments", alice, map[string]any{"disk": "sdb"}, state, "other arguments"},
			{"another identity", bob, args, state, "another caller"},
			{"tampered", alice, args, state[:len(state)-2] + "AA", "integrity"},
			{"tampered payload", alice, args, "x" + state[1:], "integrity"},
		} {
			t.Run(c.name, func(t *testing.T) {
				res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "wipe", Arguments: c.args, InputResponses: sure, RequestState: c.state})
				wantRefused(t, res, err, c.why)
			})
		}
		if wiped.Load() != 0 {
			t.Fatalf("a hostile continuation wiped (%d)", wiped.Load())
		}
		res, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "wipe", Arguments: args, InputResponses: sure, RequestState: state})
		if err != nil || res.IsError || res.NeedsInput() || wiped.Load() != 1 {
			t.Fatalf("the genuine third round: %+v, %v, wiped %d; want wiped once", res, err, wiped.Load())
		}
		res, err = alice.CallTool(ctx, &mcp.CallToolParams{Name: "wipe", Arguments: args, InputResponses: sure, RequestState: state})
		wantApprovalAsked(t, res, err)
		if wiped.Load() != 1 {
			t.Errorf("a replayed continuation wiped again (%d)", wiped.Load())
		}
		n := 0
		for _, err := range d.Pending(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 1 {
			t.Errorf("%d tickets pending, want the replay's one", n)
		}
	})
	t.Run("state expired", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ex, _, _, wiped, _, _ := contEnv(t, false)
			cs := exConnect(t, ex, mrtrClient(), "2026-07-28")
			state := toConfirm(t, cs, args)
			time.Sleep(10*time.Minute + time.Second)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wipe", Arguments: args, InputResponses: sure, RequestState: state})
			wantRefused(t, res, err, "expired")
			if wiped.Load() != 0 {
				t.Errorf("an expired continuation wiped (%d)", wiped.Load())
			}
		})
	})
	t.Run("ticket expired", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ex, _, _, wiped, _, _ := contEnv(t, false)
			cs := exConnect(t, ex, mrtrClient(), "2026-07-28")
			ctx := context.Background()
			// Round 1 at 0, round 2 at 9 min (the approval state lives 10),
			// round 3 at 16 min: its state lives, the ticket (15 min) not.
			r1, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wipe", Arguments: args})
			if err != nil || !r1.NeedsInput() {
				t.Fatalf("round 1: %+v, %v", r1, err)
			}
			var id string
			for id = range r1.InputRequests {
			}
			time.Sleep(9 * time.Minute)
			r2, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wipe", Arguments: args, RequestState: r1.RequestState,
				InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}})
			if err != nil || r2.InputRequests["confirm"] == nil {
				t.Fatalf("round 2: %+v, %v", r2, err)
			}
			time.Sleep(7 * time.Minute)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wipe", Arguments: args, InputResponses: sure, RequestState: r2.RequestState})
			if err != nil {
				t.Fatal(err)
			}
			if p := exPayload(t, res); p.Kind != adapter.KindApprovalDenied || !strings.Contains(p.Message, "no longer covers") {
				t.Errorf("payload %+v, want approval_denied: the approval no longer covers the call", p)
			}
			if wiped.Load() != 0 {
				t.Errorf("a continuation past its ticket wiped (%d)", wiped.Load())
			}
		})
	})
}
