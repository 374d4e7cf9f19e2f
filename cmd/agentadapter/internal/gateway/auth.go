package gateway

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
)

// authState is the inbound authentication of one configuration, built
// whole before a reload swaps it in: the verifiers read it per request
// through one atomic load, so a revoked token is refused from the next
// request on and no request sees half of a change.
type authState struct {
	// tokens are the MCP clients' static tokens (auth.tokens and
	// auth.tokensFile), by SHA-256: the lookup's timing says nothing about
	// how much of a guessed token was right.
	tokens map[[32]byte]config.Token
	jwt    auth.TokenVerifier // nil without auth.jwt
	// exchange says a server exchanges callers' JWTs (oauth.tokenExchange):
	// the verified JWT is kept on the call for it (see perCallerJWT).
	exchange bool
}

// buildAuth builds the MCP clients' authentication of cfg (with no auth
// section, an authState that requires nothing). It reads auth.tokensFile
// and the JWT key file, so a reload picks up their changes too.
func buildAuth(cfg *config.Config) (*authState, error) {
	st := &authState{}
	a := cfg.Gateway.Auth
	if a == nil {
		return st, nil
	}
	st.tokens = map[[32]byte]config.Token{}
	for _, t := range a.Tokens {
		st.tokens[sha256.Sum256([]byte(t.Token))] = t
	}
	if a.TokensFile != "" {
		more, err := config.ReadTokensFile(a.TokensFile)
		if err != nil {
			return nil, err
		}
		for _, t := range more {
			st.tokens[sha256.Sum256([]byte(t.Token))] = t
		}
	}
	if a.JWT != nil {
		v, err := jwtVerifier(a.JWT)
		if err != nil {
			return nil, err
		}
		st.jwt = v
		st.exchange = exchangesJWTs(cfg)
	}
	if len(st.tokens) == 0 && st.jwt == nil {
		return nil, errors.New("auth: no tokens configured")
	}
	return st, nil
}

// required reports whether MCP clients must present a token.
func (a *authState) required() bool { return a.tokens != nil || a.jwt != nil }

// verifyClient checks an MCP client's bearer token against the
// configuration in force.
// VerifyClient verifies an MCP caller's token as the gateway's inbound
// auth in force does (agentadapter.auth): the console signs users in
// with it.
func (g *Gateway) VerifyClient(ctx context.Context, token string, req *http.Request) (*auth.TokenInfo, error) {
	return g.verifyClient(ctx, token, req)
}

func (g *Gateway) verifyClient(ctx context.Context, token string, req *http.Request) (*auth.TokenInfo, error) {
	a := g.live.Load().auth
	if t, ok := a.tokens[sha256.Sum256([]byte(token))]; ok {
		return &auth.TokenInfo{UserID: t.Subject, Scopes: t.Scopes, Expiration: time.Now().Add(time.Hour)}, nil
	}
	if a.jwt != nil && strings.Count(token, ".") == 2 {
		info, err := a.jwt(ctx, token, req)
		if err == nil && a.exchange {
			info = perCallerJWT(info, token)
		}
		return info, err
	}
	return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
}

// mcpHTTPOptions are the export's HTTP options without inbound auth;
// mcpRouter adds it per request when the configuration in force has it.
// (The error is kept for options that can fail; none does today.)
func (g *Gateway) mcpHTTPOptions() (*export.HTTPOptions, error) {
	return &export.HTTPOptions{}, nil
}

