package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"

	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/outbound"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// The token types of RFC 8693 §3 that TokenExchange names.
const (
	TokenTypeAccessToken = "urn:ietf:params:oauth:token-type:access_token"
	TokenTypeJWT         = "urn:ietf:params:oauth:token-type:jwt"
)

const grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"

// DefaultExchangeSkew is how long before its expiry a cached exchanged
// token is exchanged anew when TokenExchange.Skew is 0.
const DefaultExchangeSkew = 30 * time.Second

// maxExchanged bounds the exchanged tokens a handler keeps in memory.
const maxExchanged = 4096

// TokenExchange configures OAuth 2.0 token exchange (RFC 8693) for a
// [Config.PerCaller] server whose authorization server trusts the issuer
// of the callers' own tokens: each tool call exchanges the caller's
// verified inbound token (the subject_token, put on the call by the
// inbound verifier with [WithSubjectToken]) at the authorization server's
// token endpoint for a token for the server, and sends that. The inbound
// token itself is never sent to the server.
//
// Exchanged tokens are kept in memory only (never in Config.Tokens), per
// caller subject, issuer and resource and per inbound token (its SHA-256):
// a caller's new inbound token is exchanged anew, and no exchange is ever
// used for another subject. One is kept until its expires_in less Skew
// (at most half its lifetime), and never past the inbound token's own
// expiry; an answer without expires_in is used for that call only. A 401
// from the server drops the caller's cached exchange. Revoking a user at
// the authorization server therefore stops that user on the first call
// after the cached exchange expires.
//
// The subject token is a credential: it is sent only to the token endpoint
// of an authorization server on the server's own origin, or of the pinned
// Config.Issuer (or any, with Config.AnyIssuer), as client secrets are.
//
// Tools are still listed with the shared identity's token: with
// Config.ClientCredentials, which PerCaller accepts alongside
// TokenExchange, or else as without PerCaller.
//
// The zero value exchanges an access token for an access token for the
// server's URL (the RFC 8707 resource), at the discovered token endpoint,
// as a public client.
type TokenExchange struct {
	// ClientID and ClientSecret authenticate the gateway to the token
	// endpoint (client_secret_basic, or client_secret_post when
	// AuthMethod says so). An empty ClientSecret sends ClientID in the
	// form (a public client); both empty send no client at all.
	ClientID     string
	ClientSecret string
	// AuthMethod is "client_secret_basic" (the default with a secret) or
	// "client_secret_post".
	AuthMethod string
	// TokenURL, if set, is the token endpoint; empty means the one the
	// server's metadata names (discovered as the other grants are). With
	// TokenURL set and Config.Issuer empty, tokens are keyed under
	// TokenURL as their issuer.
	TokenURL string
	// Resource is the RFC 8707 resource to ask for; empty means the
	// server's URL.
	Resource string
	// Audience, if set, is sent as the audience parameter.
	Audience string
	// Scopes, if set, are requested (the scope parameter).
	Scopes []string
	// SubjectTokenType is the type of the inbound token:
	// [TokenTypeAccessToken] (the default) or [TokenTypeJWT]; the short
	// forms "access_token" and "jwt" are accepted.
	SubjectTokenType string
	// RequestedTokenType is the type asked for; empty means
	// [TokenTypeAccessToken]. The answer's issued_token_type, when
	// present, must be it, and its token_type Bearer.
	RequestedTokenType string
	// Skew is subtracted from an exchanged token's lifetime when caching
	// it; 0 means DefaultExchangeSkew. It is capped at half the lifetime.
	Skew time.Duration
}

func (x *TokenExchange) validate() error {
	if _, err := tokenType(x.SubjectTokenType, TokenTypeAccessToken); err != nil {
		return fmt.Errorf("OAuth.TokenExchange.SubjectTokenType: %w", err)
	}
	if x.RequestedTokenType != "" && strings.TrimSpace(x.RequestedTokenType) == "" {
		return errors.New("OAuth.TokenExchange.RequestedTokenType is blank")
	}
	switch x.AuthMethod {
	case "", "client_secret_basic", "client_secret_post":
	default:
		return fmt.Errorf("OAuth.TokenExchange.AuthMethod %q is not client_secret_basic or client_secret_post", outbound.Truncate(x.AuthMethod, 64))
	}
	if x.ClientSecret != "" && x.ClientID == "" {
		return errors.New("OAuth.TokenExchange: a ClientSecret needs a ClientID")
	}
	if x.TokenURL != "" {
		if err := outbound.CheckEndpoint("token endpoint", x.TokenURL); err != nil {
			return fmt.Errorf("OAuth.TokenExchange.TokenURL: %w", err)
		}
	}
	if x.Resource != "" {
		if u, err := url.Parse(x.Resource); err != nil || !u.IsAbs() {
			return errors.New("OAuth.TokenExchange.Resource is not an absolute URL")
		}
	}
	if x.Skew < 0 {
		return errors.New("OAuth.TokenExchange.Skew is negative")
	}
	return nil
}

