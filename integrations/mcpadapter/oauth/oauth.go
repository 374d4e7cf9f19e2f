package oauth

import (
	"cmp"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/outbound"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// DefaultRedirectURL is where the authorization server sends the user back
// when OAuth.RedirectURL is empty: a loopback address that [Loopback]
// listens on.
const DefaultRedirectURL = "http://127.0.0.1:8976/callback"

// Config configures how the manager obtains bearer tokens for a server
// reached over streamable HTTP (Server.URL). It builds on go-sdk's auth and
// oauthex packages: protected-resource and authorization-server metadata
// discovery (with the 2025-03-26 fallbacks), authorization code with PKCE,
// client ID metadata documents, pre-registered clients, dynamic client
// registration, scope selection from WWW-Authenticate or scopes_supported,
// step-up on 403 insufficient_scope, RFC 8707 resource indicators and
// token refresh. ClientCredentials switches to the client-credentials grant
// for machine-to-machine servers, Enterprise to enterprise-managed
// authorization, WorkloadIdentity to the workload's own JWT.
//
// Tokens are kept in Tokens under the server's name and URL, and are only
// ever sent to that server. Access and refresh tokens are never logged,
// never recorded in the ledger, and never appear in an error.
//
// A user signs in while Connect waits: give the server a ConnectTimeout
// long enough for a person (minutes) when Authorize involves one.
//
// The zero value signs a user in with the authorization code grant,
// registering the client dynamically, through a loopback redirect on
// DefaultRedirectURL, and keeps tokens in memory.
type Config struct {
	// Authorize sends the user to the authorization server and returns the
	// parameters of the redirect back. Nil means Loopback(nil): print the URL
	// and wait for the redirect on RedirectURL.
	Authorize AuthorizationHandler
	// RedirectURL is the redirect URI registered for the client; empty
	// means DefaultRedirectURL.
	RedirectURL string

	// The client is identified by the first of these the authorization
	// server supports: a client ID metadata document at ClientMetadataURL
	// (an HTTPS URL), the pre-registered ClientID (and ClientSecret for a
	// confidential client), or dynamic client registration (unless
	// NoDynamicRegistration) under ClientName.
	ClientMetadataURL     string
	ClientID              string
	ClientSecret          string
	ClientName            string
	NoDynamicRegistration bool

	// Scopes, if set, chooses the scopes to request from those discovered
	// (the WWW-Authenticate challenge, else scopes_supported); nil requests
	// the discovered ones.
	Scopes func(discovered []string) []string
	// NoOfflineAccess stops the client from asking for a refresh token
	// (the offline_access scope, when the server supports it, and the
	// refresh_token grant at registration).
	NoOfflineAccess bool

	// ClientCredentials, if set, obtains tokens with the client-credentials
	// grant instead: no user, no redirect.
	ClientCredentials *ClientCredentials
	// Enterprise, if set, obtains tokens by enterprise-managed
	// authorization (cross-app access) instead.
	Enterprise *Enterprise
	// WorkloadIdentity, if set, obtains tokens with the workload's own
	// JWT (workload identity federation) instead.
	WorkloadIdentity *WorkloadIdentity

	// DPoP, if set, binds the tokens of any of the grants above to a key
	// (RFC 9449); nil means bearer tokens.
	DPoP *DPoP

	// Issuer, if set, pins the authorization server: the server's
	// protected resource metadata must name this issuer (and its metadata
	// and RFC 9207 authorization response must carry it), or the flow stops
	// before anything is sent to the server it names. Unset, a public
	// client signs in wherever the resource's metadata says, as the MCP
	// specification has it, but client credentials (ClientSecret,
	// ClientCredentials, Enterprise) go only to an authorization server on
	// the resource's own origin: set Issuer to send them to another.
	Issuer string
	// AnyIssuer, if set (and Issuer is not), sends client credentials to
	// whichever authorization server the resource's metadata names, as
	// go-sdk does: the resource then decides where the secret goes. An
	// escape hatch for a resource as trusted as the secret, and for test
	// suites whose authorization server's address is not known in advance.
	AnyIssuer bool

	// PerCaller, if set, reaches the server with each caller's own token:
	// a tool call (and a resource read, prompt get or completion an export
	// relays) uses the token stored under (the caller's subject, the
	// authorization server's issuer, the server's URL), the issuer learnt
	// from the server's metadata (protected resource metadata, then the
	// authorization server's) and kept. A caller without such a token, or
	// with no verified identity, is refused with a model-facing error
	// saying to sign in first: never sent another user's token nor the
	// shared one. Listing the server's tools, resources and prompts, and
	// resource subscriptions, use the shared identity's token, obtained as
	// without PerCaller. PerCaller is for the authorization code grant: it
	// cannot be combined with ClientCredentials, Enterprise or
	// WorkloadIdentity. See [Handler.ForCaller].
	PerCaller bool
	// TokenExchange, if set (with PerCaller), obtains each caller's token
	// by exchanging the caller's verified inbound token (RFC 8693) instead
	// of a stored sign-in; the shared identity (listing) is then
	// ClientCredentials', if set. See [TokenExchange].
	TokenExchange *TokenExchange
	// SignIn, if set with PerCaller, lets a caller without a token sign
	// in through the program's web server: see [SignIns] and
	// [Handler.BeginSignIn]. Its callback is the redirect URL unless
	// RedirectURL is set.
	SignIn *SignIns

	// Tokens keeps tokens across connections and processes; nil means a
	// token.MemoryStore of the server's own. The handler's tokens are the
	// shared, service identity's: stored under token.Key{Server, Resource}
	// with Subject and Issuer empty, as before per-user tokens, so that
	// tokens stored by earlier versions are still found.
	Tokens token.Store
	// HTTPClient makes the discovery, registration and token requests; nil
	// means the server's HTTPClient, then http.DefaultClient. Its
	// CheckRedirect is kept, after the manager's own redirect rules (no
	// downgrade to plain HTTP, no token or registration request redirected
	// to another origin).
	HTTPClient *http.Client
}

// Credential says what calls reach the server with, for approval policies
// and the ledger (adapter.Source.Credential): "" for a nil c (no OAuth),
// "exchanged" with TokenExchange, "caller" with PerCaller (each caller's
// own token, from its sign-in), else "shared" (the server's one identity).
func (c *Config) Credential() string {
	switch {
	case c == nil:
		return ""
	case c.TokenExchange != nil:
		return "exchanged"
	case c.PerCaller:
		return "caller"
	}
	return "shared"
}

// ClientCredentials configure the client-credentials grant (RFC 6749
// §4.4). The client authenticates with ClientSecret (client_secret_basic,
// or client_secret_post when the server supports only that), or, when
// PrivateKey is set, with a signed JWT assertion (private_key_jwt, RFC
// 7523): ES256 for an ECDSA P-256 key, RS256 for an RSA key.
type ClientCredentials struct {
	ClientID     string
	ClientSecret string
	PrivateKey   crypto.Signer
	// KeyID, if set, is the kid of the assertion's header.
	KeyID string
	// Scopes to request; nil means the discovered ones.
	Scopes []string
}

// AuthorizationRequest is what an [AuthorizationHandler] is asked to do.
type AuthorizationRequest struct {
	// Server is the name of the server asking for authorization.
	Server string
	// URL is where to send the user.
	URL string
	// RedirectURL is where the authorization server will send the user
	// back, with the code and state as query parameters.
	RedirectURL string
}

// An AuthorizationHandler sends a user to req.URL (opening a browser,
// printing the URL, handing it to a web page) and returns the code, state
// and issuer of the redirect back to req.RedirectURL. It must honour ctx.
type AuthorizationHandler func(ctx context.Context, req *AuthorizationRequest) (*auth.AuthorizationResult, error)

// Handler implements go-sdk's auth.OAuthHandler for one server: it
// obtains, refreshes and stores the server's tokens as its [Config] says.
type Handler struct {
	cfg      *Config
	server   string
	resource string
	key      token.Key
	store    token.Store
	hc       *http.Client
	code     *auth.AuthorizationCodeHandler // nil with client credentials
	policy   issuerPolicy
	dpop     *dpopSigner // nil without OAuth.DPoP
	// prereg is the pre-registered client go-sdk's code handler holds:
	// its Issuer is set, under authMu, to the issuer the policy accepted,
	// so that go-sdk's own discovery cannot name another before the
	// secret is sent.
	prereg *oauthex.ClientCredentials
	// expectAuthURL is the authorization endpoint of the accepted issuer,
	// guarded by authMu: the user is sent nowhere else.
	expectAuthURL string

	// authMu serialises Authorize (one sign-in at a time; a second waits
	// for it, or for its ctx): a one-slot semaphore, which a ctx can leave.
	authMu chan struct{}

	mu sync.Mutex
	ts oauth2.TokenSource
	// refreshed is the access token obtained by the last refresh after a
	// 401: if the server refuses it too, the grant is started over rather
	// than refreshed in a loop.
	refreshed string
	// refusedAssertion is the SHA-256 of the workload assertion the
	// authorization server last refused, and refusedWhy its answer.
	refusedAssertion string
	refusedWhy       error

	// perCaller is set on a handler of [Handler.ForCaller]: its key names
	// a caller, it reads the store on every request and never signs in.
	perCaller bool
	tsFor     string // the stored access token ts started from (perCaller)
	// issuer is the discovered issuer of a PerCaller configuration,
	// guarded by mu, "" until discovered.
	issuer string
	// xparent is set on a caller's handler of a TokenExchange
	// configuration: its tokens are xparent's exchanges (exchange.go).
	xparent   *Handler
	xTokenURL string // the discovered token endpoint of the exchange, guarded by mu
	xcache    exchangeCache
	// signInReg is the client registered for sign-ins (SignIn), guarded
	// by mu.
	signInReg *signInReg
}

var _ auth.OAuthHandler = (*Handler)(nil)

// NewHandler returns the handler of cfg for the MCP server named server
// at resource (its URL), to give go-sdk's streamable client transport as
// its OAuthHandler. hc makes the requests when cfg.HTTPClient is nil; nil
// means http.DefaultClient. It fails when cfg is not valid.
func NewHandler(server, resource string, cfg *Config, hc *http.Client) (*Handler, error) {
	h := &Handler{cfg: cfg, server: server, resource: resource, key: token.Key{Server: server, Resource: resource}, store: cfg.Tokens}
	if h.store == nil {
		h.store = new(token.MemoryStore)
	}
	h.hc = oauthClient(firstClient(cfg.HTTPClient, hc))
	if cfg.DPoP != nil {
		d, err := newDPoPSigner(cfg.DPoP)
		if err != nil {
			return nil, err
		}
		h.dpop = d
		h.hc = tokenClient(h.hc, d)
	}
	h.authMu = make(chan struct{}, 1)
	h.policy = issuerPolicy{resource: resource, pin: cfg.Issuer,
		credentials: !cfg.AnyIssuer && (cfg.ClientSecret != "" || cfg.ClientCredentials != nil || cfg.Enterprise != nil || cfg.WorkloadIdentity != nil ||
			cfg.TokenExchange != nil)} // the subject token is a credential
	if cfg.Issuer != "" && cfg.AnyIssuer {
		return nil, errors.New("OAuth: set at most one of Issuer and AnyIssuer")
	}
	if cfg.Issuer != "" {
		if err := outbound.CheckEndpoint("issuer", cfg.Issuer); err != nil {
			return nil, fmt.Errorf("OAuth.Issuer: %w", err)
		}
	}
	if n := countSet(cfg.ClientCredentials != nil, cfg.Enterprise != nil, cfg.WorkloadIdentity != nil); n > 1 {
		return nil, errors.New("OAuth: set at most one of ClientCredentials, Enterprise and WorkloadIdentity")
	} else if n > 0 && cfg.PerCaller && !(cfg.TokenExchange != nil && cfg.ClientCredentials != nil) {
		return nil, errors.New("OAuth: PerCaller is for the authorization code grant (or TokenExchange, with ClientCredentials for the shared identity), not ClientCredentials, Enterprise or WorkloadIdentity")
	}
	if x := cfg.TokenExchange; x != nil {
		if !cfg.PerCaller {
			return nil, errors.New("OAuth: TokenExchange needs PerCaller")
		}
		if cfg.DPoP != nil {
			return nil, errors.New("OAuth: TokenExchange does not obtain DPoP-bound tokens; unset DPoP")
		}
		if err := x.validate(); err != nil {
			return nil, err
		}
	}
	if cfg.WorkloadIdentity != nil {
		if err := cfg.WorkloadIdentity.validate(); err != nil {
			return nil, err
		}
		return h, nil
	}
	if cfg.Enterprise != nil {
		if err := cfg.Enterprise.validate(); err != nil {
			return nil, err
		}
		return h, nil
	}
	if cc := cfg.ClientCredentials; cc != nil {
		if cc.ClientID == "" || (cc.ClientSecret == "") == (cc.PrivateKey == nil) {
			return nil, errors.New("OAuth.ClientCredentials needs a ClientID and exactly one of ClientSecret and PrivateKey")
		}
		return h, nil
	}
	redirect := cmp.Or(cfg.RedirectURL, DefaultRedirectURL)
	authorize := cfg.Authorize
	if authorize == nil {
		authorize = Loopback(nil)
	}
	ac := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, a *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			// h.authMu is held: Authorize called go-sdk's.
			if err := sameEndpoint(a.URL, h.expectAuthURL); err != nil {
				return nil, err
			}
			return authorize(ctx, &AuthorizationRequest{Server: server, URL: a.URL, RedirectURL: redirect})
		},
		ScopeFilter:         cfg.Scopes,
		RequestRefreshToken: !cfg.NoOfflineAccess,
		Client:              h.hc,
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			return h.persist(ctx, c, t)
		},
	}
	if cfg.ClientMetadataURL != "" {
		ac.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: cfg.ClientMetadataURL}
	}
	if cfg.ClientID != "" {
		ac.PreregisteredClient = &oauthex.ClientCredentials{ClientID: cfg.ClientID, Issuer: cfg.Issuer}
		h.prereg = ac.PreregisteredClient
		if cfg.ClientSecret != "" {
			ac.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: cfg.ClientSecret}
		}
	}
	if !cfg.NoDynamicRegistration {
		ac.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: h.registration(redirect)}
	}
	code, err := auth.NewAuthorizationCodeHandler(ac)
	if err != nil {
		return nil, fmt.Errorf("OAuth: %w", err)
	}
	h.code = code
	if cfg.PerCaller && cfg.SignIn != nil {
		cfg.SignIn.register(h) // the callback of any replica completes with it
	}
	return h, nil
}

