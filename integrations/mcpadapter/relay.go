package mcpadapter

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/bridge"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/input"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/wire"
)

// An upstream of MCP 2026-07-28 asks its client for input (elicitation,
// sampling, roots) with input-required results (SEP-2322), not with
// server-to-client requests. Who answers an imported tool's upstream
// depends on who called it:
//
//   - A call with an MCP caller on the export (the gateway, or a library
//     export of an imported tool): the upstream is told the caller's
//     capabilities, not the import's, and its questions go to the caller.
//     A caller of 2026-07-28 gets an InputRequired with the upstream's
//     requests; its retry carries the answers and the upstream's
//     requestState, wrapped in the export's signed state (bound to caller,
//     session, server, tool, arguments and an expiry), back to the
//     upstream. A caller before 2026-07-28 is asked by server-to-client
//     requests during the call. ManagerOptions.Elicitation, Sampler and
//     the roots answer nothing of such a call.
//   - A call without one (a framework integration, `agentadapter call`):
//     the import answers with ManagerOptions.Elicitation and Sampler,
//     governed as before, and with its roots; a question it has no answer
//     for is a tool error.
//
// Either way a call asks within input.Check's bounds (rounds, questions,
// bytes, requestState), past which it ends with a tool error. Package
// internal/input holds what of this needs nothing of a conn.

// relayState is what a caller of 2026-07-28 brings back with its answers.
type relayState = bridge.RelayState

// resumeRelay returns the state of a relayed question the caller answers
// in this call, or nil, and the caller's answers to forward. The export
// verified the state before the call ran (InputRequired): only one minted
// for this caller, tool and arguments reaches here. The answers go
// upstream as bridge.UpstreamAnswers makes them (a relayed id back to the
// upstream's); without a state too, as a direct call would bring them:
// the upstream decides what unasked answers are worth.
func (c *conn) resumeRelay(ctx context.Context, imp *imported) (*relayState, mcp.InputResponseMap) {
	req := RequestFromContext(ctx)
	if req == nil || req.Params == nil {
		return nil, nil
	}
	if req.Params.RequestState == "" {
		return &relayState{Srv: c.cfg.Name, Tool: imp.remote}, bridge.UpstreamAnswers(req.Params.InputResponses)
	}
	st, ok := bridge.DecodeRelayState(req.Params.RequestState)
	if !ok || st.Srv != c.cfg.Name || st.Tool != imp.remote {
		return nil, nil
	}
	return st, bridge.UpstreamAnswers(req.Params.InputResponses)
}

// relayCaller returns the MCP request of the caller the upstream's
// questions go to, or nil when the call has none.
func relayCaller(ctx context.Context) *mcp.CallToolRequest {
	req := RequestFromContext(ctx)
	if req == nil || req.Session == nil || req.Params == nil {
		return nil
	}
	return req
}

// callerCapabilities tells a 2026-07-28 upstream what the call's MCP
// caller can answer (elicitation, sampling, roots), in place of the
// import's; without a caller, or for an older upstream, it does nothing.
func callerCapabilities(ctx context.Context, s *mcp.ClientSession, params *mcp.CallToolParams) {
	req := relayCaller(ctx)
	if req == nil {
		return
	}
	params.Meta = input.CallerCapsMeta(params.Meta, s, wire.ClientCaps(req))
}

// answerInput answers an upstream's input-required result res to params,
// the call's round-th, and returns the params of the retry. For a caller
// of 2026-07-28 it returns an *InputRequired instead.
func (c *conn) answerInput(ctx context.Context, s *mcp.ClientSession, imp *imported, params *mcp.CallToolParams, res *mcp.CallToolResult, round int) (*mcp.CallToolParams, error) {
	if err := c.checkAsk(res.InputRequests, res.RequestState, round); err != nil {
		return nil, err
	}
	var answers mcp.InputResponseMap
	var err error
	if req := relayCaller(ctx); req != nil {
		answers, err = c.askCaller(ctx, req.Session, wire.ClientCaps(req), imp.remote, res.InputRequests, res.RequestState, round)
	} else {
		answers, err = c.answerLocally(ctx, s, res.InputRequests)
	}
	if err != nil {
		return nil, err
	}
	next := *params
	next.InputResponses, next.RequestState = answers, res.RequestState
	return &next, nil
}