// tokenType expands the short forms of the subject token types.
func tokenType(s, def string) (string, error) {
	switch s {
	case "":
		return def, nil
	case "access_token", TokenTypeAccessToken:
		return TokenTypeAccessToken, nil
	case "jwt", TokenTypeJWT:
		return TokenTypeJWT, nil
	}
	return "", fmt.Errorf("%q is not an access_token or jwt token type", outbound.Truncate(s, 64))
}

// SubjectTokenExtra is the key of auth.TokenInfo.Extra (and so of the
// caller's identity's Extra) under which [WithSubjectToken] puts the
// inbound token.
const SubjectTokenExtra = "agentadapter.subject_token"

// A SubjectToken is a caller's verified inbound token, carried to
// [TokenExchange] through the call's identity. It is opaque: its String,
// GoString, LogValue and MarshalJSON redact it, so that an identity logged
// or recorded does not carry it; only this package reads it.
type SubjectToken struct {
	raw    string
	expiry time.Time
}

// String redacts the token.
func (*SubjectToken) String() string { return "[subject token]" }

// GoString redacts the token.
func (s *SubjectToken) GoString() string { return s.String() }

// LogValue redacts the token.
func (s *SubjectToken) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON redacts the token.
func (s *SubjectToken) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// WithSubjectToken records raw, the bearer token info was verified from,
// in info.Extra under [SubjectTokenExtra], for a [TokenExchange] server to
// exchange: a verifier (go-sdk's auth.TokenVerifier) calls it on the info
// it returns. info.Expiration, if set, bounds how long exchanges of raw are
// cached. It returns info.
func WithSubjectToken(info *auth.TokenInfo, raw string) *auth.TokenInfo {
	if info == nil || raw == "" {
		return info
	}
	if info.Extra == nil {
		info.Extra = map[string]any{}
	}
	info.Extra[SubjectTokenExtra] = &SubjectToken{raw: raw, expiry: info.Expiration}
	return info
}

// subjectToken returns the inbound token of the verified caller on ctx.
func subjectToken(ctx context.Context) *SubjectToken {
	id := caller.IdentityFrom(ctx)
	if id == nil || id.Anonymous {
		return nil
	}
	st, _ := id.Extra[SubjectTokenExtra].(*SubjectToken)
	if st == nil || st.raw == "" {
		return nil
	}
	return st
}

// ErrExchangeRefused is the error (wrapped in an [*ExchangeError]) of a
// token exchange the authorization server refused or answered wrongly.
var ErrExchangeRefused = errors.New("token exchange refused")

// ExchangeError is a token exchange ([TokenExchange]) that gave no token
// for the caller. It carries the authorization server's error code and a
// bounded description only, never a token. Wrapped in a [*SignInError],
// it is the model-facing error of the call.
type ExchangeError struct {
	// Server is the name of the server.
	Server string
	// Code is the authorization server's error code (invalid_grant...),
	// or what was wrong with its answer; at most 64 bytes.
	Code string
	// Description is the server's error_description, at most 200
	// printable ASCII bytes, with anything token-like left out.
	Description string
}

// Error is model-facing.
func (e *ExchangeError) Error() string {
	msg := fmt.Sprintf("MCP server %q refused this user: its authorization server would not exchange the user's credential for one of its own (%s", e.Server, e.Code)
	if e.Description != "" {
		msg += ": " + e.Description
	}
	return msg + "); the user may need to sign in again, or to be given access to it"
}

// Unwrap returns [ErrExchangeRefused].
func (e *ExchangeError) Unwrap() error { return ErrExchangeRefused }

func (h *Handler) refused(code, desc string) error {
	return &SignInError{Server: h.server, Subject: h.key.Subject, Err: &ExchangeError{Server: h.server, Code: bounded(code, 64), Description: bounded(desc, 200)}}
}

