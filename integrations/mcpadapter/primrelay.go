package mcpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The relay of an upstream's input-required result (SEP-2322) to a
// primitive request of the export's MCP caller, shared by prompts/get
// (prompt_relay.go) and resources/read (resource_relay.go). A primRelay
// names what tells one from the other: the context key of its calls, the
// MAC domain of its requestState and the noun of its internal errors.
// What a state binds (a prompt's name and arguments, a read's URI), the
// request sent upstream and the result returned are the callers'.

// primCall is a primitive request of an export's MCP caller on its way to
// the upstream: who asks, and its answers to the upstream's last
// questions.
type primCall struct {
	session *mcp.ServerSession
	caps    func() *mcp.ClientCapabilities // the request's ClientCapabilities
	resume  *relayState                    // the verified state of the round answered; nil on the first
	answers mcp.InputResponseMap
}

// primRelay is one primitive's relay.
type primRelay struct {
	key    any    // the context key of its calls
	domain string // the MAC domain of its requestState
	noun   string // whose questions its internal errors name: "prompt's"
}

// from returns the call of r that ctx runs for, if any.
func (r primRelay) from(ctx context.Context) *primCall {
	pc, _ := ctx.Value(r.key).(*primCall)
	return pc
}

// with returns the context a request of ss (extra, caps) with answers and
// state runs in upstream. A retry's state is verified first: one that
// fails its integrity check in r's domain, has expired, was issued by
// another server, is refused by bound (which returns why, or ""), or was
// issued to another caller is refused with invalid params, and nothing
// reaches the upstream. Answers without a state go upstream as they came,
// as a tool's do.
func (r primRelay) with(ctx context.Context, s *Exporter, ss *mcp.ServerSession, extra *mcp.RequestExtra, caps func() *mcp.ClientCapabilities,
	answers mcp.InputResponseMap, state string, bound func(*questionState) string) (context.Context, error) {
	pc := &primCall{session: ss, caps: caps, answers: upstreamAnswers(answers)} // relay.go: a relayed id back to the upstream's
	if state != "" {
		st, err := s.states.openIn(r.domain, state, time.Now())
		if err != nil {
			return ctx, stateError(err.Error())
		}
		if st.Srv != s.stateServer() {
			return ctx, stateError("issued by another server")
		}
		if why := bound(st); why != "" {
			return ctx, stateError(why)
		}
		rs, ok := decodeRelayState(st.In)
		if !ok || st.Ticket != "" {
			return ctx, stateError(errStateMalformed.Error())
		}
		if ctx, err = bindCaller(ctx, &mcp.CallToolRequest{Session: ss, Extra: extra}, st); err != nil {
			return ctx, err
		}
		pc.resume = rs
	}
	return context.WithValue(ctx, r.key, pc), nil
}

// askPrim answers a request whose upstream asked the caller of 2026-07-28
// for input (err an *InputRequired of the relay) with an input-required
// result T, its state bound to tool and the hash hash returns and sealed
// in r's domain, filled by fill; it returns nil for any other error.
func askPrim[T any](ctx context.Context, s *Exporter, r primRelay, tool string, hash func() (string, error), err error,
	fill func(*T, mcp.InputRequestMap, string)) (*T, error) {
	ir := (*InputRequired)(nil)
	if !errors.As(err, &ir) || !ir.relayed {
		return nil, nil
	}
	h, herr := hash()
	if herr != nil || len(ir.Requests) == 0 || len(ir.State) > maxRelayState {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal: the " + r.noun + " questions cannot be relayed"}
	}
	st := s.newState(ctx, tool, h)
	st.In = ir.State
	state := s.states.sealIn(r.domain, st)
	if state == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal: the requestState would exceed its bound"}
	}
	out := new(T)
	// resultType is unexported: go-sdk's decoder is the one public way to set it.
	_ = json.Unmarshal([]byte(`{"resultType":"input_required"}`), out)
	fill(out, ir.Requests, state)
	return out, nil
}

// relayPrim runs a primitive request upstream for the export's caller pc,
// putting the upstream's questions to that caller. name is what the
// relayed state binds (relayState.Tool) and what the caller is asked for;
// send sends one round (its _meta, answers and upstream state) and asks
// returns whether a result asks, its questions and its state.
func relayPrim[T any](ctx context.Context, c *conn, pc *primCall, name string,
	send func(context.Context, *mcp.ClientSession, mcp.Meta, mcp.InputResponseMap, string) (*T, error),
	asks func(*T) (bool, mcp.InputRequestMap, string)) (*T, error) {
	var meta mcp.Meta
	var answers mcp.InputResponseMap
	state, round := "", 0
	switch rs := pc.resume; {
	case rs == nil:
		answers = pc.answers
	case rs.Srv == c.cfg.Name && rs.Tool == name:
		round = rs.Round
		answers, state = pc.answers, rs.Up
	}
	// A state minted for a primitive now served by another server is not
	// forwarded: the primitive is asked anew.
	var out *T
	var ask error // the caller's questions, or a refusal of the upstream's
	err := c.request(ctx, func(ctx context.Context, s *mcp.ClientSession) error {
		for {
			meta = callerCapsMeta(meta, s, pc.caps())
			res, err := send(ctx, s, meta, answers, state)
			if err != nil {
				return err
			}
			needs, reqs, upState := asks(res)
			if !needs {
				out = res
				return nil
			}
			round++
			if err := c.checkAsk(reqs, upState, round); err != nil {
				ask = err
				return nil
			}
			got, err := c.askCaller(ctx, pc.session, pc.caps(), name, reqs, upState, round)
			if err != nil {
				ask = err
				return nil
			}
			answers, state = got, upState
		}
	})
	if err != nil {
		return nil, err
	}
	if ask != nil {
		return nil, ask
	}
	return out, nil
}
