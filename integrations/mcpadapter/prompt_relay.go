package mcpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
)

// An upstream prompt's input-required result (prompts/get, SEP-2322) is
// relayed to the export's MCP caller as a tool's is (relay.go): a caller
// of 2026-07-28 gets the upstream's questions with a requestState of ours,
// bound as a tool's (caller, session, server, expiry) but to the prompt's
// name and arguments, and signed in a domain of its own (promptDomain), so
// a tool call's state is refused by a prompt and a prompt's by a tool. A
// caller before 2026-07-28 is asked by requests during the prompts/get.
// The rounds and sizes are bounded as a tool call's. A prompts/get without
// an MCP caller ([Manager.GetPrompt]) is answered by the import's own
// ports (inputMiddleware).

// promptCall is a prompts/get of an export's MCP caller on its way to the
// upstream: who asks, and its answers to the upstream's last questions.
type promptCall struct {
	req     *mcp.GetPromptRequest
	resume  *relayState // the verified state of the round answered; nil on the first
	answers mcp.InputResponseMap
}

type promptCallKey struct{}

func promptCallFrom(ctx context.Context) *promptCall {
	pc, _ := ctx.Value(promptCallKey{}).(*promptCall)
	return pc
}

// promptArgsHash is the hash a prompt's requestState binds its arguments by.
func promptArgsHash(args map[string]string) (string, error) {
	if len(args) == 0 {
		return adapter.CanonicalHash(json.RawMessage("{}"))
	}
	b, err := json.Marshal(args)
	if err != nil {
		return "", err
	}
	return adapter.CanonicalHash(b)
}

// withPromptCall returns the context a prompts/get of req runs in
// upstream. A retry's requestState is verified first: one that fails its
// integrity check (a tool's included), has expired, or was issued by
// another server, for another prompt, other arguments or another caller
// is refused with invalid params, and nothing reaches the upstream.
// Answers without a state go upstream as they came, as a tool's do.
func (s *Exporter) withPromptCall(ctx context.Context, req *mcp.GetPromptRequest) (context.Context, error) {
	p := req.Params
	pc := &promptCall{req: req, answers: upstreamAnswers(p.InputResponses)} // relay.go: a relayed id back to the upstream's
	if p.RequestState != "" {
		st, err := s.states.openIn(promptDomain, p.RequestState, time.Now())
		if err != nil {
			return ctx, stateError(err.Error())
		}
		if st.Srv != s.stateServer() {
			return ctx, stateError("issued by another server")
		}
		if st.Tool != p.Name {
			return ctx, stateError("issued for another prompt")
		}
		if hash, err := promptArgsHash(p.Arguments); err != nil || hash != st.Args {
			return ctx, stateError("issued for other arguments")
		}
		rs, ok := decodeRelayState(st.In)
		if !ok || st.Ticket != "" {
			return ctx, stateError(errStateMalformed.Error())
		}
		if ctx, err = bindCaller(ctx, &mcp.CallToolRequest{Session: req.Session, Extra: req.Extra}, st); err != nil {
			return ctx, err
		}
		pc.resume = rs
	}
	return context.WithValue(ctx, promptCallKey{}, pc), nil
}

// askPrompt answers a prompts/get whose upstream asked the caller of
// 2026-07-28 for input (err an *InputRequired of the relay) with an
// input-required result; it returns nil for any other error.
func (s *Exporter) askPrompt(ctx context.Context, p *mcp.GetPromptParams, err error) (*mcp.GetPromptResult, error) {
	ir := (*InputRequired)(nil)
	if !errors.As(err, &ir) || !ir.relayed {
		return nil, nil
	}
	hash, herr := promptArgsHash(p.Arguments)
	if herr != nil || len(ir.Requests) == 0 || len(ir.State) > maxRelayState {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal: the prompt's questions cannot be relayed"}
	}
	st := s.newState(ctx, p.Name, hash)
	st.In = ir.State
	state := s.states.sealIn(promptDomain, st)
	if state == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal: the requestState would exceed its bound"}
	}
	out := new(mcp.GetPromptResult)
	// resultType is unexported: go-sdk's decoder is the one public way to set it.
	_ = json.Unmarshal([]byte(`{"resultType":"input_required"}`), out)
	out.InputRequests, out.RequestState = ir.Requests, state
	return out, nil
}

// relayPrompt renders the prompt remote for the export's caller pc,
// putting the upstream's questions to that caller.
func (c *conn) relayPrompt(ctx context.Context, pc *promptCall, remote string, args map[string]string) (*mcp.GetPromptResult, error) {
	params := &mcp.GetPromptParams{Name: remote, Arguments: args}
	round := 0
	switch rs := pc.resume; {
	case rs == nil:
		params.InputResponses = pc.answers
	case rs.Srv == c.cfg.Name && rs.Tool == remote:
		round = rs.Round
		params.InputResponses, params.RequestState = pc.answers, rs.Up
	}
	// A state minted for a prompt now served by another server is not
	// forwarded: the prompt is asked anew.
	var out *mcp.GetPromptResult
	var ask error // the caller's questions, or a refusal of the upstream's
	err := c.request(ctx, func(ctx context.Context, s *mcp.ClientSession) error {
		for {
			params.Meta = callerCapsMeta(params.Meta, s, pc.req.ClientCapabilities())
			res, err := s.GetPrompt(ctx, params)
			if err != nil {
				return err
			}
			if !res.NeedsInput() {
				out = res
				return nil
			}
			round++
			if err := c.checkAsk(res.InputRequests, res.RequestState, round); err != nil {
				ask = err
				return nil
			}
			answers, err := c.askCaller(ctx, pc.req.Session, pc.req.ClientCapabilities(), remote, res.InputRequests, res.RequestState, round)
			if err != nil {
				ask = err
				return nil
			}
			next := *params
			next.InputResponses, next.RequestState = answers, res.RequestState
			params = &next
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
