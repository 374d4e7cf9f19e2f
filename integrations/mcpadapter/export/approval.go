package export

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/outbound"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/wire"
)

// approvalInputPrefix prefixes the ids of the input requests that ask the
// client's user to approve a ticket.
const approvalInputPrefix = "agentadapter/approval/"

// ClientApprover names who decided a ticket the client's user answered
// (see [Options.Approver]): "client:" and the caller's subject
// ("client:alice", "client:anonymous:<session>"), or "client" alone.
const ClientApprover = "client"

// maxApprovalArgs bounds the arguments quoted in an approval question.
const maxApprovalArgs = 2048

// askApproval returns a result asking the client's user to decide a pending
// call, or nil when it cannot be asked (no elicitation capability).
// Without a client approver the decision is an operator's: an anonymous
// caller of the stateless endpoint is asked to wait for it instead
// (askWait). The go-sdk turns the input request into an
// elicitation/create request mid-call for clients before 2026-07-28 (and calls the handler
// again with the answer and the requestState), and sends it as an
// input_required result the client answers by retrying the call from
// 2026-07-28 on. Either way the answer comes back with the requestState
// minted here, which applyApprovalAnswer verifies.
func (s *Server) askApproval(ctx context.Context, req *mcp.CallToolRequest, name string, args json.RawMessage, err error) *mcp.CallToolResult {
	e := exportError(err)
	if e == nil || e.Ticket == "" || !canElicitForm(req) {
		return nil
	}
	if s.opts.Approver == nil {
		return s.askWait(ctx, req, name, args, e)
	}
	hash, herr := adapter.CanonicalHash(args)
	if herr != nil {
		return nil
	}
	st := s.newState(ctx, name, hash)
	st.Ticket, st.Cont, st.CRnd, st.N = e.Ticket, "", 0, ""
	state := s.states.Seal(st)
	if state == "" || !s.rememberAsked(ctx, req, e.Ticket, name) {
		return nil
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{
			approvalInputPrefix + e.Ticket: &mcp.ElicitParams{
				Mode:            "form",
				Message:         approvalQuestion(name, args),
				RequestedSchema: approvalSchema,
			},
		},
		RequestState: state,
	}
}

var approvalSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"approve": map[string]any{"type": "boolean", "title": "Approve", "description": "Allow this call to run"},
		"reason":  map[string]any{"type": "string", "title": "Reason", "description": "Why not (optional)"},
	},
	"required": []any{"approve"},
}

func approvalQuestion(name string, args json.RawMessage) string {
	a, err := adapter.CanonicalJSON(args)
	if err != nil {
		a = args
	}
	if len(a) > maxApprovalArgs {
		a = append(a[:maxApprovalArgs:maxApprovalArgs], "…"...)
	}
	return fmt.Sprintf("Allow the tool %q to run with these arguments?\n%s", name, a)
}

// applyAnswers reads the answers to a question put to the client out of a
// retried call, before the executor sees it. The answer to an approval
// question decides its ticket, which becomes areq.Ticket; the state of a
// tool's own question (InputRequired) becomes the RequestState its
// handler reads in areq.Native. The state of a wait question (askWait)
// decides nothing: it restores the caller it was minted for and makes its
// ticket areq.Ticket, so the call runs if an operator approved it. It
// returns the context to run the call in.
//
// Only a requestState minted here counts: answers without one are left to
// the tool (an approval answer is ignored: the call is asked anew), and a
// state that fails its integrity check, has expired, was issued for
// another tool, other arguments, another caller or another session, or
// names a ticket already decided is refused with an invalid-params error,
// deciding nothing and reaching no handler. A valid approval state without
// its answer is asked again.
func (s *Server) applyAnswers(ctx context.Context, name string, req *mcp.CallToolRequest, areq *adapter.Request) (context.Context, error) {
	if req.Params.RequestState == "" {
		return ctx, nil
	}
	st, err := s.states.Open(req.Params.RequestState, time.Now())
	if err != nil {
		return ctx, stateError(err.Error())
	}
	if st.Srv != s.stateServer() {
		return ctx, stateError("issued by another server")
	}
	if st.Tool != name {
		return ctx, stateError("issued for another tool")
	}
	if hash, err := adapter.CanonicalHash(req.Params.Arguments); err != nil || hash != st.Args {
		return ctx, stateError("issued for other arguments")
	}
	ctx, err = bindCaller(ctx, req, st)
	if err != nil {
		return ctx, err
	}
	if st.Ticket == "" {
		areq.Native = withRequestState(areq.Native, st.In)
		if st.Cont != "" {
			ctx = s.continueCall(ctx, name, areq, st)
		}
		return ctx, nil
	}
	if st.Wait {
		s.forgetAsked(ctx, req, st.Ticket) // asked again (askWait) while still pending
		return waitRetry(ctx, name, req, areq, st)
	}
	ticket, err := s.decide(ctx, name, req, st)
	areq.Ticket = ticket
	if ticket != "" && err == nil {
		ctx = s.approvedCall(ctx, name, ticket, 0)
	}
	return ctx, err
}