// bounded keeps the printable ASCII of s (as RFC 6749 §5.2 allows in an
// error and its description), replaces any run of 24 or more token-like
// characters (an echoed token, a secret) with "[…]", and cuts it to n bytes.
func bounded(s string, n int) string {
	if len(s) > 4*n {
		s = s[:4*n]
	}
	var b strings.Builder
	run := 0
	flush := func(w string) {
		if run >= 24 {
			b.WriteString("[…]")
		} else {
			b.WriteString(w)
		}
		run = 0
	}
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		tokenish := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/=", c) >= 0
		if tokenish {
			if run == 0 {
				start = i
			}
			run++
			continue
		}
		if run > 0 {
			flush(s[start:i])
		}
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteByte(c)
		}
	}
	if run > 0 {
		flush(s[start:])
	}
	return outbound.Truncate(strings.TrimSpace(b.String()), n)
}

// exchanged is a cache entry: one exchange of one inbound token for one
// caller. ready is closed once tok (or err) is set.
type exchanged struct {
	ready chan struct{}
	tok   *oauth2.Token
	until time.Time // cached until; zero: not cached
	err   error
}

type exchangeKey struct {
	key    token.Key
	digest [sha256.Size]byte
}

// exchangeCache holds a handler's exchanged tokens.
type exchangeCache struct {
	mu     sync.Mutex
	byKey  map[exchangeKey]*exchanged
	latest map[token.Key]*exchanged // the last exchange used by each caller
	count  int                      // exchanges made (for tests, via the AS)
}

// exchangeEndpoint returns the issuer (for the key) and the token
// endpoint of the exchange, discovering them as the other grants do.
func (h *Handler) exchangeEndpoint(ctx context.Context) (iss, tokenURL string, err error) {
	x := h.cfg.TokenExchange
	if x.TokenURL != "" {
		if h.cfg.Issuer != "" {
			return h.cfg.Issuer, x.TokenURL, nil
		}
		return x.TokenURL, x.TokenURL, nil
	}
	h.mu.Lock()
	iss, tokenURL = h.issuer, h.xTokenURL
	h.mu.Unlock()
	if iss != "" && tokenURL != "" {
		return iss, tokenURL, nil
	}
	_, asm, err := h.discover(ctx, h.resource, nil)
	if err != nil {
		return "", "", fmt.Errorf("discovering the authorization server of %q: %w", h.server, err)
	}
	if asm.Issuer == "" || asm.TokenEndpoint == "" {
		return "", "", fmt.Errorf("the authorization server of %q names no issuer or token endpoint", h.server)
	}
	h.mu.Lock()
	if h.issuer == "" {
		h.issuer = asm.Issuer
	}
	if h.xTokenURL == "" {
		h.xTokenURL = asm.TokenEndpoint
	}
	iss, tokenURL = h.issuer, h.xTokenURL
	h.mu.Unlock()
	return iss, tokenURL, nil
}

// forCallerExchange is ForCaller with TokenExchange: the caller's inbound
// token exchanged (or a cached exchange of it) before the call.
func (h *Handler) forCallerExchange(ctx context.Context, subject string) (*Handler, error) {
	st := subjectToken(ctx)
	if st == nil {
		return nil, &SignInError{Server: h.server, Subject: subject, Err: &ExchangeError{Server: h.server, Code: "no_subject_token",
			Description: "the call carries no verified inbound token to exchange"}}
	}
	iss, tokenURL, err := h.exchangeEndpoint(ctx)
	if err != nil {
		return nil, err
	}
	key := token.Key{Server: h.server, Subject: subject, Issuer: iss, Resource: h.resource}
	if err := key.Check(); err != nil {
		return nil, err
	}
	c := &Handler{cfg: h.cfg, server: h.server, resource: h.resource, key: key, store: h.store, hc: h.hc,
		policy: h.policy, authMu: make(chan struct{}, 1), perCaller: true, issuer: iss, xparent: h}
	if _, err := h.exchangeFor(ctx, c, st, tokenURL); err != nil {
		return nil, err
	}
	return c, nil
}

