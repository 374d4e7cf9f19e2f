package mcpadapter

import (
	"context"
	"encoding/json"

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

// readRelay is the relay of a resources/read: a primCall under
// readCallKey, its state signed in resourceDomain.
var readRelay = primRelay{key: readCallKey{}, domain: resourceDomain, noun: "resource's"}

type readCallKey struct{}

// readCallFrom returns the resources/read of an export's MCP caller that
// ctx runs for, if any.
func readCallFrom(ctx context.Context) *primCall { return readRelay.from(ctx) }

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
	return readRelay.with(ctx, s, req.Session, req.Extra, req.ClientCapabilities, p.InputResponses, p.RequestState, func(st *questionState) string {
		if hash, err := readHash(p.URI); err != nil || st.Tool != methodRead || hash != st.Args {
			return "issued for another resource"
		}
		return ""
	})
}

// askRead answers a resources/read whose upstream asked the caller of
// 2026-07-28 for input (err an *InputRequired of the relay) with an
// input-required result, private to its caller; it returns nil for any
// other error.
func (s *Exporter) askRead(ctx context.Context, p *mcp.ReadResourceParams, err error) (*mcp.ReadResourceResult, error) {
	hash := func() (string, error) { return readHash(p.URI) }
	return askPrim(ctx, s, readRelay, methodRead, hash, err, func(out *mcp.ReadResourceResult, reqs mcp.InputRequestMap, state string) {
		out.InputRequests, out.RequestState = reqs, state
		out.Cacheable = mcp.Cacheable{CacheScope: "private"}
	})
}

// relayRead reads uri for the export's caller rc, putting the upstream's
// questions to that caller.
func (c *conn) relayRead(ctx context.Context, rc *primCall, uri string) (*mcp.ReadResourceResult, error) {
	name, err := readHash(uri)
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