// mcpRouter serves /mcp and /mcp/<virtual> with base, through one of two
// routers picked per request by the configuration in force: with a token
// check when it has auth, without when it has none. A session lives in
// the router that created it, so a session opened without a token is not
// found once auth is on (Reload closes those sessions too).
func (g *Gateway) mcpRouter(base *export.HTTPOptions) http.Handler {
	authed := *base
	authed.Auth = &export.AuthOptions{Verifier: g.verifyClient}
	open := &router{g: g, opts: base, sessions: map[string]*session{}, handlers: map[*endpoint]http.Handler{}}
	closed := &router{g: g, opts: &authed, sessions: map[string]*session{}, handlers: map[*endpoint]http.Handler{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := g.live.Load().auth
		if !a.required() {
			open.ServeHTTP(w, r)
			return
		}
		closed.ServeHTTP(w, r)
		if id := w.Header().Get("Mcp-Session-Id"); id != "" && r.Header.Get("Mcp-Session-Id") == "" {
			g.sessionCreds.opened(r.Context(), g, a, id, r)
		}
	})
}

// sessionCreds remembers the credential each MCP session was opened
// with, so that a reload revoking it ends the session, its open event
// stream included, and not only its next request.
type sessionCreds struct {
	mu sync.Mutex
	m  map[string]sessionCred // by session id
}

// sessionCred is a session's credential: a static token by its SHA-256,
// a JWT as presented (to verify it again under the new settings).
type sessionCred struct {
	subject string
	sum     [32]byte
	jwt     string
}

// maxSessionCreds bounds the credentials remembered; beyond, those of
// sessions no longer live are forgotten first.
const maxSessionCreds = 2 * export.DefaultMaxSessions

func (c *sessionCreds) opened(ctx context.Context, g *Gateway, a *authState, id string, r *http.Request) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return
	}
	tok = strings.TrimSpace(tok)
	cred := sessionCred{sum: sha256.Sum256([]byte(tok))}
	if t, ok := a.tokens[cred.sum]; ok {
		cred.subject = t.Subject
	} else if info, err := g.verifyClient(ctx, tok, r); err == nil {
		cred.subject, cred.jwt = info.UserID, tok
	} else {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]sessionCred{}
	}
	if len(c.m) >= maxSessionCreds {
		live := g.liveSessions()
		for sid := range c.m {
			if _, ok := live[sid]; !ok {
				delete(c.m, sid)
			}
		}
		if len(c.m) >= maxSessionCreds {
			return // every one live: the session cap holds them already
		}
	}
	c.m[id] = cred
}

// accepts reports whether a still admits the credential, for the same
// subject.
func (a *authState) accepts(ctx context.Context, c sessionCred) bool {
	if c.jwt == "" {
		t, ok := a.tokens[c.sum]
		return ok && t.Subject == c.subject
	}
	if a.jwt == nil {
		return false
	}
	info, err := a.jwt(ctx, c.jwt, nil)
	return err == nil && info.UserID == c.subject
}

// revoke closes the live sessions whose credential a no longer admits,
// and forgets the credentials of sessions that ended.
func (c *sessionCreds) revoke(ctx context.Context, g *Gateway, a *authState) {
	live := g.liveSessions()
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, cred := range c.m {
		ss, ok := live[id]
		switch {
		case !ok:
			delete(c.m, id)
		case !a.required() || !a.accepts(ctx, cred):
			delete(c.m, id)
			_ = ss.Close()
		}
	}
}

// liveSessions are the MCP sessions of every endpoint, retired ones
// included, by id.
func (g *Gateway) liveSessions() map[string]*mcp.ServerSession {
	out := map[string]*mcp.ServerSession{}
	add := func(ep *endpoint) {
		for ss := range ep.exp.MCPServer().Sessions() {
			if id := ss.ID(); id != "" {
				out[id] = ss
			}
		}
	}
	for _, ep := range g.eps() {
		add(ep)
	}
	g.retiredMu.Lock()
	for _, ep := range g.retired {
		add(ep)
	}
	g.retiredMu.Unlock()
	return out
}

// requireClientToken wraps h with the MCP clients' token check when the
// configuration in force has inbound auth, decided per request.
func (g *Gateway) requireClientToken(h http.Handler) http.Handler {
	checked := auth.RequireBearerToken(g.verifyClient, nil)(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.live.Load().auth.required() {
			checked.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}
