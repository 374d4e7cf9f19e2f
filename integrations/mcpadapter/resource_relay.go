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

// An upstream's input-required result to resources/read (SEP-2322) is
// relayed to the export's MCP caller as a prompt's is (prompt_relay.go):
// a caller of 2026-07-28 gets the upstream's questions with a
// requestState of ours, bound as a prompt's (caller, session, server,
// expiry) but to the resource's URI, and signed in a domain of its own
// (resourceDomain), so neither a tool call's nor a prompt's state opens as
// a read's, nor a read's as theirs. A caller before 2026-07-28 is asked by
// requests during the resources/read. The rounds and sizes are bounded as
// a tool call's. A read without an MCP caller ([Manager.ReadResource]) is
// answered by the import's own ports (inputMiddleware).

// resourceDomain is the MAC domain of a resource read's relayed question.
const resourceDomain = "agentadapter/requestState/resource/v1\x00"

// readCall is a resources/read of an export's MCP caller on its way to the
// upstream: who asks, and its answers to the upstream's last questions.
type readCall struct {
	req     *mcp.ReadResourceRequest
	resume  *relayState // the verified state of the round answered; nil on the first
	answers mcp.InputResponseMap
}

type readCallKey struct{}

func readCallFrom(ctx context.Context) *readCall {
	rc, _ := ctx.Value(readCallKey{}).(*readCall)
	return rc
}

// readHash is the hash a read's requestState binds its URI by (the
// questionState's Args; its Tool is methodRead), and the name the relayed
// state gives the read: a URI may be longer than a state may be.
func readHash(uri string) (string, error) {
	b, err := json.Marshal(map[string]string{"uri": uri})
	if err != nil {
		return "", err
	}
	return adapter.CanonicalHash(b)
}

// withReadCall returns the context a resources/read of req runs in
// upstream. A retry's requestState is verified first: one that fails its
// integrity check (a tool's or a prompt's included), has expired, or was
// issued by another server, for another URI or another caller is refused
// with invalid params, and nothing reaches the upstream. Answers without a
// state go upstream as they came, as a tool's do.
func (s *Exporter) withReadCall(ctx context.Context, req *mcp.ReadResourceRequest) (context.Context, error) {
	p := req.Params
	rc := &readCall{req: req, answers: upstreamAnswers(p.InputResponses)} // relay.go: a relayed id back to the upstream's
	if p.RequestState != "" {
		st, err := s.states.openIn(resourceDomain, p.RequestState, time.Now())
		if err != nil {
			return ctx, stateError(err.Error())
		}
		if st.Srv != s.stateServer() {
			return ctx, stateError("issued by another server")
		}
		if hash, err := readHash(p.URI); err != nil || st.Tool != methodRead || hash != st.Args {
			return ctx, stateError("issued for another resource")
		}
		rs, ok := decodeRelayState(st.In)
		if !ok || st.Ticket != "" {
			return ctx, stateError(errStateMalformed.Error())
		}
		if ctx, err = bindCaller(ctx, &mcp.CallToolRequest{Session: req.Session, Extra: req.Extra}, st); err != nil {
			return ctx, err
		}
		rc.resume = rs
	}
	return context.WithValue(ctx, readCallKey{}, rc), nil
}

// askRead answers a resources/read whose upstream asked the caller of
// 2026-07-28 for input (err an *InputRequired of the relay) with an
// input-required result; it returns nil for any other error.
func (s *Exporter) askRead(ctx context.Context, p *mcp.ReadResourceParams, err error) (*mcp.ReadResourceResult, error) {
	ir := (*InputRequired)(nil)
	if !errors.As(err, &ir) || !ir.relayed {
		return nil, nil
	}
	hash, herr := readHash(p.URI)
	if herr != nil || len(ir.Requests) == 0 || len(ir.State) > maxRelayState {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal: the resource's questions cannot be relayed"}
	}
	st := s.newState(ctx, methodRead, hash)
	st.In = ir.State
	state := s.states.sealIn(resourceDomain, st)
	if state == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal: the requestState would exceed its bound"}
	}
	out := new(mcp.ReadResourceResult)
	// resultType is unexported: go-sdk's decoder is the one public way to set it.
	_ = json.Unmarshal([]byte(`{"resultType":"input_required"}`), out)
	out.InputRequests, out.RequestState = ir.Requests, state
	out.Cacheable = mcp.Cacheable{CacheScope: "private"}
	return out, nil
}

// relayRead reads uri for the export's caller rc, putting the upstream's
// questions to that caller.
func (c *conn) relayRead(ctx context.Context, rc *readCall, uri string) (*mcp.ReadResourceResult, error) {
	name, err := readHash(uri)
	if err != nil {
		return nil, err
	}
	params := &mcp.ReadResourceParams{URI: uri}
	round := 0
	switch rs := rc.resume; {
	case rs == nil:
		params.InputResponses = rc.answers
	case rs.Srv == c.cfg.Name && rs.Tool == name:
		round = rs.Round
		params.InputResponses, params.RequestState = rc.answers, rs.Up
	}
	// A state minted for a URI now served by another server is not
	// forwarded: the resource is asked anew.
	var out *mcp.ReadResourceResult
	var ask error // the caller's questions, or a refusal of the upstream's
	err = c.request(ctx, func(ctx context.Context, s *mcp.ClientSession) error {
		for {
			params.Meta = callerCapsMeta(params.Meta, s, rc.req.ClientCapabilities())
			res, err := s.ReadResource(ctx, params)
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
			answers, err := c.askCaller(ctx, rc.req.Session, rc.req.ClientCapabilities(), name, res.InputRequests, res.RequestState, round)
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
