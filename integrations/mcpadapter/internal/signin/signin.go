// Package signin asks the caller of a tool call to sign in to an
// OAuth.PerCaller server it has no token for: a URL-mode elicitation
// (MCP 2025-11-25) of the sign-in's start page when the caller's client
// declared one, the call waiting for the sign-in and then going on; for a
// caller of 2026-07-28 the same question in an input-required result,
// the retry bringing the answer waiting for the sign-in; otherwise the
// model-facing sign-in error, carrying the caller's own link.
package signin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/bridge"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/input"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
)

// Ask handles err, the error of base.ForCaller(ctx, subject) for a tool
// call whose MCP caller made req (nil for none). Unless err is a
// *oauth.SignInError of a caller with a subject, and base's configuration
// has a SignIn, it returns err as is. Otherwise it begins a sign-in bound
// to subject and the caller's session and, when the caller can answer a
// URL elicitation on its session, sends it the start page, waits for the
// sign-in to complete (while ctx lasts), tells the client it completed
// (notifications/elicitation/complete) and returns the caller's handler.
// A caller that cannot, or declines, gets the sign-in error with the
// link: it is shown to that caller only.
func Ask(ctx context.Context, req *mcp.CallToolRequest, base *oauth.Handler, subject string, err error) (*oauth.Handler, error) {
	var se *oauth.SignInError
	if !errors.As(err, &se) || subject == "" || se.Subject != subject {
		return nil, err
	}
	multi := req != nil && req.Session != nil && req.Params != nil && input.MultiRound(req.Session)
	if multi {
		if start, ok := resumed(req, base); ok {
			// The retry of a 2026-07-28 caller asked to sign in below.
			withURL := *se
			withURL.URL = start.URL
			if ans, _ := req.Params.InputResponses[InputID].(*mcp.ElicitResult); ans == nil || ans.Action != "accept" {
				return nil, &withURL
			}
			return wait(ctx, base, subject, start, se, &withURL)
		}
	}
	binding := ""
	if req != nil && req.Session != nil {
		binding = req.Session.ID()
	}
	start, berr := base.BeginSignIn(ctx, subject, binding)
	if berr != nil {
		return nil, err
	}
	withURL := *se
	withURL.URL = start.URL
	q := &mcp.ElicitParams{Mode: "url", URL: start.URL, ElicitationID: start.ID,
		Message: fmt.Sprintf("MCP server %q is reached with your own account: open this page to connect it, then the call goes on.", se.Server)}
	if multi {
		// No session to send a request on: the question goes in an
		// input-required result, its state the start page (the caller's
		// own link, which the export signs and binds to this caller, tool
		// and arguments).
		if caps := req.ClientCapabilities(); caps == nil || caps.Elicitation == nil || caps.Elicitation.URL == nil {
			return nil, &withURL
		}
		return nil, bridge.RelayedInput(mcp.InputRequestMap{InputID: q}, statePrefix+start.URL)
	}
	if !canElicitURL(req) {
		return nil, &withURL
	}
	res, eerr := req.Session.Elicit(ctx, q)
	if eerr != nil || res == nil || res.Action != "accept" {
		return nil, &withURL
	}
	h, werr := wait(ctx, base, subject, start, se, &withURL)
	if werr == nil {
		_ = req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: start.ID})
	}
	return h, werr
}

// InputID is the id of the sign-in question in an input-required result.
const InputID = bridge.ReservedInputPrefix + "signin"

// statePrefix opens the state of an input-required sign-in question.
const statePrefix = "aa-signin/1."

// resumed returns the sign-in a 2026-07-28 caller's retry answers (its
// state, verified by the export, names the start page), if it is one.
func resumed(req *mcp.CallToolRequest, base *oauth.Handler) (*oauth.SignInStart, bool) {
	link, ok := strings.CutPrefix(req.Params.RequestState, statePrefix)
	if !ok {
		return nil, false
	}
	start, err := base.ResumeSignIn(link)
	return start, err == nil
}

// wait waits for the sign-in of start and returns the caller's handler;
// se when it failed (the link is used), withURL when the call's time ran
// out (the link still works).
func wait(ctx context.Context, base *oauth.Handler, subject string, start *oauth.SignInStart, se, withURL *oauth.SignInError) (*oauth.Handler, error) {
	if werr := base.WaitSignIn(ctx, subject, start); errors.Is(werr, oauth.ErrSignInFailed) {
		return nil, se
	} else if werr != nil {
		return nil, withURL
	}
	return base.ForCaller(ctx, subject)
}

// canElicitURL reports whether the caller declared URL elicitation on a
// session that outlives this request (not the stateless endpoint's
// per-request session, whose client cannot be sent a request).
func canElicitURL(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	if req.Session.ID() == "" && req.Extra != nil && req.Extra.Header != nil {
		return false
	}
	caps := req.ClientCapabilities()
	return caps != nil && caps.Elicitation != nil && caps.Elicitation.URL != nil
}
