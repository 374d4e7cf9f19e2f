package export

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/bridge"
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

// promptRelay is the relay of a prompts/get: a bridge.PrimCall under
// bridge.PromptKey, its state signed in promptDomain.
var promptRelay = primRelay{key: bridge.PromptKey{}, domain: promptDomain, noun: "prompt's"}

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
func (s *Server) withPromptCall(ctx context.Context, req *mcp.GetPromptRequest) (context.Context, error) {
	p := req.Params
	return promptRelay.with(ctx, s, req.Session, req.Extra, req.ClientCapabilities, p.InputResponses, p.RequestState, func(st *questionState) string {
		if st.Tool != p.Name {
			return "issued for another prompt"
		}
		if hash, err := promptArgsHash(p.Arguments); err != nil || hash != st.Args {
			return "issued for other arguments"
		}
		return ""
	})
}

// askPrompt answers a prompts/get whose upstream asked the caller of
// 2026-07-28 for input (err an *InputRequired of the relay) with an
// input-required result; it returns nil for any other error.
func (s *Server) askPrompt(ctx context.Context, p *mcp.GetPromptParams, err error) (*mcp.GetPromptResult, error) {
	hash := func() (string, error) { return promptArgsHash(p.Arguments) }
	return askPrim(ctx, s, promptRelay, p.Name, hash, err, func(out *mcp.GetPromptResult, reqs mcp.InputRequestMap, state string) {
		out.InputRequests, out.RequestState = reqs, state
	})
}