func (h *Handler) registration(redirect string) *oauthex.ClientRegistrationMetadata {
	grants := []string{"authorization_code"}
	if !h.cfg.NoOfflineAccess {
		grants = append(grants, "refresh_token")
	}
	return &oauthex.ClientRegistrationMetadata{
		RedirectURIs:  []string{redirect},
		GrantTypes:    grants,
		ResponseTypes: []string{"code"},
		ClientName:    cmp.Or(h.cfg.ClientName, "agentadapter"),
	}
}

func countSet(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func firstClient(cs ...*http.Client) *http.Client {
	for _, c := range cs {
		if c != nil {
			return c
		}
	}
	return http.DefaultClient
}

// TokenSource implements auth.OAuthHandler: the current token, or one from
// the store, or none (the server then answers 401 and Authorize runs).
func (h *Handler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	if h.xparent != nil {
		return h.exchangedSource()
	}
	if h.perCaller {
		return h.callerSource(ctx)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ts == nil {
		tok, err := h.store.Token(ctx, h.key)
		if errors.Is(err, token.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the stored token: %w", err)
		}
		h.ts = h.sourceFor(tok)
	}
	if h.dpop != nil {
		// The MCP server's transport presents a DPoP-bound token with
		// the DPoP scheme: it learns which tokens are from here.
		return notingSource{h.ts, h.dpop}, nil
	}
	return h.ts, nil
}

// sourceFor returns a source that starts from a stored token and refreshes
// it when it expires, if it can.
func (h *Handler) sourceFor(tok *token.Token) oauth2.TokenSource {
	ot := tokenOAuth2(tok)
	if tok.RefreshToken == "" || tok.TokenURL == "" || outbound.CheckEndpoint("token endpoint", tok.TokenURL) != nil {
		// A stored token URL in clear (an edited token file) is not sent
		// the refresh token and secret: the grant starts over instead.
		return oauth2.StaticTokenSource(ot)
	}
	return &persistingSource{h: h, base: h.refreshConfig(tok).TokenSource(h.background(), ot), meta: *tok, last: tok.AccessToken}
}

func (h *Handler) refreshConfig(tok *token.Token) *oauth2.Config {
	return &oauth2.Config{ClientID: tok.ClientID, ClientSecret: tok.ClientSecret, Endpoint: oauth2.Endpoint{TokenURL: tok.TokenURL}}
}

// background is the context refreshes run under: not a request's, which
// ends long before the token does.
func (h *Handler) background() context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, h.hc)
}

