package langchaingoadapter_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/agentadapter/agentadapter/adapter"
)

// deleteSpec is destructive (no annotations), so ApproveByAnnotations holds
// it for approval. It counts its runs.
func deleteSpec(runs *atomic.Int32) *adapter.Spec {
	return adapter.MustTool("delete", "Deletes a file.", func(_ context.Context, in struct {
		Path string `json:"path"`
	}) (string, error) {
		runs.Add(1)
		return "deleted " + in.Path, nil
	}, &adapter.ToolOptions{Output: adapter.OutputText})
}

func TestBlockingApproval(t *testing.T) {
	var runs atomic.Int32
	reg := newRegistry(t, deleteSpec(&runs))
	asked := make(chan *adapter.ApprovalRequest, 1)
	decide := make(chan adapter.Decision)
	port := adapter.ApprovalFunc(func(ctx context.Context, req *adapter.ApprovalRequest) (adapter.Decision, error) {
		asked <- req
		select {
		case d := <-decide:
			return d, nil
		case <-ctx.Done():
			return adapter.Decision{}, ctx.Err()
		}
	})
	exec := newExecutor(t, reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: port}})
	tl := mustTools(t, reg, exec, nil)[0]

	for _, tt := range []struct {
		name     string
		decision adapter.Decision
		want     string
		runs     int32
	}{
		{"approved", adapter.Decision{Verdict: adapter.VerdictApproved, Approver: "alice"}, "deleted /tmp/a", 1},
		{"denied", adapter.Decision{Verdict: adapter.VerdictDenied, Reason: "not on Fridays"},
			`{"error":{"kind":"approval_denied","message":"the call was denied: not on Fridays","tool":"delete"}}`, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				out string
				err error
			}
			done := make(chan result, 1)
			go func() {
				out, err := tl.Call(context.Background(), `/tmp/a`)
				done <- result{out, err}
			}()
			select {
			case req := <-asked:
				if req.Tool != "delete" || string(req.Args) != `{"path":"/tmp/a"}` {
					t.Errorf("approval asked for %s %s", req.Tool, req.Args)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("approval never asked")
			}
			select {
			case r := <-done:
				t.Fatalf("call returned %q, %v before the decision", r.out, r.err)
			default: // still waiting, as it must
			}
			decide <- tt.decision
			r := <-done
			if r.err != nil || r.out != tt.want {
				t.Errorf("Call = %q, %v; want %q", r.out, r.err, tt.want)
			}
			if runs.Load() != tt.runs {
				t.Errorf("tool ran %d times, want %d", runs.Load(), tt.runs)
			}
		})
	}
}

func TestDeferredApproval(t *testing.T) {
	var runs atomic.Int32
	reg := newRegistry(t, deleteSpec(&runs))
	deferred := &adapter.Deferred{}
	exec := newExecutor(t, reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: deferred}})
	ctx := context.Background()

	t.Run("Call", func(t *testing.T) {
		runs.Store(0)
		tl := mustTools(t, reg, exec, nil)[0]
		call := func(input string) string {
			t.Helper()
			out, err := tl.Call(ctx, input)
			if err != nil {
				t.Fatalf("Call(%s): %v", input, err)
			}
			return out
		}
		p, ok := payload(call(`{"path":"/tmp/b"}`))
		if !ok || p.Kind != adapter.KindApprovalPending || p.Ticket == "" {
			t.Fatalf("first call: %+v, want approval_pending with a ticket", p)
		}
		if again, _ := payload(call(`{"path":"/tmp/b"}`)); again.Ticket != p.Ticket {
			t.Errorf("repeated call got ticket %q, want the same %q", again.Ticket, p.Ticket)
		}
		if err := deferred.Approve(ctx, p.Ticket, "bob"); err != nil {
			t.Fatal(err)
		}
		// Same arguments, another form: they match the ticket.
		if out := call(`{"__arg1": "{ \"path\" : \"/tmp/b\" }"}`); out != "deleted /tmp/b" {
			t.Errorf("approved call = %q", out)
		}
		// The ticket is used up: the next call needs a new approval.
		next, _ := payload(call(`/tmp/b`))
		if next.Kind != adapter.KindApprovalPending || next.Ticket == p.Ticket {
			t.Errorf("call after use = %+v, want a new pending ticket", next)
		}
		if runs.Load() != 1 {
			t.Errorf("tool ran %d times, want 1", runs.Load())
		}
	})

	t.Run("Dispatch", func(t *testing.T) {
		runs.Store(0)
		d := mustDispatcher(t, reg, exec, nil)
		dispatch := func(id, args string) string {
			t.Helper()
			msgs, err := d.Dispatch(ctx, []llms.ToolCall{toolCall(id, "delete", args)})
			if err != nil {
				t.Fatal(err)
			}
			return toolResponses(msgs)[id]
		}
		p, _ := payload(dispatch("t1", `{"path":"/tmp/c"}`))
		if p.Kind != adapter.KindApprovalPending || p.Ticket == "" {
			t.Fatalf("first call: %+v, want approval_pending", p)
		}
		// Other arguments do not match the ticket.
		if other, _ := payload(dispatch("t2", `{"path":"/tmp/d"}`)); other.Ticket == p.Ticket {
			t.Error("a call with other arguments matched the ticket")
		}
		if err := deferred.Approve(ctx, p.Ticket, "bob"); err != nil {
			t.Fatal(err)
		}
		if out := dispatch("t3", `{"path":"/tmp/c"}`); out != "deleted /tmp/c" {
			t.Errorf("approved call = %q", out)
		}
		if runs.Load() != 1 {
			t.Errorf("tool ran %d times, want 1", runs.Load())
		}
	})
}
