package gateway

import (
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
	oauth0 "github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// exchangesJWTs reports whether a server of cfg exchanges its callers'
// inbound JWTs (oauth.tokenExchange).
func exchangesJWTs(cfg *config.Config) bool {
	for _, p := range cfg.Gateway.Servers {
		if p != nil && p.OAuth != nil && p.OAuth.TokenExchange != nil {
			return true
		}
	}
	return false
}

// perCallerJWT keeps the verified inbound JWT on the caller's identity
// (opaque, redacted when printed) for oauth.tokenExchange to exchange: it
// goes to the upstream's authorization server only, never upstream.
func perCallerJWT(info *auth.TokenInfo, raw string) *auth.TokenInfo {
	return oauth0.WithSubjectToken(info, raw)
}

// loadTokenKeys loads the keyring of per-user upstream tokens when a
// server of cfg is perCaller, and refuses cfg without one: per-user
// tokens are never kept in the clear.
func (g *Gateway) loadTokenKeys(cfg *config.Config) error {
	for name, p := range cfg.Gateway.Servers {
		if p == nil || p.OAuth == nil || !p.OAuth.PerCaller {
			continue
		}
		keys, err := token.LoadKeyring(token.KeyringOptions{})
		if err != nil {
			return &ReloadError{Section: "agentadapter.servers." + name + ".oauth.perCaller", Err: fmt.Errorf("per-user upstream tokens are kept encrypted: %w", err)}
		}
		g.tokenKeys.Store(keys)
		return nil
	}
	return nil
}

// perCallerOAuth completes out, built from o, for oauth.perCaller: its
// per-user tokens live in the gateway's store's token table when it has
// one (SQLite, PostgreSQL: every replica on the store reads the tokens any
// of them wrote), else in the file of oauth.tokens, sealed with the
// gateway's keyring either way; oauth.tokenExchange configures the
// exchange.
func (g *Gateway) perCallerOAuth(out *oauth0.Config, o *config.OAuth) {
	if !o.PerCaller {
		return
	}
	out.PerCaller = true
	if ts, ok := g.opts.Store.(state.TokenStorer); ok && ts.Tokens() != nil {
		out.Tokens = ts.Tokens()
	} else if st, err := token.OpenFileStore(o.Tokens, token.StoreOptions{Keys: g.tokenKeys.Load(), PerUser: true}); err == nil {
		out.Tokens = st
	} // else (no keyring: a build refuses that) the plain store refuses per-user tokens
	if x := o.TokenExchange; x != nil {
		out.TokenExchange = &oauth0.TokenExchange{ClientID: x.ClientID, ClientSecret: x.ClientSecret, AuthMethod: x.AuthMethod,
			TokenURL: x.TokenURL, Resource: x.Resource, Audience: x.Audience, Scopes: x.Scopes,
			SubjectTokenType: x.SubjectTokenType, RequestedTokenType: x.RequestedTokenType, Skew: time.Duration(x.Skew)}
	}
}
