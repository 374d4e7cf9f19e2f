package gateway

import (
	"net/http"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	oauth0 "github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
)

// signIns returns the sign-in pages of oauth.perCaller servers (#27):
// agentadapter.signIn's, made once from the first configuration that has
// one (a new baseUrl takes a restart), or nil without one. A caller of a
// perCaller server with no token is sent to its start page (a URL
// elicitation, or the link in the sign-in error); the browser that
// confirms it is the only one the callback completes in, and the token
// lands in the slot of the subject that started it.
func (g *Gateway) signIns() *oauth0.SignIns {
	si := g.Config().Gateway.SignIn
	if si == nil || si.BaseURL == "" {
		return nil
	}
	g.signInOnce.Do(func() { g.signIn = &oauth0.SignIns{BaseURL: si.BaseURL} })
	return g.signIn
}

// signInBase is cfg's agentadapter.signIn.baseUrl, "" without one.
func signInBase(cfg *config.Config) string {
	if si := cfg.Gateway.SignIn; si != nil {
		return si.BaseURL
	}
	return ""
}

// SignIns returns the gateway's sign-in pages (agentadapter.signIn), nil
// without them: what the console lists a user's connections with.
func (g *Gateway) SignIns() *oauth0.SignIns { return g.signIns() }

// withSignIn gives a perCaller server's OAuth configuration the gateway's
// sign-in pages, when configured.
func (g *Gateway) withSignIn(out *oauth0.Config, o *config.OAuth) {
	if o.PerCaller && o.TokenExchange == nil { // an exchange needs no sign-in
		if si := g.signIns(); si != nil {
			out.SignIn = si
		}
	}
}

// signInRoutes mounts the sign-in pages at /oauth/.
func (g *Gateway) signInRoutes(mux *http.ServeMux) {
	if si := g.signIns(); si != nil {
		mux.Handle("/oauth/", si)
	}
}
