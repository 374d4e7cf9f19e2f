package export

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
)

// Without a client approver ([Options.Approver] nil) a held call is
// decided out of band, by an operator, and the client retries it. A ticket
// is bound to its caller, and on the stateless endpoint (2026-07-28 over
// HTTP) an anonymous caller is one request: its retry is another caller,
// whose call is held anew. So such a caller, when it declares form
// elicitation, is asked to wait: an input-required result whose
// requestState binds the ticket and the caller, and whose answer, once the
// operator has decided, brings both back. Without elicitation its pending
// payload says why a retry cannot succeed.

// waitInputPrefix prefixes the ids of the input requests that ask the
// client's user to wait for an operator's decision of a ticket.
const waitInputPrefix = "agentadapter/wait/"

// maxWaitRounds bounds the times one call is asked to wait: past it the
// call answers with its pending payload. A client answering at once, not
// when decided, ends there instead of at its own retry cap (go-sdk's is 10,
// an error).
const maxWaitRounds = 8

// waitSchema asks for nothing: the answer only says "decided, retry".
var waitSchema = map[string]any{"type": "object", "properties": map[string]any{}}

// statelessNote ends the pending message of an anonymous stateless caller
// that cannot be asked (no form elicitation): whoever decides the ticket,
// its retry is another caller.
const statelessNote = "; this caller is anonymous and stateless (MCP 2026-07-28): its retry is another caller, so a decision cannot reach it. Authenticate the client, or use one that declares elicitation"

// askWait returns a result asking an anonymous caller of the stateless
// endpoint to answer once an operator has decided ticket e.Ticket, or nil
// when it is not such a caller or cannot be asked (an overlong state, a
// flooding session).
func (s *Server) askWait(ctx context.Context, req *mcp.CallToolRequest, name string, args json.RawMessage, e *adapter.Error) *mcp.CallToolResult {
	if !ephemeralSession(req) || !isAnonymous(ctx) {
		return nil // a retry of this caller carries its identity
	}
	hash, err := adapter.CanonicalHash(args)
	if err != nil {
		return nil
	}
	st := s.newState(ctx, name, hash)
	st.Ticket, st.Wait, st.Cont, st.CRnd, st.N = e.Ticket, true, "", 0, ""
	if prev, ok := ctx.Value(waitKey{}).(*questionState); ok {
		if st.Round = prev.Round + 1; st.Round >= maxWaitRounds {
			return nil
		}
	}
	state := s.states.Seal(st)
	if state == "" || !s.rememberAsked(ctx, req, e.Ticket, name) {
		return nil
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{
			waitInputPrefix + e.Ticket: &mcp.ElicitParams{
				Mode:            "form",
				Message:         fmt.Sprintf("The tool %q is waiting for an operator's decision (ticket %s). Answer once it is decided to continue; decline to stop waiting.", name, e.Ticket),
				RequestedSchema: waitSchema,
			},
		},
		RequestState: state,
	}
}

// waitKey is the context key that marks the retry of a wait question.
type waitKey struct{}

// waitRetry prepares the retry of the wait question of st (verified, its
// caller bound): the call presents st's ticket, and is asked again while
// the ticket is pending. A declined or cancelled answer stops the waiting:
// the call is not run, and its error is the pending payload.
func waitRetry(ctx context.Context, name string, req *mcp.CallToolRequest, areq *adapter.Request, st *questionState) (context.Context, error) {
	if er, ok := req.Params.InputResponses[waitInputPrefix+st.Ticket].(*mcp.ElicitResult); ok && er != nil && er.Action != "accept" {
		return ctx, &adapter.Error{Kind: adapter.KindApprovalPending, Tool: name, Ticket: st.Ticket,
			Message: fmt.Sprintf("the call was not run: the user stopped waiting for the decision of ticket %s; call the tool again to wait anew", st.Ticket)}
	}
	areq.Ticket = st.Ticket
	return context.WithValue(ctx, waitKey{}, st), nil
}

// held answers a call the executor held for approval (err is its
// approval_pending error): with a question when the client can be asked
// (an approval question, or a wait), else with the pending payload.
// answered says the call presented a ticket already.
func (s *Server) held(ctx context.Context, req *mcp.CallToolRequest, name string, args json.RawMessage, answered bool, err error) (*mcp.CallToolResult, error) {
	waiting := ctx.Value(waitKey{}) != nil
	if !answered || waiting {
		if r := s.askApproval(ctx, req, name, args, err); r != nil {
			return r, nil
		}
	}
	if e := exportError(err); e != nil && !waiting && ephemeralSession(req) && isAnonymous(ctx) && !canElicitForm(req) {
		c := *e
		if c.Message == "" {
			c.Message = "the call is waiting for approval"
		}
		c.Message += statelessNote
		err = &c
	}
	return errorResultOrProtocol(err)
}

// isAnonymous reports whether the caller of ctx proved no identity.
func isAnonymous(ctx context.Context) bool {
	id := adapter.IdentityFromContext(ctx)
	return id == nil || id.Anonymous
}