// persist wraps the token source go-sdk made after an authorization so
// that every new token reaches the store.
func (h *Handler) persist(_ context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
	meta := token.Token{TokenURL: c.Endpoint.TokenURL, ClientID: c.ClientID, ClientSecret: c.ClientSecret}
	s := &persistingSource{h: h, base: c.TokenSource(h.background(), t), meta: meta}
	if _, err := s.Token(); err != nil {
		return nil, err
	}
	return s, nil
}

// persistingSource stores each new token of base.
type persistingSource struct {
	h    *Handler
	base oauth2.TokenSource
	meta token.Token // the client fields of stored tokens

	mu   sync.Mutex
	last string
}

func (s *persistingSource) Token() (*oauth2.Token, error) {
	t, err := s.base.Token()
	if err != nil {
		return nil, safeOAuthError("refreshing the token", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.AccessToken != s.last {
		s.last = t.AccessToken
		tok := tokenFromOAuth2(t, &s.meta)
		if err := s.h.store.PutToken(context.Background(), s.h.key, tok); err != nil {
			return nil, fmt.Errorf("storing the token: %w", err)
		}
	}
	return t, nil
}

func tokenOAuth2(t *token.Token) *oauth2.Token {
	return &oauth2.Token{AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken, Expiry: t.Expiry}
}

func tokenFromOAuth2(t *oauth2.Token, meta *token.Token) *token.Token {
	tok := &token.Token{AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken, Expiry: t.Expiry,
		TokenURL: meta.TokenURL, ClientID: meta.ClientID, ClientSecret: meta.ClientSecret}
	if s, ok := t.Extra("scope").(string); ok {
		tok.Scopes = strings.Fields(s)
	}
	if tok.RefreshToken == "" {
		// A refresh that returns no new refresh token keeps the old one
		// (RFC 6749 §6); x/oauth2 carries it over, a first grant has none.
		tok.RefreshToken = meta.RefreshToken
	}
	return tok
}

// safeOAuthError keeps an OAuth failure's error code and drops the
// response body, which a misbehaving server may fill with anything.
func safeOAuthError(what string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		code := re.ErrorCode
		if code == "" && re.Response != nil {
			code = re.Response.Status
		}
		return fmt.Errorf("%s: the authorization server answered %s", what, outbound.Truncate(code, 200))
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Authorize implements auth.OAuthHandler: after a 401 it first refreshes a
// refresh token the server has not refused yet, then runs the grant again.
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	select {
	case h.authMu <- struct{}{}:
	case <-ctx.Done():
		drain(resp)
		return fmt.Errorf("authorizing with %q: %w", h.server, ctx.Err())
	}
	defer func() { <-h.authMu }()
	if h.xparent != nil {
		// The server refused an exchanged token: the next call exchanges
		// anew, and this one fails.
		drain(resp)
		h.forgetExchange()
		return h.refused("upstream_refused", fmt.Sprintf("the MCP server answered %d to the exchanged token", resp.StatusCode))
	}
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if resp.StatusCode == http.StatusUnauthorized {
		if ok := h.refresh(ctx); ok {
			drain(resp)
			return nil
		}
	}
	if h.perCaller {
		// A caller's sign-in is not run here, in whatever request needed
		// it: the caller is told to sign in (callerSource).
		drain(resp)
		return h.signIn()
	}
	if resp.StatusCode == http.StatusForbidden && challengeParam(challenges, "error") != "insufficient_scope" {
		// Only insufficient_scope calls for (step-up) authorization; the
		// retried request then fails with the server's answer.
		drain(resp)
		return nil
	}
	var err error
	switch {
	case h.cfg.WorkloadIdentity != nil:
		drain(resp)
		err = h.workload(ctx, req.URL.String(), challenges)
	case h.cfg.Enterprise != nil:
		drain(resp)
		err = h.enterprise(ctx, req.URL.String(), challenges)
	case h.cfg.ClientCredentials != nil:
		drain(resp)
		err = h.clientCredentials(ctx, req.URL.String(), challenges)
	case h.legacy(ctx, req.URL.String(), challenges):
		drain(resp)
		err = h.legacyAuthorize(ctx, req.URL.String(), challenges)
	default:
		// Discover and judge the authorization server before go-sdk does
		// (and sends the user or the secret there): go-sdk then has to
		// find the same one.
		var asm *oauthex.AuthServerMeta
		if _, asm, err = h.discover(ctx, req.URL.String(), challenges); err != nil {
			drain(resp)
			break
		}
		h.expectAuthURL = asm.AuthorizationEndpoint
		if h.prereg != nil {
			h.prereg.Issuer = asm.Issuer
		}
		if err = h.code.Authorize(ctx, req, resp); err != nil {
			var re *oauth2.RetrieveError
			if errors.As(err, &re) {
				err = safeOAuthError("token request", err)
			}
			break
		}
		if ts, _ := h.code.TokenSource(ctx); ts != nil {
			h.mu.Lock()
			h.ts = ts
			h.mu.Unlock()
		}
	}
	if err != nil {
		return fmt.Errorf("authorizing with %q: %w", h.server, err)
	}
	return nil
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
}

// refresh forces a refresh of the stored grant after a 401 (the access
// token may be revoked before it expires). It reports whether a new token
// is in place.
func (h *Handler) refresh(ctx context.Context) bool {
	tok, err := h.store.Token(ctx, h.key)
	if err != nil || tok.RefreshToken == "" || tok.TokenURL == "" || outbound.CheckEndpoint("token endpoint", tok.TokenURL) != nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.refreshed != "" && h.refreshed == tok.AccessToken {
		// The token of the last refresh is refused too: start over.
		h.ts, h.refreshed = nil, ""
		h.store.DeleteToken(ctx, h.key)
		return false
	}
	cfg := h.refreshConfig(tok)
	nt, err := cfg.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, h.hc), &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil {
		// The refresh token is revoked or expired: forget the grant.
		h.ts = nil
		h.store.DeleteToken(ctx, h.key)
		return false
	}
	stored := tokenFromOAuth2(nt, tok)
	if err := h.store.PutToken(ctx, h.key, stored); err != nil {
		return false
	}
	h.ts, h.refreshed = h.sourceFor(stored), stored.AccessToken
	return true
}

func challengeParam(cs []oauthex.Challenge, name string) string {
	for _, c := range cs {
		if (c.Scheme == "bearer" || c.Scheme == "dpop") && c.Params[name] != "" {
			return c.Params[name]
		}
	}
	return ""
}

// discover finds the protected resource metadata and the authorization
// server metadata of the server at mcpURL, falling back as the 2025-03-26
// specification did: without resource metadata, the server's origin is the
// authorization server; without authorization server metadata, its
// endpoints are /authorize, /token and /register.
func (h *Handler) discover(ctx context.Context, mcpURL string, cs []oauthex.Challenge) (*oauthex.ProtectedResourceMetadata, *oauthex.AuthServerMeta, error) {
	prm := h.resourceMetadata(ctx, mcpURL, cs)
	legacy := prm == nil
	if legacy {
		prm = &oauthex.ProtectedResourceMetadata{Resource: mcpURL, AuthorizationServers: []string{origin(mcpURL)}}
	}
	issuer := prm.AuthorizationServers[0]
	if err := h.policy.check(issuer); err != nil {
		return nil, nil, err
	}
	asm, err := auth.GetAuthServerMetadata(ctx, issuer, h.hc)
	if err != nil && legacy {
		asm, err = h.legacyServerMetadata(ctx, issuer)
	}
	if err != nil {
		return nil, nil, err
	}
	if asm == nil {
		asm = &oauthex.AuthServerMeta{Issuer: issuer, AuthorizationEndpoint: issuer + "/authorize",
			TokenEndpoint: issuer + "/token", RegistrationEndpoint: issuer + "/register"}
	}
	// The current-specification path (go-sdk's) refuses these too; the
	// 2025-03-26 fallbacks go through the same rule.
	for _, e := range []struct{ what, url string }{{"authorization endpoint", asm.AuthorizationEndpoint},
		{"token endpoint", asm.TokenEndpoint}, {"registration endpoint", asm.RegistrationEndpoint}} {
		if e.url == "" && e.what == "registration endpoint" {
			continue
		}
		if err := outbound.CheckEndpoint(e.what, e.url); err != nil {
			return nil, nil, err
		}
	}
	if h.policy.pin != "" && !issuersEqual(asm.Issuer, h.policy.pin) {
		return nil, nil, fmt.Errorf("%w: the authorization server's metadata names issuer %q, not the configured %q", outbound.ErrOutbound, outbound.Truncate(asm.Issuer, 200), h.policy.pin)
	}
	return prm, asm, nil
}

// resourceMetadata looks for protected resource metadata where the
// specification says: the challenge's resource_metadata, then the
// well-known URL at the endpoint's path, then at the root. Nil means none.
func (h *Handler) resourceMetadata(ctx context.Context, mcpURL string, cs []oauthex.Challenge) *oauthex.ProtectedResourceMetadata {
	u, err := url.Parse(mcpURL)
	if err != nil {
		return nil
	}
	type candidate struct{ url, resource string }
	var cands []candidate
	if m := challengeParam(cs, "resource_metadata"); m != "" {
		cands = append(cands, candidate{m, mcpURL})
	}
	root := *u
	root.Path, root.RawQuery = "", ""
	pathURL := root
	pathURL.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/")
	rootURL := root
	rootURL.Path = "/.well-known/oauth-protected-resource"
	cands = append(cands, candidate{pathURL.String(), mcpURL}, candidate{rootURL.String(), root.String()})
	for _, c := range cands {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, c.url, c.resource, h.hc)
		if err == nil && prm != nil && len(prm.AuthorizationServers) > 0 {
			return prm
		}
	}
	return nil
}

