package adapter

import (
	"context"

	"github.com/agentadapter/agentadapter/adapter/approval"
)

// An ApprovalPolicy decides whether a call needs approval.
type ApprovalPolicy func(ctx context.Context, c *ToolCall) bool

// ApproveNever is the policy under which no call needs approval.
func ApproveNever(context.Context, *ToolCall) bool { return false }

// ApproveAlways is the policy under which every call needs approval.
func ApproveAlways(context.Context, *ToolCall) bool { return true }

// ApproveByAnnotations is the default policy: destructive or open-world
// tools need approval (an unset hint counts as true, as in MCP).
func ApproveByAnnotations(_ context.Context, c *ToolCall) bool {
	a := c.Spec.Annotations
	return a.IsDestructive() || a.IsOpenWorld()
}

// ApprovalOptions configure approval in an [Executor].
type ApprovalOptions struct {
	// Port asks for approval. Nil means no call is ever held for approval,
	// whatever the policies say.
	Port approval.Port
	// Policy decides which calls need approval; nil means ApproveByAnnotations.
	Policy ApprovalPolicy
	// Tools overrides Policy per tool name.
	Tools map[string]ApprovalPolicy
	// Scope is who an approval is good for; the zero value is
	// [approval.ScopeSubject]: an approval granted for one caller's call
	// never lets another caller run the same call.
	Scope approval.Scope
}

// approvalRequest is what the port is asked about call, whose canonical
// arguments hash to hash, under scope (never empty).
func approvalRequest(call *ToolCall, hash string, scope approval.Scope) *approval.Request {
	a := call.Spec.Annotations
	req := &approval.Request{
		Tool: call.Spec.Name, CallID: call.CallID, RunID: call.RunID, Session: call.Session,
		Integration: call.Integration, Args: call.Args, Ticket: call.Ticket,
		ReadOnly: a.ReadOnly, Destructive: a.IsDestructive(), Idempotent: a.Idempotent, OpenWorld: a.IsOpenWorld(),
		ArgsHash: hash, Scope: scope, Server: call.Spec.Source.Server, Credential: call.Spec.Source.Credential,
	}
	if call.Identity != nil {
		req.Subject, req.Anonymous = call.Identity.Subject, call.Identity.Anonymous
	}
	switch scope {
	case approval.ScopeSubject:
		req.ScopeID = req.Subject
	case approval.ScopeRun:
		req.ScopeID = call.RunID
	case approval.ScopeSession:
		req.ScopeID = call.Session
	}
	return req
}
