package adapter_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/adapter/canonical"
)

// TestApprovalRequestFields checks that a port is told the call in the
// plain fields of approval.Request, under each scope.
func TestApprovalRequestFields(t *testing.T) {
	no := false
	spec := rawTool("send", echo, &adapter.ToolOptions{Annotations: adapter.Annotations{Idempotent: true, Destructive: &no}})
	args := `{"s":"d","x":1}`
	hash, err := canonical.Hash(json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		scope         approval.Scope
		identity      *caller.Identity
		wantScope     approval.Scope
		wantScopeID   string
		wantSubject   string
		wantAnonymous bool
	}{
		{"", &caller.Identity{Subject: "alice"}, approval.ScopeSubject, "alice", "alice", false},
		{approval.ScopeSubject, nil, approval.ScopeSubject, "", "", false},
		{approval.ScopeRun, &caller.Identity{Subject: "alice"}, approval.ScopeRun, "run-1", "alice", false},
		{approval.ScopeSession, &caller.Identity{Subject: "anonymous:s1", Anonymous: true}, approval.ScopeSession, "s1", "anonymous:s1", true},
		{approval.ScopeGlobal, &caller.Identity{Subject: "alice"}, approval.ScopeGlobal, "", "alice", false},
	}
	for _, tt := range tests {
		t.Run(string(tt.wantScope)+"/"+tt.wantSubject, func(t *testing.T) {
			var got *approval.Request
			port := approval.Func(func(_ context.Context, r *approval.Request) (approval.Decision, error) {
				got = r
				return approval.Decision{Verdict: approval.VerdictApproved}, nil
			})
			e, _ := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: port, Policy: adapter.ApproveAlways, Scope: tt.scope}}, spec)
			ctx, _ := adapter.WithRun(context.Background(), &adapter.RunOptions{ID: "run-1"})
			ctx = caller.WithSession(ctx, "s1")
			if tt.identity != nil {
				ctx = adapter.WithIdentity(ctx, tt.identity)
			}
			if _, err := e.Do(ctx, &adapter.Request{Tool: "send", Args: json.RawMessage(`{"x":1}`), CallID: "c1", Integration: "mcp", Ticket: "tkt_x"}); err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("the port was not asked")
			}
			want := approval.Request{
				Tool: "send", CallID: "c1", RunID: "run-1", Session: "s1", Integration: "mcp",
				Subject: tt.wantSubject, Anonymous: tt.wantAnonymous, Ticket: "tkt_x",
				ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: true,
				ArgsHash: hash, Scope: tt.wantScope, ScopeID: tt.wantScopeID,
			}
			if string(got.Args) != args {
				t.Errorf("Args %s, want the validated %s", got.Args, args)
			}
			g := *got
			g.Args = nil
			if !reflect.DeepEqual(g, want) {
				t.Errorf("request\n got %+v\nwant %+v", g, want)
			}
		})
	}
}