func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + u.Host
}

// legacyServerMetadata reads authorization server metadata at the root of
// a 2025-03-26 server, whose issuer may name a path under the server's
// origin (the server's origin is the authority there). An issuer on another
// origin is refused, as RFC 8414 requires.
func (h *Handler) legacyServerMetadata(ctx context.Context, base string) (*oauthex.AuthServerMeta, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/.well-known/oauth-authorization-server", nil)
	if err != nil {
		return nil, err
	}
	resp, err := h.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("authorization server metadata: %s", resp.Status)
	}
	var asm oauthex.AuthServerMeta
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&asm); err != nil {
		return nil, fmt.Errorf("authorization server metadata: %w", err)
	}
	if origin(asm.Issuer) != origin(base) {
		return nil, fmt.Errorf("authorization server metadata names issuer %q, not on %q", asm.Issuer, base)
	}
	for _, e := range []string{asm.AuthorizationEndpoint, asm.TokenEndpoint} {
		if !strings.HasPrefix(e, "https://") && !strings.HasPrefix(e, "http://") {
			return nil, fmt.Errorf("authorization server metadata has an invalid endpoint %q", outbound.Truncate(e, 200))
		}
	}
	return &asm, nil
}

// legacy reports whether mcpURL is a 2025-03-26 server whose metadata
// go-sdk refuses: no protected resource metadata anywhere, and root
// authorization server metadata whose issuer is not the server's origin.
func (h *Handler) legacy(ctx context.Context, mcpURL string, cs []oauthex.Challenge) bool {
	if h.resourceMetadata(ctx, mcpURL, cs) != nil {
		return false
	}
	_, err := auth.GetAuthServerMetadata(ctx, origin(mcpURL), h.hc)
	return err != nil
}