// exchangeFor returns c's caller's exchanged token for st: the cached
// one, or one exchange shared by the concurrent calls asking for it.
func (h *Handler) exchangeFor(ctx context.Context, c *Handler, st *SubjectToken, tokenURL string) (*oauth2.Token, error) {
	xk := exchangeKey{key: c.key, digest: sha256.Sum256([]byte(st.raw))}
	xc := &h.xcache
	for {
		xc.mu.Lock()
		if xc.byKey == nil {
			xc.byKey, xc.latest = map[exchangeKey]*exchanged{}, map[token.Key]*exchanged{}
		}
		e := xc.byKey[xk]
		if e == nil {
			e = &exchanged{ready: make(chan struct{})}
			xc.prune(time.Now())
			xc.byKey[xk] = e
			xc.count++
			xc.mu.Unlock()
			e.tok, e.until, e.err = c.exchange(ctx, st, tokenURL)
			xc.mu.Lock()
			if e.err != nil || e.until.IsZero() {
				if xc.byKey[xk] == e {
					delete(xc.byKey, xk)
				}
			}
			if e.err == nil {
				xc.latest[c.key] = e
			} else {
				delete(xc.latest, c.key) // refused: the session sends nothing older
			}
			xc.mu.Unlock()
			close(e.ready)
			return e.tok, e.err
		}
		xc.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err != nil {
			if (errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded)) && ctx.Err() == nil {
				continue // the call that made it gave up, not this one: exchange anew
			}
			return nil, e.err // the same exchange, refused
		}
		if time.Now().Before(e.until) {
			xc.mu.Lock()
			xc.latest[c.key] = e
			xc.mu.Unlock()
			return e.tok, nil
		}
		xc.mu.Lock()
		if xc.byKey[xk] == e {
			delete(xc.byKey, xk) // expired: exchange anew
		}
		xc.mu.Unlock()
	}
}

// prune drops expired entries, then any, while the cache is full. xc.mu
// is held.
func (xc *exchangeCache) prune(now time.Time) {
	if len(xc.byKey) < maxExchanged {
		return
	}
	for k, e := range xc.byKey {
		select {
		case <-e.ready:
			if !now.Before(e.until) {
				delete(xc.byKey, k)
			}
		default:
		}
	}
	for k := range xc.byKey {
		if len(xc.byKey) < maxExchanged {
			break
		}
		delete(xc.byKey, k)
	}
	for k, e := range xc.latest {
		if !now.Before(e.until) || len(xc.latest) >= maxExchanged {
			delete(xc.latest, k)
		}
	}
}

// exchangedSource is TokenSource of a caller's exchange handler: the
// caller's latest exchanged token while it lasts (ForCaller exchanges it
// before each call).
func (c *Handler) exchangedSource() (oauth2.TokenSource, error) {
	xc := &c.xparent.xcache
	xc.mu.Lock()
	e := xc.latest[c.key]
	xc.mu.Unlock()
	if e == nil || e.tok == nil || (!e.tok.Expiry.IsZero() && !time.Now().Before(e.tok.Expiry)) {
		return nil, c.refused("expired", "the exchanged token expired; call again")
	}
	return oauth2.StaticTokenSource(e.tok), nil
}

// forgetExchange drops the caller's cached exchanges (after the server
// refused one).
func (c *Handler) forgetExchange() {
	xc := &c.xparent.xcache
	xc.mu.Lock()
	defer xc.mu.Unlock()
	delete(xc.latest, c.key)
	for k := range xc.byKey {
		if k.key == c.key {
			delete(xc.byKey, k)
		}
	}
}

// Exchanges returns how many token exchanges h has made (for
// [TokenExchange] servers): a figure for tests and metrics.
func (h *Handler) Exchanges() int {
	h.xcache.mu.Lock()
	defer h.xcache.mu.Unlock()
	return h.xcache.count
}

// exchangeResponse is RFC 8693 §2.2.1's answer (and §2.2.2's error).
type exchangeResponse struct {
	AccessToken     string          `json:"access_token"`
	IssuedTokenType string          `json:"issued_token_type"`
	TokenType       string          `json:"token_type"`
	ExpiresIn       json.RawMessage `json:"expires_in"`
	Scope           string          `json:"scope"`
	Error           string          `json:"error"`
	Description     string          `json:"error_description"`
}

