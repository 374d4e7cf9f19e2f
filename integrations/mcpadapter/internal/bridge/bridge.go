// Package bridge is what the export (package export) and the import (the
// root package mcpadapter) share without importing one another's
// internals: the interfaces through which an export serves a manager's
// upstream servers (Servers, Server), the primitive calls of an export's
// caller on their way upstream (PrimCall), and the relay's state.
//
// The export must not import the root package (the root carries aliases
// of the export's names); the root implements these interfaces in
// exportseam.go.
package bridge

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
)

// Servers is a manager's set of upstream servers, as an export sees it.
type Servers interface {
	// All returns the servers, in the manager's order.
	All() []Server
	// Listen calls fn for every event of every server until cancel; fn
	// must not block.
	Listen(fn func(Event)) (cancel func())
}

// Server is one upstream server of a manager. Its implementation is
// comparable, one value per server: the export keys maps by it.
type Server interface {
	// Name is the server's configured name.
	Name() string
	// Trusted reports whether its annotations apply as policy.
	Trusted() bool
	// Credential is what the caller's calls reach the server with
	// (adapter.Source.Credential).
	Credential() string
	// LocalName is the name a tool or prompt remote of it is given.
	LocalName(remote string) string
	// Connected reports whether it has a session now.
	Connected() bool
	// Ensure connects it if need be.
	Ensure(ctx context.Context) error
	// Resources lists its resources and templates (relist: anew).
	Resources(ctx context.Context, relist bool) ([]*mcp.Resource, []*mcp.ResourceTemplate, error)
	// TemplateMatches reports whether one of its templates matches uri.
	TemplateMatches(uri string) bool
	// Prompts lists its prompts.
	Prompts(ctx context.Context) ([]*mcp.Prompt, error)
	// ImportsPrompt reports whether its prompt remote is imported.
	ImportsPrompt(remote string) bool
	// ReadResource reads uri.
	ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error)
	// GetPrompt renders its prompt remote.
	GetPrompt(ctx context.Context, remote string, args map[string]string) (*mcp.GetPromptResult, error)
	// Complete completes an argument.
	Complete(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error)
	// Subscribe subscribes owner to uri's updates.
	Subscribe(ctx context.Context, owner, uri string) error
	// Unsubscribe drops owner's subscription to uri.
	Unsubscribe(ctx context.Context, owner, uri string)
	// SetLevel sets the log level session ss asked for ("" when it ends).
	SetLevel(ctx context.Context, ss *mcp.ServerSession, level mcp.LoggingLevel)
}

// EventKind tells the events of a server apart.
type EventKind int

// The events of a server.
const (
	EventResources EventKind = iota // resources or templates changed
	EventPrompts                    // prompts changed
	EventUpdated                    // a subscribed resource was updated (URI)
	EventLog                        // a log message (Log)
)

// Event is one notification of an upstream server.
type Event struct {
	Server Server
	Kind   EventKind
	URI    string                    // EventUpdated
	Log    *mcp.LoggingMessageParams // EventLog
}

// PrimCall is a primitive request of an export's MCP caller on its way to
// the upstream: who asks, and its answers to the upstream's last
// questions.
type PrimCall struct {
	Session *mcp.ServerSession
	Caps    func() *mcp.ClientCapabilities // the request's ClientCapabilities
	Resume  *RelayState                    // the verified state of the round answered; nil on the first
	Answers mcp.InputResponseMap
}

// PromptKey and ReadKey carry the *PrimCall of a prompts/get and of a
// resources/read.
type (
	PromptKey struct{}
	ReadKey   struct{}
)

// PromptCall returns the prompts/get of an export's MCP caller that ctx
// runs for, if any.
func PromptCall(ctx context.Context) *PrimCall {
	pc, _ := ctx.Value(PromptKey{}).(*PrimCall)
	return pc
}

// ReadCall returns the resources/read of an export's MCP caller that ctx
// runs for, if any.
func ReadCall(ctx context.Context) *PrimCall {
	pc, _ := ctx.Value(ReadKey{}).(*PrimCall)
	return pc
}

// ReadHash is the hash a read's requestState binds its URI by, and the
// name the relayed state gives the read: a URI may be longer than a state
// may be.
func ReadHash(uri string) (string, error) {
	b, err := json.Marshal(map[string]string{"uri": uri})
	if err != nil {
		return "", err
	}
	return adapter.CanonicalHash(b)
}

// RelayedInput makes the export's *InputRequired of an upstream's
// questions (its State up to MaxRelayState); the export sets it.
var RelayedInput func(reqs mcp.InputRequestMap, state string) error

// IsError marks the error of an imported tool's isError result: the
// import wraps it, the export relays such an error's content as is.
var IsError = errors.New("the MCP server's result has isError")
