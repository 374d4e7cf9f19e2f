// Package caller carries who is calling a tool, and from which session,
// through the context:
//
//	ctx = caller.WithIdentity(ctx, &caller.Identity{Subject: "alice", Scopes: []string{"read"}})
//	ctx = caller.WithSession(ctx, "conn-42")
//	exec.Call(ctx, "search", args)
//
// The executor copies both into the call it builds (ToolCall.Identity and
// ToolCall.Session in package adapter): tickets, caps, the cache and limits
// count per [Identity.Subject], and approvals scoped to a session are bound
// to the session id. An integration that authenticates its callers (the MCP
// export with bearer auth) sets the identity; the MCP export sets one
// session per client connection. The package imports only the standard
// library.
package caller

import "context"

// Identity is a verified caller, or an anonymous one told apart by its
// session (Anonymous).
type Identity struct {
	// Subject identifies the caller (a user id, a client id). An
	// anonymous caller's is "anonymous:" and its session id.
	Subject string
	// Anonymous is true for a caller that proved no identity: an
	// integration without authentication (the MCP export without Auth)
	// makes each session its own caller, so that tickets, caps, the cache
	// and limits that count per subject count per session, and nothing
	// proves who is behind it.
	Anonymous bool
	// Scopes are the permissions the caller's credential grants.
	Scopes []string
	// Extra carries what else the verifier learnt (claims, tenant...).
	Extra map[string]any
}

type sessionKey struct{}
type identityKey struct{}

// WithIdentity returns a context carrying a verified identity; the executor
// copies it into the call's Identity.
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity set by [WithIdentity], or nil.
func IdentityFrom(ctx context.Context) *Identity {
	id, _ := ctx.Value(identityKey{}).(*Identity)
	return id
}

// WithSession returns a context whose tool calls belong to the session id:
// the executor copies it into the call's Session, and approvals scoped to
// the session are bound to it. The MCP export sets one per client session.
func WithSession(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, sessionKey{}, id)
}

// SessionFrom returns the session id set by [WithSession], or "".
func SessionFrom(ctx context.Context) string {
	id, _ := ctx.Value(sessionKey{}).(string)
	return id
}
