package gateway

import (
	"net/http"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
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
	g.signInOnce.Do(func() { g.signIn = &oauth0.SignIns{BaseURL: si.BaseURL, Pending: g.pendingStore()} })
	return g.signIn
}

// pendingStore is where sign-ins in progress are kept: the store's table
// when it has one (SQLite, PostgreSQL: every replica on the store
// completes a sign-in any of them began), else nil, this process's memory.
func (g *Gateway) pendingStore() oauth0.PendingStore {
	if ss, ok := g.opts.Store.(state.SignInStorer); ok && ss.SignIns() != nil {
		return &storePending{t: ss.SignIns(), keys: g.tokenKeys.Load}
	}
	return nil
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