// legacyAuthorize runs the authorization code grant against a 2025-03-26
// server whose metadata go-sdk refuses (its issuer names a path under the
// server's origin). It uses the same building blocks as go-sdk: oauthex for
// registration, x/oauth2 for PKCE and the exchange.
func (h *Handler) legacyAuthorize(ctx context.Context, mcpURL string, cs []oauthex.Challenge) error {
	_, asm, err := h.discover(ctx, mcpURL, cs)
	if err != nil {
		return err
	}
	redirect := cmp.Or(h.cfg.RedirectURL, DefaultRedirectURL)
	cfg := &oauth2.Config{ClientID: h.cfg.ClientID, ClientSecret: h.cfg.ClientSecret, RedirectURL: redirect,
		Endpoint: oauth2.Endpoint{AuthURL: asm.AuthorizationEndpoint, TokenURL: asm.TokenEndpoint}}
	switch {
	case h.cfg.ClientMetadataURL != "" && asm.ClientIDMetadataDocumentSupported:
		cfg.ClientID, cfg.ClientSecret = h.cfg.ClientMetadataURL, ""
	case h.cfg.ClientID != "":
	case !h.cfg.NoDynamicRegistration && asm.RegistrationEndpoint != "":
		reg, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, h.registration(redirect), h.hc)
		if err != nil {
			return fmt.Errorf("registering the client: %w", err)
		}
		cfg.ClientID, cfg.ClientSecret = reg.ClientID, reg.ClientSecret
	default:
		return errors.New("no client registration method is supported by the authorization server")
	}
	scopes := scopesFrom(cs, nil)
	if h.cfg.Scopes != nil {
		scopes = h.cfg.Scopes(scopes)
	}
	cfg.Scopes = scopes
	verifier, state := oauth2.GenerateVerifier(), rand.Text()
	authorize := h.cfg.Authorize
	if authorize == nil {
		authorize = Loopback(nil)
	}
	res, err := authorize(ctx, &AuthorizationRequest{Server: h.server, RedirectURL: redirect,
		URL: cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", mcpURL))})
	if err != nil {
		return err
	}
	if res.State != state {
		return errors.New("the authorization response's state does not match")
	}
	// RFC 9207: an iss in the response must be the issuer the user was
	// sent to, compared as strings (§2.4: no normalisation, so not even a
	// trailing "/" differs); one the server promises must be there.
	if (res.Iss != "" || asm.AuthorizationResponseIssParameterSupported) && res.Iss != asm.Issuer {
		return fmt.Errorf("the authorization response's issuer %q is not %q", outbound.Truncate(res.Iss, 200), asm.Issuer)
	}
	t, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, h.hc), res.Code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", mcpURL))
	if err != nil {
		return safeOAuthError("exchanging the authorization code", err)
	}
	ts, err := h.persist(ctx, cfg, t)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.ts = ts
	h.mu.Unlock()
	return nil
}