// askCaller puts an upstream's round-th questions about remote (a tool, a
// prompt or a resource), as input.CallerQuestions makes them, to the
// export's caller ss, which declared caps: a caller of 2026-07-28 gets an
// *InputRequired (as the error) whose State is the
// relayState to bring back; an older one is asked during the request, and
// its answers returned under the upstream's ids.
func (c *conn) askCaller(ctx context.Context, ss *mcp.ServerSession, caps *mcp.ClientCapabilities, remote string, reqs mcp.InputRequestMap, upState string, round int) (mcp.InputResponseMap, error) {
	reqs = input.CallerQuestions(reqs)
	if w := input.Unanswerable(caps, reqs); w != "" {
		return nil, c.askError(w)
	}
	if input.MultiRound(ss) {
		st, ok := (&relayState{Srv: c.cfg.Name, Tool: remote, Round: round, Up: upState}).Encode()
		if !ok {
			return nil, c.askError("sent a requestState too large to relay")
		}
		return nil, bridge.RelayedInput(reqs, st)
	}
	answers, err := input.AskSession(ctx, ss, reqs)
	if err != nil {
		return nil, err
	}
	return bridge.UpstreamAnswers(answers), nil
}

// checkAsk bounds a round of questions (input.Check).
func (c *conn) checkAsk(reqs mcp.InputRequestMap, state string, round int) error {
	if w := input.Check(reqs, state, round); w != "" {
		return c.askError(w)
	}
	return nil
}

func (c *conn) askError(what string) error {
	return &adapter.Error{Kind: adapter.KindToolError, Message: fmt.Sprintf("MCP server %q %s", c.cfg.Name, what)}
}

// answerLocally answers questions with the import's own ports (a call
// without an MCP caller), as go-sdk's client would: elicitation through
// ManagerOptions.Elicitation, its content checked against the requested
// schema and completed with its defaults; sampling through
// ManagerOptions.Sampler; roots with the client's roots.
func (c *conn) answerLocally(ctx context.Context, s *mcp.ClientSession, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	out := make(mcp.InputResponseMap, len(reqs))
	for id, ir := range reqs {
		resp, err := c.answerOne(ctx, s, ir)
		if err != nil {
			return nil, err
		}
		out[id] = resp
	}
	return out, nil
}

func (c *conn) answerOne(ctx context.Context, s *mcp.ClientSession, ir mcp.InputRequest) (mcp.InputResponse, error) {
	switch p := ir.(type) {
	case *mcp.ElicitParams:
		if c.m.opts.Elicitation == nil || p == nil {
			return nil, c.askError("asked for the user's input (elicitation), which this import cannot give: set ManagerOptions.Elicitation")
		}
		schema, err := input.CheckElicit(p)
		if err != nil {
			return nil, c.askError("asked for input with an invalid elicitation: " + err.Error())
		}
		res, err := c.elicit(ctx, &mcp.ElicitRequest{Session: s, Params: p})
		if err != nil {
			return nil, input.Failure(ctx, "elicitation", err)
		}
		if err := input.CheckAnswer(schema, res); err != nil {
			return nil, err
		}
		return res, nil
	case *mcp.CreateMessageWithToolsParams:
		cp, ok := input.PlainSampling(p)
		if c.m.opts.Sampler == nil || !ok {
			return nil, c.askError("asked for a completion of the client's model (sampling), which this import cannot give: set ManagerOptions.Sampler (sampling with tools is not supported)")
		}
		res, err := c.sample(ctx, &mcp.CreateMessageRequest{Session: s, Params: cp})
		if err != nil {
			return nil, input.Failure(ctx, "sampling", err)
		}
		return res, nil
	case *mcp.ListRootsParams:
		c.rootsMu.Lock()
		roots := make([]*mcp.Root, 0, len(c.roots))
		for i := range c.roots {
			r := c.roots[i]
			roots = append(roots, &r)
		}
		c.rootsMu.Unlock()
		return &mcp.ListRootsResult{Roots: roots}, nil
	}
	return nil, c.askError(fmt.Sprintf("asked for input of an unknown kind (%T)", ir))
}

