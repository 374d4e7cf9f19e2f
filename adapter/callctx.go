package adapter

import (
	"context"
	"encoding/json"

	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/adapter/internal/callctx"
)

// ToolCall describes one tool call as it passes through the executor:
// ToolCall is the [Request] after lookup, validation and scope. The caller
// owns the Request; the executor builds the ToolCall, and hooks, guards and
// approval policies receive it; handlers read it with [ToolCallFromContext].
type ToolCall struct {
	// CallID identifies the call: the framework's tool call id when it has
	// one ([Request.CallID]), otherwise one made up by the executor.
	CallID string
	// ID holds the same value as CallID.
	//
	// Deprecated: use CallID, the name every type that refers to a call
	// uses (Request, Record, Ticket, Error).
	ID string
	// RunID is the id of the run scope the call belongs to (see [WithRun]),
	// or "".
	RunID string
	// Tool is the name the tool was called by.
	Tool string
	// Spec is the tool's spec.
	Spec *Spec
	// Args are the validated arguments. A hook may replace them; the
	// executor validates replaced arguments again.
	Args json.RawMessage
	// Integration names the calling framework: "eino", "genkit",
	// "langchaingo", "mcp", or "" for direct calls.
	Integration string
	// Native is the framework's own object for the call (its tool value or
	// request), for handlers that need it.
	Native any
	// Identity is the verified caller, when the integration authenticates
	// one (the MCP export with bearer auth does), or an anonymous caller
	// told apart by its session (Identity.Anonymous: the MCP export
	// without auth).
	Identity *caller.Identity
	// Ticket is the approval ticket the caller presents to resume a call
	// that was pending approval.
	Ticket string
	// Session identifies the caller's session (see [caller.WithSession]), such as
	// one MCP client connection, or "".
	Session string

	// decoded is the typed value a strict decoder made of decodedFrom while
	// validating it; the handler takes it while Args are still those bytes.
	decoded     any
	decodedFrom json.RawMessage
}

type callKey struct{}

// callCtx is a handler's context when the caller's context can never be
// cancelled (see [callctx.Ctx]); ctx.Value(callKey{}) is the call.
type callCtx = callctx.Ctx[callKey, *ToolCall]

// ToolCallFromContext returns the call a handler is serving, or nil outside a tool call.
func ToolCallFromContext(ctx context.Context) *ToolCall {
	c, _ := ctx.Value(callKey{}).(*ToolCall)
	return c
}

func withCall(ctx context.Context, c *ToolCall) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}