func scopesFrom(cs []oauthex.Challenge, supported []string) []string {
	if s := challengeParam(cs, "scope"); s != "" {
		return strings.Fields(s)
	}
	return supported
}

// clientCredentials obtains a token with the client-credentials grant.
// go-sdk's extauth.ClientCredentialsHandler covers client_secret only,
// sends no RFC 8707 resource indicator, and binds its token source to the
// request that triggered it (so the grant cannot be renewed once that
// request is over); this uses the same discovery and x/oauth2 request, with
// private_key_jwt, the resource, and a fresh context per grant.
func (h *Handler) clientCredentials(ctx context.Context, mcpURL string, cs []oauthex.Challenge) error {
	prm, asm, err := h.discover(ctx, mcpURL, cs)
	if err != nil {
		return err
	}
	cc := h.cfg.ClientCredentials
	scopes := cc.Scopes
	if scopes == nil {
		scopes = scopesFrom(cs, prm.ScopesSupported)
	}
	src := &ccSource{cc: cc, asm: asm, scopes: scopes, resource: prm.Resource, hc: h.hc}
	if _, err := src.Token(); err != nil {
		return err
	}
	meta := token.Token{TokenURL: asm.TokenEndpoint}
	ts := &persistingSource{h: h, base: oauth2.ReuseTokenSource(nil, src), meta: meta}
	if _, err := ts.Token(); err != nil {
		return err
	}
	h.mu.Lock()
	h.ts = ts
	h.mu.Unlock()
	return nil
}