// inputMiddleware answers an upstream's input-required results to
// prompts/get and resources/read with the import's own ports (go-sdk's
// automatic answering is off: tools/call answers in conn.call, which knows
// the caller, a prompts/get of an export's caller in relayPrompt, and a
// resources/read of one in relayRead).
func (c *conn) inputMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "prompts/get" && method != "resources/read" ||
			method == "prompts/get" && bridge.PromptCall(ctx) != nil || // relayed: prompt_relay.go
			method == "resources/read" && bridge.ReadCall(ctx) != nil { // relayed: resource_relay.go
			return next(ctx, method, req)
		}
		for round := 1; ; round++ {
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			var reqs mcp.InputRequestMap
			var state string
			switch r := res.(type) {
			case *mcp.GetPromptResult:
				if !r.NeedsInput() {
					return res, nil
				}
				reqs, state = r.InputRequests, r.RequestState
			case *mcp.ReadResourceResult:
				if !r.NeedsInput() {
					return res, nil
				}
				reqs, state = r.InputRequests, r.RequestState
			default:
				return res, nil
			}
			if err := c.checkAsk(reqs, state, round); err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: errMessage(err)}
			}
			cs, _ := req.GetSession().(*mcp.ClientSession)
			answers, err := c.answerLocally(ctx, cs, reqs)
			if err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: errMessage(err)}
			}
			switch p := req.GetParams().(type) {
			case *mcp.GetPromptParams:
				cp := *p
				cp.InputResponses, cp.RequestState = answers, state
				req = &mcp.ClientRequest[*mcp.GetPromptParams]{Session: cs, Params: &cp}
			case *mcp.ReadResourceParams:
				cp := *p
				cp.InputResponses, cp.RequestState = answers, state
				req = &mcp.ClientRequest[*mcp.ReadResourceParams]{Session: cs, Params: &cp}
			default:
				return res, nil
			}
		}
	}
}

// The import's side of the relay of an upstream's input-required result
// to a primitive request of the export's MCP caller (prompts/get,
// resources/read; the export's side is export/primrelay.go).

// relayPrompt renders the prompt remote for the export's caller pc,
// putting the upstream's questions to that caller.
func (c *conn) relayPrompt(ctx context.Context, pc *bridge.PrimCall, remote string, args map[string]string) (*mcp.GetPromptResult, error) {
	return relayPrim(ctx, c, pc, remote,
		func(ctx context.Context, s *mcp.ClientSession, meta mcp.Meta, answers mcp.InputResponseMap, state string) (*mcp.GetPromptResult, error) {
			return s.GetPrompt(ctx, &mcp.GetPromptParams{Meta: meta, Name: remote, Arguments: args, InputResponses: answers, RequestState: state})
		},
		func(res *mcp.GetPromptResult) (bool, mcp.InputRequestMap, string) {
			return res.NeedsInput(), res.InputRequests, res.RequestState
		})
}

// relayRead reads uri for the export's caller rc, putting the upstream's
// questions to that caller.
func (c *conn) relayRead(ctx context.Context, rc *bridge.PrimCall, uri string) (*mcp.ReadResourceResult, error) {
	name, err := bridge.ReadHash(uri)
	if err != nil {
		return nil, err
	}
	return relayPrim(ctx, c, rc, name,
		func(ctx context.Context, s *mcp.ClientSession, meta mcp.Meta, answers mcp.InputResponseMap, state string) (*mcp.ReadResourceResult, error) {
			return s.ReadResource(ctx, &mcp.ReadResourceParams{Meta: meta, URI: uri, InputResponses: answers, RequestState: state})
		},
		func(res *mcp.ReadResourceResult) (bool, mcp.InputRequestMap, string) {
			return res.NeedsInput(), res.InputRequests, res.RequestState
		})
}

// relayPrim runs a primitive request upstream for the export's caller pc,
// putting the upstream's questions to that caller. name is what the
// relayed state binds (relayState.Tool) and what the caller is asked for;
// send sends one round (its _meta, answers and upstream state) and asks
// returns whether a result asks, its questions and its state.
func relayPrim[T any](ctx context.Context, c *conn, pc *bridge.PrimCall, name string,
	send func(context.Context, *mcp.ClientSession, mcp.Meta, mcp.InputResponseMap, string) (*T, error),
	asks func(*T) (bool, mcp.InputRequestMap, string)) (*T, error) {
	var meta mcp.Meta
	var answers mcp.InputResponseMap
	state, round := "", 0
	switch rs := pc.Resume; {
	case rs == nil:
		answers = pc.Answers
	case rs.Srv == c.cfg.Name && rs.Tool == name:
		round = rs.Round
		answers, state = pc.Answers, rs.Up
	}
	// A state minted for a primitive now served by another server is not
	// forwarded: the primitive is asked anew.
	var out *T
	var ask error // the caller's questions, or a refusal of the upstream's
	err := c.request(ctx, true, func(ctx context.Context, s *mcp.ClientSession) error {
		for {
			meta = input.CallerCapsMeta(meta, s, pc.Caps())
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
			got, err := c.askCaller(ctx, pc.Session, pc.Caps(), name, reqs, upState, round)
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
