package adapter

import (
	"context"
	"encoding/json"
)

// Call describes one tool call as it passes through the executor. Hooks,
// guards and approval policies receive it; handlers read it with
// [CallFromContext].
type Call struct {
	// ID identifies the call: the framework's tool call id when it has one,
	// otherwise one made up by the executor.
	ID string
	// RunID is the id of the run scope the call belongs to (see [WithRun]),
	// or "".
	RunID string
	// Tool is the name the tool was called by.
	Tool string
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
	// one (the MCP export with bearer auth does).
	Identity *Identity
	// Ticket is the approval ticket the caller presents to resume a call
	// that was pending approval.
	Ticket string
}

// Identity is a verified caller.
type Identity struct {
	Subject string
	Scopes  []string
	Extra   map[string]any
}

type callKey struct{}
type identityKey struct{}
type progressKey struct{}

// CallFromContext returns the call a handler is serving, or nil outside a
// tool call.
func CallFromContext(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

func withCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// WithIdentity returns a context carrying a verified identity; the executor
// copies it into [Call.Identity].
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFromContext returns the identity set by [WithIdentity], or nil.
func IdentityFromContext(ctx context.Context) *Identity {
	id, _ := ctx.Value(identityKey{}).(*Identity)
	return id
}

// Progress is a progress report from a running tool.
type Progress struct {
	Progress float64
	// Total is 0 when unknown.
	Total   float64
	Message string
}

// WithProgress returns a context whose tool calls report progress to fn.
// The MCP export sets it to send notifications/progress; a caller of an
// imported MCP tool sets it to receive the server's progress.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ReportProgress sends a progress report to the caller, if it listens.
func ReportProgress(ctx context.Context, p Progress) {
	if fn, _ := ctx.Value(progressKey{}).(func(Progress)); fn != nil {
		fn(p)
	}
}