// ccSource fetches a new client-credentials token on every call, with a
// fresh assertion for private_key_jwt.
type ccSource struct {
	cc       *ClientCredentials
	asm      *oauthex.AuthServerMeta
	scopes   []string
	resource string
	hc       *http.Client
}

func (s *ccSource) Token() (*oauth2.Token, error) {
	c := &clientcredentials.Config{ClientID: s.cc.ClientID, ClientSecret: s.cc.ClientSecret, TokenURL: s.asm.TokenEndpoint,
		Scopes: s.scopes, EndpointParams: url.Values{}}
	if s.resource != "" {
		c.EndpointParams.Set("resource", s.resource)
	}
	methods := s.asm.TokenEndpointAuthMethodsSupported
	switch {
	case s.cc.PrivateKey != nil:
		assertion, err := s.assertion()
		if err != nil {
			return nil, err
		}
		c.AuthStyle = oauth2.AuthStyleInParams
		c.EndpointParams.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		c.EndpointParams.Set("client_assertion", assertion)
	case slices.Contains(methods, "client_secret_post") && !slices.Contains(methods, "client_secret_basic"):
		c.AuthStyle = oauth2.AuthStyleInParams
	default:
		c.AuthStyle = oauth2.AuthStyleInHeader
	}
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), oauth2.HTTPClient, s.hc), time.Minute)
	defer cancel()
	t, err := c.Token(ctx)
	if err != nil {
		return nil, safeOAuthError("client credentials grant", err)
	}
	return t, nil
}

// assertion signs the private_key_jwt client assertion (RFC 7523 §2.2):
// issued by and about the client, for the authorization server.
func (s *ccSource) assertion() (string, error) {
	var method jwt.SigningMethod
	switch k := s.cc.PrivateKey.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve.Params().BitSize {
		case 256:
			method = jwt.SigningMethodES256
		case 384:
			method = jwt.SigningMethodES384
		case 521:
			method = jwt.SigningMethodES512
		}
	case *rsa.PrivateKey:
		method = jwt.SigningMethodRS256
	}
	if method == nil {
		return "", fmt.Errorf("private_key_jwt: unsupported key type %T", s.cc.PrivateKey)
	}
	now := time.Now()
	claims := jwt.RegisteredClaims{
		Issuer:    s.cc.ClientID,
		Subject:   s.cc.ClientID,
		Audience:  jwt.ClaimStrings{cmp.Or(s.asm.Issuer, s.asm.TokenEndpoint)},
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(5 * time.Minute)),
		ID:        rand.Text(),
	}
	t := jwt.NewWithClaims(method, claims)
	if s.cc.KeyID != "" {
		t.Header["kid"] = s.cc.KeyID
	}
	return t.SignedString(s.cc.PrivateKey)
}
