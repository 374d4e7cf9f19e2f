package export

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/bridge"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The export's side of the relay of an upstream's input-required result (SEP-2322) to a
// primitive request of the export's MCP caller, shared by prompts/get
// (prompt_relay.go) and resources/read (resource_relay.go). A primRelay
// names what tells one from the other: the context key of its calls, the
// MAC domain of its requestState and the noun of its internal errors.
// What a state binds (a prompt's name and arguments, a read's URI), the
// request sent upstream and the result returned are the callers'.

// primRelay is one primitive's relay.
type primRelay struct {
	key    any    // the context key of its calls (bridge.PromptKey, bridge.ReadKey)
	domain string // the MAC domain of its requestState
	noun   string // whose questions its internal errors name: "prompt's"
}

// with returns the context a request of ss (extra, caps) with answers and
// state runs in upstream. A retry's state is verified first: one that
// fails its integrity check in r's domain, has expired, was issued by
// another server, is refused by bound (which returns why, or ""), or was
// issued to another caller is refused with invalid params, and nothing
// reaches the upstream. Answers without a state go upstream as they came,
// as a tool's do.
func (r primRelay) with(ctx context.Context, s *Server, ss *mcp.ServerSession, extra *mcp.RequestExtra, caps func() *mcp.ClientCapabilities,
	answers mcp.InputResponseMap, state string, bound func(*questionState) string) (context.Context, error) {
	pc := &bridge.PrimCall{Session: ss, Caps: caps, Answers: bridge.UpstreamAnswers(answers)} // a relayed id back to the upstream's
	if state != "" {
		st, err := s.states.OpenIn(r.domain, state, time.Now())
		if err != nil {
			return ctx, stateError(err.Error())
		}
		if st.Srv != s.stateServer() {
			return ctx, stateError("issued by another server")
		}
		if why := bound(st); why != "" {
			return ctx, stateError(why)
		}
		rs, ok := bridge.DecodeRelayState(st.In)
		if !ok || st.Ticket != "" {
			return ctx, stateError(errStateMalformed.Error())
		}
		if ctx, err = bindCaller(ctx, &mcp.CallToolRequest{Session: ss, Extra: extra}, st); err != nil {
			return ctx, err
		}
		pc.Resume = rs
	}
	return context.WithValue(ctx, r.key, pc), nil
}

// askPrim answers a request whose upstream asked the caller of 2026-07-28
// for input (err an *InputRequired of the relay) with an input-required
// result T, its state bound to tool and the hash hash returns and sealed
// in r's domain, filled by fill; it returns nil for any other error.
func askPrim[T any](ctx context.Context, s *Server, r primRelay, tool string, hash func() (string, error), err error,
	fill func(*T, mcp.InputRequestMap, string)) (*T, error) {
	ir := (*InputRequired)(nil)
	if !errors.As(err, &ir) || !ir.relayed {
		return nil, nil
	}
	h, herr := hash()
	if herr != nil || len(ir.Requests) == 0 || len(ir.State) > bridge.MaxRelayState {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal: the " + r.noun + " questions cannot be relayed"}
	}
	st := s.newState(ctx, tool, h)
	st.In = ir.State
	state := s.states.SealIn(r.domain, st)
	if state == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal: the requestState would exceed its bound"}
	}
	out := new(T)
	// resultType is unexported: go-sdk's decoder is the one public way to set it.
	_ = json.Unmarshal([]byte(`{"resultType":"input_required"}`), out)
	fill(out, ir.Requests, state)
	return out, nil
}