// A call the client's user approved may ask the client for input itself
// (its tool returns an InputRequired): the call ran, its ticket is
// consumed, and the answer comes back as a new call that the executor
// would hold for approval again, round after round. So the tool's question
// names the ticket in its state (questionState.Cont), and its answer
// continues the call: the executor is told, for that call only, that the
// approval stands (continuation, an adapter.ApprovalPort) if the ticket
// still binds it: consumed, unexpired, of the same tool, canonical
// arguments and approval scope. The state binds caller, session, tool and
// arguments as any; it is single-use, and a call continues at most
// maxContinueRounds rounds. A spent, overused or unverifiable continuation
// asks approval anew; one whose ticket no longer binds the call is denied.

// maxContinueRounds bounds the rounds one approval continues.
const maxContinueRounds = 8

// continueKey is the context key of the continued approval of a call.
type continueKey struct{}

// continued is the approval a call runs under, which its tool's question
// may continue (newState).
type continued struct {
	tool, ticket string
	round        int
}

// ticketReader is what an Approver must also be for its approvals to
// continue: *adapter.Deferred is one.
type ticketReader interface {
	Ticket(ctx context.Context, id string) (*adapter.Ticket, error)
}

// approvedCall marks ctx as running tool under the approval of ticket,
// continued round times, when the Approver can vouch for the ticket later.
func (s *Server) approvedCall(ctx context.Context, tool, ticket string, round int) context.Context {
	if _, ok := s.opts.Approver.(ticketReader); !ok {
		return ctx
	}
	return context.WithValue(ctx, continueKey{}, &continued{tool: tool, ticket: ticket, round: round})
}

// continueCall lets the call of the verified state st continue the
// approval it names, once: the executor then asks st.Cont's ticket, not
// the approval port. A spent state continues nothing.
func (s *Server) continueCall(ctx context.Context, name string, areq *adapter.Request, st *questionState) context.Context {
	tr, ok := s.opts.Approver.(ticketReader)
	if !ok || !s.states.Spend(st.N, st.Exp, time.Now()) {
		return ctx
	}
	areq.Approval = &continuation{tickets: tr, ticket: st.Cont}
	return s.approvedCall(ctx, name, st.Cont, st.CRnd)
}

// continuation is the approval port of a continued call: it approves the
// call in the name of the ticket's approver if the ticket still binds it,
// and denies it otherwise.
type continuation struct {
	tickets ticketReader
	ticket  string
}

// Decide implements adapter.ApprovalPort.
func (c *continuation) Decide(ctx context.Context, req *adapter.ApprovalRequest) (adapter.Decision, error) {
	lapsed := adapter.Decision{Verdict: adapter.VerdictDenied, Ticket: c.ticket,
		Reason: fmt.Sprintf("the approval of ticket %s no longer covers this call (expired, or for another call); call the tool again to be asked anew", c.ticket)}
	t, err := c.tickets.Ticket(ctx, c.ticket)
	if errors.Is(err, adapter.ErrTicketNotFound) {
		return lapsed, nil
	}
	if err != nil {
		return adapter.Decision{}, err
	}
	if t.State != adapter.TicketConsumed || t.Approver == "" || t.Tool != req.Tool || t.ArgsHash != req.ArgsHash ||
		t.Scope != req.Scope || t.ScopeID != req.ScopeID || (!t.Expires.IsZero() && !time.Now().Before(t.Expires)) {
		return lapsed, nil
	}
	requester, _ := strings.CutSuffix(t.Subject, adapter.SessionSubject("", t.Session))
	return adapter.Decision{Verdict: adapter.VerdictApproved, Ticket: t.ID, Approver: t.Approver, Requester: requester, Args: t.Edited}, nil
}

