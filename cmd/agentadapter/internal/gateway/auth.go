package gateway

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
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
		more, err := readTokens(a.TokensFile)
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
func (g *Gateway) verifyClient(ctx context.Context, token string, req *http.Request) (*auth.TokenInfo, error) {
	a := g.live.Load().auth
	if t, ok := a.tokens[sha256.Sum256([]byte(token))]; ok {
		return &auth.TokenInfo{UserID: t.Subject, Scopes: t.Scopes, Expiration: time.Now().Add(time.Hour)}, nil
	}
	if a.jwt != nil && strings.Count(token, ".") == 2 {
		return a.jwt(ctx, token, req)
	}
	return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
}

// mcpHTTPOptions are the export's HTTP options without inbound auth;
// mcpRouter adds it per request when the configuration in force has it.
// (The error is kept for options that can fail; none does today.)
func (g *Gateway) mcpHTTPOptions() (*mcpadapter.HTTPOptions, error) {
	return &mcpadapter.HTTPOptions{}, nil
}

// mcpRouter serves /mcp and /mcp/<virtual> with base, through one of two
// routers picked per request by the configuration in force: with a token
// check when it has auth, without when it has none. A session lives in
// the router that created it, so a session opened without a token is not
// found once auth is on (Reload closes those sessions too).
func (g *Gateway) mcpRouter(base *mcpadapter.HTTPOptions) http.Handler {
	authed := *base
	authed.Auth = &mcpadapter.AuthOptions{Verifier: g.verifyClient}
	open := &router{g: g, opts: base, sessions: map[string]*session{}, handlers: map[*endpoint]http.Handler{}}
	closed := &router{g: g, opts: &authed, sessions: map[string]*session{}, handlers: map[*endpoint]http.Handler{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.live.Load().auth.required() {
			closed.ServeHTTP(w, r)
			return
		}
		open.ServeHTTP(w, r)
	})
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

// readTokens reads "subject token [scope...]" lines.
func readTokens(p string) ([]config.Token, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("auth: %v", err)
	}
	defer f.Close()
	var out []config.Token
	sc := bufio.NewScanner(f)
	for i := 1; sc.Scan(); i++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) < 2 {
			return nil, fmt.Errorf("auth: %s:%d: want \"subject token [scope...]\"", p, i)
		}
		out = append(out, config.Token{Subject: fields[0], Token: fields[1], Scopes: fields[2:]})
	}
	return out, sc.Err()
}
