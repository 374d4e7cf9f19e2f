package export

import (
	"context"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/bridge"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// readRelay is the relay of a resources/read: a bridge.PrimCall under
// bridge.ReadKey, its state signed in resourceDomain.
var readRelay = primRelay{key: bridge.ReadKey{}, domain: resourceDomain, noun: "resource's"}

// withReadCall returns the context a resources/read of req runs in
// upstream. A retry's requestState is verified first: one that fails its
// integrity check (a tool's or a prompt's included), has expired, or was
// issued by another server, for another URI or another caller is refused
// with invalid params, and nothing reaches the upstream. Answers without a
// state go upstream as they came, as a tool's do.
func (s *Server) withReadCall(ctx context.Context, req *mcp.ReadResourceRequest) (context.Context, error) {
	p := req.Params
	return readRelay.with(ctx, s, req.Session, req.Extra, req.ClientCapabilities, p.InputResponses, p.RequestState, func(st *questionState) string {
		if hash, err := bridge.ReadHash(p.URI); err != nil || st.Tool != methodRead || hash != st.Args {
			return "issued for another resource"
		}
		return ""
	})
}

// askRead answers a resources/read whose upstream asked the caller of
// 2026-07-28 for input (err an *InputRequired of the relay) with an
// input-required result, private to its caller; it returns nil for any
// other error.
func (s *Server) askRead(ctx context.Context, p *mcp.ReadResourceParams, err error) (*mcp.ReadResourceResult, error) {
	hash := func() (string, error) { return bridge.ReadHash(p.URI) }
	return askPrim(ctx, s, readRelay, methodRead, hash, err, func(out *mcp.ReadResourceResult, reqs mcp.InputRequestMap, state string) {
		out.InputRequests, out.RequestState = reqs, state
		out.Cacheable = mcp.Cacheable{CacheScope: "private"}
	})
}
