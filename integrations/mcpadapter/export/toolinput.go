package export

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/bridge"
)

// InputRequired is the error a tool handler returns to ask the MCP client
// for input before it can answer (an input-required result, SEP-2322):
// the export puts Requests (elicitation, sampling, roots) to the client,
// which calls the tool again with the answers; the handler reads them in
// RequestFromContext(ctx).Params.InputResponses, and State, if it set
// one, in RequestFromContext(ctx).Params.RequestState.
//
// The export carries State inside a requestState of its own, signed and
// bound to the caller, the tool and the arguments, with an expiry (see
// [Options.RequestStateKey]): the handler only ever reads a State it
// returned for this call of this caller; a tampered, expired or foreign
// one is refused before any handler runs. A retry without a requestState
// reaches the handler with RequestState "". A State is not single-use: a
// handler whose answer must count once keeps its own record of it.
//
// Clients before 2026-07-28 are asked the same questions by server-to-client
// requests during the call, and the tool is called again with the answers.
// Outside the MCP export an InputRequired is a tool error.
type InputRequired struct {
	// Requests maps the handler's ids to what it asks; the answers come
	// back under the same ids.
	Requests mcp.InputRequestMap
	// State is what the handler wants back with the answers, at most 1 KiB.
	State string

	relayed bool // an upstream's questions (relay.go): State may be up to bridge.MaxRelayState
}

// maxInputState bounds InputRequired.State.
const maxInputState = 1024

// Error implements error: the tool needs input from the MCP client.
func (e *InputRequired) Error() string { return "the tool needs input from the MCP client" }

// askInput answers a call whose handler returned ir with an
// input-required result.
func (s *Server) askInput(ctx context.Context, req *mcp.CallToolRequest, name string, ir *InputRequired) (*mcp.CallToolResult, error) {
	limit := maxInputState
	if ir.relayed {
		limit = bridge.MaxRelayState
	}
	if ir.Requests == nil || len(ir.State) > limit {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal: the tool asked for input it cannot be given (no requests, or a state over 1 KiB)"}
	}
	hash, err := adapter.CanonicalHash(req.Params.Arguments)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the arguments are not JSON"}
	}
	st := s.newState(ctx, name, hash)
	st.In = ir.State
	state := s.states.Seal(st)
	if state == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal: the requestState would exceed its bound"}
	}
	return &mcp.CallToolResult{InputRequests: ir.Requests, RequestState: state}, nil
}

// withRequestState returns native, a call's *mcp.CallToolRequest, as a
// copy whose RequestState is the tool's own state, verified.
func withRequestState(native any, state string) any {
	req, ok := native.(*mcp.CallToolRequest)
	if !ok || req.Params == nil {
		return native
	}
	p := *req.Params
	p.RequestState = state
	c := *req
	c.Params = &p
	return &c
}

func init() {
	bridge.RelayedInput = func(reqs mcp.InputRequestMap, state string) error {
		return &InputRequired{Requests: reqs, State: state, relayed: true}
	}
}