// exchange makes one RFC 8693 request for c's caller.
func (c *Handler) exchange(ctx context.Context, st *SubjectToken, tokenURL string) (*oauth2.Token, time.Time, error) {
	x := c.cfg.TokenExchange
	subType, _ := tokenType(x.SubjectTokenType, TokenTypeAccessToken)
	wantType := x.RequestedTokenType
	if wantType == "" {
		wantType = TokenTypeAccessToken
	}
	form := url.Values{"grant_type": {grantTokenExchange}, "subject_token": {st.raw}, "subject_token_type": {subType},
		"requested_token_type": {wantType}, "resource": {firstNonEmpty(x.Resource, c.resource)}}
	if x.Audience != "" {
		form.Set("audience", x.Audience)
	}
	if len(x.Scopes) > 0 {
		form.Set("scope", strings.Join(x.Scopes, " "))
	}
	basic := x.ClientSecret != "" && x.AuthMethod != "client_secret_post"
	if x.ClientID != "" && !basic {
		form.Set("client_id", x.ClientID)
		if x.ClientSecret != "" {
			form.Set("client_secret", x.ClientSecret)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("token exchange with %q: bad token endpoint", c.server)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		req.SetBasicAuth(url.QueryEscape(x.ClientID), url.QueryEscape(x.ClientSecret))
	}
	sent := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, time.Time{}, fmt.Errorf("token exchange with %q: %w", c.server, ctx.Err())
		}
		// The URL (no secret in it) and a transport error only.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, time.Time{}, fmt.Errorf("token exchange with %q: %w", c.server, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16+1))
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("token exchange with %q: reading the answer: %w", c.server, ctx.Err())
	}
	if len(body) > 1<<16 {
		return nil, time.Time{}, c.refused("invalid_response", "the answer is larger than 64 KiB")
	}
	var r exchangeResponse
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	jsonErr := json.Unmarshal(body, &r)
	if resp.StatusCode != http.StatusOK {
		if jsonErr != nil || r.Error == "" {
			return nil, time.Time{}, c.refused("http_"+strconv.Itoa(resp.StatusCode), "the answer is not an OAuth error")
		}
		return nil, time.Time{}, c.refused(scrub(r.Error, st, x), scrub(r.Description, st, x))
	}
	if jsonErr != nil || (mt != "" && mt != "application/json") {
		return nil, time.Time{}, c.refused("invalid_response", "the answer is not a JSON token response")
	}
	if r.Error != "" {
		return nil, time.Time{}, c.refused(scrub(r.Error, st, x), scrub(r.Description, st, x))
	}
	switch {
	case r.AccessToken == "":
		return nil, time.Time{}, c.refused("invalid_response", "the answer has no access_token")
	case r.AccessToken == st.raw:
		// The inbound token handed back: it is not sent upstream.
		return nil, time.Time{}, c.refused("invalid_response", "the answer is the inbound token itself")
	case r.IssuedTokenType != "" && r.IssuedTokenType != wantType:
		return nil, time.Time{}, c.refused("invalid_response", "the issued_token_type is "+r.IssuedTokenType+", not "+wantType)
	case !strings.EqualFold(r.TokenType, "bearer"):
		return nil, time.Time{}, c.refused("invalid_response", "the token_type is "+r.TokenType+", not Bearer")
	}
	tok := &oauth2.Token{AccessToken: r.AccessToken, TokenType: "Bearer"}
	var until time.Time
	if secs, ok := expiresIn(r.ExpiresIn); ok {
		life := time.Duration(secs) * time.Second
		tok.Expiry = sent.Add(life)
		skew := x.Skew
		if skew == 0 {
			skew = DefaultExchangeSkew
		}
		skew = min(skew, life/2)
		until = sent.Add(life - skew)
		if !st.expiry.IsZero() && st.expiry.Before(until) {
			until = st.expiry
		}
		if !until.After(time.Now()) {
			until = time.Time{}
		}
	} else if r.ExpiresIn != nil && string(r.ExpiresIn) != "null" {
		return nil, time.Time{}, c.refused("invalid_response", "the expires_in is not a positive number of seconds")
	}
	return tok, until, nil
}

// expiresIn reads expires_in, a number (or, from some servers, a string)
// of seconds; false for none or a bad one.
func expiresIn(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		n = json.Number(s)
	}
	v, err := n.Int64()
	if err != nil || v <= 0 || v > 366*24*3600 {
		return 0, false
	}
	return v, true
}

// scrub removes the subject token and the client secret from text the
// authorization server sent (bounded does the rest).
func scrub(s string, st *SubjectToken, x *TokenExchange) string {
	s = strings.ReplaceAll(s, st.raw, "[…]")
	if x.ClientSecret != "" {
		s = strings.ReplaceAll(s, x.ClientSecret, "[…]")
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