// decide decides the ticket of a verified approval state with the user's
// answer, and returns it ("" when unanswered).
func (s *Server) decide(ctx context.Context, name string, req *mcp.CallToolRequest, st *questionState) (string, error) {
	resp, ok := req.Params.InputResponses[approvalInputPrefix+st.Ticket]
	if !ok {
		return "", nil // not answered: asked again
	}
	er, ok := resp.(*mcp.ElicitResult)
	if !ok || er == nil {
		return "", answerError(fmt.Sprintf("the answer to %s is not an elicitation result", approvalInputPrefix+st.Ticket))
	}
	if s.opts.Approver == nil {
		return "", answerError("this server takes no approval answers")
	}
	// The client's user decides, not an operator: the name says so.
	approver := ClientApprover
	if id := adapter.IdentityFromContext(ctx); id != nil && id.Subject != "" {
		approver += ":" + id.Subject
	}
	ticket := st.Ticket
	var err error
	if er.Action == "accept" && er.Content["approve"] == true {
		err = s.opts.Approver.Approve(ctx, ticket, approver)
	} else {
		reason := "the user declined"
		if r, _ := er.Content["reason"].(string); r != "" {
			reason = truncateReason(r)
		} else if er.Action == "cancel" {
			reason = "the user dismissed the approval request"
		}
		err = s.opts.Approver.Deny(ctx, ticket, reason, approver)
	}
	s.forgetAsked(ctx, req, ticket)
	switch {
	case err == nil:
		return ticket, nil
	case errors.Is(err, adapter.ErrTicketState), errors.Is(err, adapter.ErrTicketExpired), errors.Is(err, adapter.ErrTicketNotFound):
		// A replayed answer, or one for a ticket decided or lapsed since.
		return "", answerError(fmt.Sprintf("ticket %s is no longer pending: it was decided once, or has expired; call the tool again to be asked anew", ticket))
	default:
		s.logger.Warn("mcpadapter: deciding approval ticket", "tool", name, "ticket", ticket, "err", err)
		return "", &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal: the approval answer could not be recorded"}
	}
}

// maxReason bounds the reason a user's denial records.
const maxReason = 1024

func truncateReason(r string) string { return outbound.Truncate(r, maxReason) }

// bindCaller checks that the caller retrying is the one the state was
// minted for, and returns the context to run the call in.
//
// An authenticated caller must present its own state: same subject and,
// in a session that outlives a request, the same session. An anonymous
// caller is only its session; on the stateless endpoint (2026-07-28 over
// HTTP) each request is a session of its own, so there the state itself is
// the binding: an anonymous request presenting it continues as the
// anonymous caller (and session) it was minted for, so that the ticket,
// bound to that caller, matches. Nothing else carries over: an
// authenticated caller cannot present an anonymous caller's state, nor an
// anonymous one an authenticated caller's.
func bindCaller(ctx context.Context, req *mcp.CallToolRequest, st *questionState) (context.Context, error) {
	cur := adapter.IdentityFromContext(ctx)
	sub, anon := "", cur == nil || cur.Anonymous
	if cur != nil {
		sub = cur.Subject
	}
	foreign := stateError("issued to another caller")
	if st.Anon != anon {
		return ctx, foreign
	}
	if ephemeralSession(req) {
		if anon {
			ctx = adapter.WithIdentity(ctx, &adapter.Identity{Subject: st.Sub, Anonymous: true})
		} else if sub != st.Sub {
			return ctx, foreign
		}
		if st.Ses != "" {
			ctx = adapter.WithSession(ctx, st.Ses)
		}
		return ctx, nil
	}
	if sub != st.Sub {
		return ctx, foreign
	}
	if st.Ses != adapter.SessionFromContext(ctx) {
		return ctx, stateError("issued in another session")
	}
	return ctx, nil
}

// canElicitForm reports whether the caller of req declared form
// elicitation (a bare elicitation capability means form).
func canElicitForm(req *mcp.CallToolRequest) bool {
	caps := wire.ClientCaps(req)
	return caps != nil && caps.Elicitation != nil && (caps.Elicitation.Form != nil || caps.Elicitation.URL == nil)
}

// ephemeralSession reports whether the call's session is this one request:
// the stateless HTTP endpoint, where go-sdk makes a session without id per
// request. In-memory and stdio sessions have no id either, but no HTTP
// header; stateful HTTP sessions have an id.
func ephemeralSession(req *mcp.CallToolRequest) bool {
	return req.Session != nil && req.Session.ID() == "" && req.Extra != nil && req.Extra.Header != nil
}

// stateError is the protocol error that refuses a requestState or an
// answer: invalid params (-32602), as SEP-2322 asks for a state that fails
// its integrity check. Its data names the kind, for programs.
func stateError(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState: " + msg, Data: stateErrorData}
}

// answerError refuses an answer to an approval question, as stateError.
func answerError(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid approval answer: " + msg, Data: stateErrorData}
}

var stateErrorData = json.RawMessage(`{"kind":"` + string(adapter.KindArgsInvalid) + `"}`)
