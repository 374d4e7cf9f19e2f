package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/caller"
)

func TestStanding(t *testing.T) {
	var runs atomic.Int64
	d := &approval.Deferred{}
	s := &approval.Standing{Port: d, Allowed: func(tool string) bool { return tool == "rm" }}
	e, _ := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: s}},
		destructiveTool("rm", &runs), destructiveTool("mv", &runs))
	as := func(subject string) context.Context {
		return adapter.WithIdentity(context.Background(), &caller.Identity{Subject: subject})
	}
	call := func(ctx context.Context, tool, args string) error {
		_, err := e.Call(ctx, tool, json.RawMessage(args))
		return err
	}
	if err := s.Set(approval.StandingRule{Tool: "mv", Subject: "alice", Verdict: approval.VerdictApproved}); !errors.Is(err, adapter.ErrStandingNotAllowed) {
		t.Errorf("standing rule for a tool the policy excludes: %v", err)
	}
	if err := s.Set(approval.StandingRule{Tool: "rm", Subject: "alice", Verdict: approval.VerdictPending}); err == nil {
		t.Error("a standing pending rule was accepted")
	}
	if err := s.Set(approval.StandingRule{Tool: "rm", Subject: "alice", Verdict: approval.VerdictApproved, Approver: "op"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(approval.StandingRule{Tool: "rm", Subject: "mallory", Verdict: approval.VerdictDenied, Reason: "not you", Approver: "op"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, subject, tool, args string
		kind                      adapter.Kind
		msg                       string
	}{
		{"covered caller, any arguments", "alice", "rm", `{"x":1}`, "", ""},
		{"covered caller, other arguments", "alice", "rm", `{"x":2}`, "", ""},
		{"another caller is asked", "bob", "rm", `{"x":1}`, adapter.KindApprovalPending, ""},
		{"unauthenticated caller is asked", "", "rm", `{"x":1}`, adapter.KindApprovalPending, ""},
		{"another tool is asked", "alice", "mv", `{"x":1}`, adapter.KindApprovalPending, ""},
		{"standing denial", "mallory", "rm", `{"x":1}`, adapter.KindApprovalDenied, "not you"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := as(tt.subject)
			if tt.subject == "" {
				ctx = context.Background()
			}
			err := call(ctx, tt.tool, tt.args)
			if k := kindOf(t, err); k != tt.kind {
				t.Fatalf("kind %q, want %q (%v)", k, tt.kind, err)
			}
			if tt.msg != "" && !strings.Contains(asAdapterError(t, err).Message, tt.msg) {
				t.Errorf("message %q lacks %q", asAdapterError(t, err).Message, tt.msg)
			}
		})
	}
	if runs.Load() != 2 {
		t.Errorf("runs %d, want 2", runs.Load())
	}
	if got := s.Rules(); len(got) != 2 || got[0].Subject != "alice" || got[1].Subject != "mallory" {
		t.Errorf("rules %+v", got)
	}
	// A policy that stops allowing the tool disables its rules.
	s.Allowed = func(string) bool { return false }
	if err := call(as("alice"), "rm", `{"x":3}`); kindOf(t, err) != adapter.KindApprovalPending {
		t.Errorf("rule used after the policy withdrew it: %v", err)
	}
	if !s.Revoke("rm", "alice") || s.Revoke("rm", "alice") {
		t.Error("Revoke")
	}
}
