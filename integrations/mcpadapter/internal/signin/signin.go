// Package signin asks the caller of a tool call to sign in to an
// OAuth.PerCaller server it has no token for: a URL-mode elicitation
// (MCP 2025-11-25) of the sign-in's start page when the caller's client
// declared one, the call waiting for the sign-in and then going on;
// otherwise the model-facing sign-in error, carrying the caller's own
// link.
package signin

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	if !canElicitURL(req) {
		return nil, &withURL
	}
	res, eerr := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "url", URL: start.URL, ElicitationID: start.ID,
		Message: fmt.Sprintf("MCP server %q is reached with your own account: open this page to connect it, then the call goes on.", se.Server)})
	if eerr != nil || res == nil || res.Action != "accept" {
		return nil, &withURL
	}
	if werr := base.WaitSignIn(ctx, subject, start); errors.Is(werr, oauth.ErrSignInFailed) {
		return nil, se // the link is used now
	} else if werr != nil {
		return nil, &withURL // the call's time is up; the link still works
	}
	_ = req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: start.ID})
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
