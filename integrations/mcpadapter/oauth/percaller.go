package oauth

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/oauth2"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// ErrSignInRequired is the error (wrapped in a [*SignInError]) of a
// [Config.PerCaller] handler whose caller has no usable token for the
// server: the caller must sign in to the server first.
var ErrSignInRequired = errors.New("sign-in required")

// SignInError says which server a caller must sign in to. It never names
// a token, nor whose tokens the store holds.
type SignInError struct {
	// Server is the name of the server.
	Server string
	// Subject is the caller's subject; "" for a caller with no verified
	// identity.
	Subject string
	// Err, if set, is why the caller has no credential other than a
	// missing sign-in: a refused token exchange ([*ExchangeError]). Error
	// then says that.
	Err error
	// URL, if set, is the start of a sign-in begun for this very caller
	// ([Handler.BeginSignIn]): the error is shown to that caller only.
	URL string
}

// Error is model-facing: it says what to do.
func (e *SignInError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	if e.Subject == "" {
		return fmt.Sprintf("sign in first: MCP server %q is reached with each user's own account, and this call comes from no authenticated user", e.Server)
	}
	if e.URL != "" {
		return fmt.Sprintf("sign in to MCP server %q first: it is reached with each user's own account, and there is no sign-in of yours for it; ask the user to open %s to connect their account (the link is theirs alone, for a few minutes), then call again", e.Server, e.URL)
	}
	return fmt.Sprintf("sign in to MCP server %q first: it is reached with each user's own account, and there is no sign-in of yours for it; ask the user to connect their account to %q, then call again", e.Server, e.Server)
}

// Unwrap returns [ErrSignInRequired], and Err when set.
func (e *SignInError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrSignInRequired, e.Err}
	}
	return []error{ErrSignInRequired}
}

func (h *Handler) signIn() error {
	return &SignInError{Server: h.server, Subject: h.key.Subject}
}

// Issuer returns the issuer of the server's authorization server, as its
// metadata names it (protected resource metadata, then the authorization
// server's metadata, with the 2025-03-26 fallbacks and the Issuer pin
// applied). The first success is kept for the handler's lifetime.
func (h *Handler) Issuer(ctx context.Context) (string, error) {
	h.mu.Lock()
	iss := h.issuer
	h.mu.Unlock()
	if iss != "" {
		return iss, nil
	}
	_, asm, err := h.discover(ctx, h.resource, nil)
	if err != nil {
		return "", fmt.Errorf("discovering the authorization server of %q: %w", h.server, err)
	}
	if asm.Issuer == "" {
		return "", fmt.Errorf("the authorization server of %q names no issuer", h.server)
	}
	h.mu.Lock()
	if h.issuer == "" {
		h.issuer = asm.Issuer
	}
	iss = h.issuer
	h.mu.Unlock()
	return iss, nil
}

// ForCaller returns the handler of one caller, subject, for a
// [Config.PerCaller] handler: its token is the one stored under
// token.Key{Server, Subject: subject, Issuer, Resource} (the issuer from
// [Handler.Issuer]). It reads the store on every request, so a token
// deleted (a user disconnected) is no longer sent; it refreshes that token
// when it expires or is refused, and it never runs a sign-in: without a
// usable token its TokenSource and Authorize fail with a [*SignInError],
// and so does ForCaller when the store holds no token for the caller.
// An empty subject (a caller with no verified identity) is a
// [*SignInError] too: no caller is given the shared identity's token.
func (h *Handler) ForCaller(ctx context.Context, subject string) (*Handler, error) {
	if !h.cfg.PerCaller || h.perCaller {
		return nil, errors.New("OAuth: ForCaller needs a handler of a PerCaller configuration")
	}
	if subject == "" {
		return nil, h.signIn()
	}
	if h.cfg.TokenExchange != nil {
		return h.forCallerExchange(ctx, subject)
	}
	iss, err := h.Issuer(ctx)
	if err != nil {
		return nil, err
	}
	key := token.Key{Server: h.server, Subject: subject, Issuer: iss, Resource: h.resource}
	if err := key.Check(); err != nil {
		return nil, err
	}
	c := &Handler{cfg: h.cfg, server: h.server, resource: h.resource, key: key, store: h.store, hc: h.hc,
		policy: h.policy, dpop: h.dpop, authMu: make(chan struct{}, 1), perCaller: true, issuer: iss}
	if _, err := c.TokenSource(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Key returns the key the handler's tokens are stored under.
func (h *Handler) Key() token.Key { return h.key }

// callerSource is TokenSource for a caller: the stored token, read anew
// on every request, refreshed when it expires.
func (h *Handler) callerSource(ctx context.Context) (oauth2.TokenSource, error) {
	tok, err := h.store.Token(ctx, h.key)
	if errors.Is(err, token.ErrNotFound) {
		h.mu.Lock()
		h.ts = nil
		h.mu.Unlock()
		return nil, h.signIn()
	}
	if err != nil {
		return nil, fmt.Errorf("reading the stored token: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ts == nil || h.tsFor != tok.AccessToken {
		// Another replica (or a sign-in) may have stored a newer token.
		h.ts, h.tsFor = h.sourceFor(tok), tok.AccessToken
	}
	var ts oauth2.TokenSource = h.ts
	if h.dpop != nil {
		ts = notingSource{ts, h.dpop}
	}
	return ts, nil
}
