package oauth

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/outbound"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// Defaults of [SignIns].
const (
	// DefaultSignInTTL is how long a sign-in may take, from its start to
	// the authorization server's redirect back.
	DefaultSignInTTL = 10 * time.Minute
	// DefaultSignInsPerSubject bounds the sign-ins one subject has
	// pending; past it the oldest is forgotten.
	DefaultSignInsPerSubject = 5
)

// ErrSignInFailed wraps every refusal of [SignIns] to complete a sign-in:
// an unknown, used or expired state, another browser, another issuer, the
// authorization server's error, a failed code exchange.
var ErrSignInFailed = errors.New("sign-in not completed")

// SignIns runs the sign-ins of [Config.PerCaller] servers through a web
// server of the program's (the gateway's): a caller who has no token for
// a server is given the URL of a sign-in ([Handler.BeginSignIn]); the
// user opens it in a browser, confirms, is sent to the server's
// authorization server, and comes back to the callback (ServeHTTP), where
// the code is exchanged and the token stored under the subject the
// sign-in was started for.
//
// The binding: a sign-in's state is random (256 bits), single-use, short
// lived (TTL), kept server-side (Pending) with the subject, the session
// binding and the server it was started for, and with the PKCE verifier,
// which never leaves the server. The browser that confirms the start page
// is bound to the sign-in with a random cookie (HttpOnly, SameSite=Lax,
// Secure over https): the callback completes only in that browser, so a
// state leaked, guessed or replayed, or a code injected into another
// browser, completes nothing. When BrowserSubject is set (the program has
// a browser login, such as the console's), the start page and the
// callback further require the browser's user to be the sign-in's
// subject: without it, a user who forwards their own sign-in link to
// somebody else can get that person's account connected to theirs, which
// the start page guards against only by naming the user it connects for.
//
// SignIns is an http.Handler serving Path+"/start" and Path+"/callback";
// mount it at Path. Its zero value is not usable: BaseURL is required.
type SignIns struct {
	// BaseURL is the program's public base URL (https://gw.example); the
	// start page is at BaseURL+Path+"/start" and the callback, the
	// redirect URL a Config with no RedirectURL registers, at
	// BaseURL+Path+"/callback".
	BaseURL string
	// Path is where the handler is mounted; "" means "/oauth".
	Path string
	// Pending keeps sign-ins in progress; nil means in memory, in this
	// process. Replicas behind one load balancer share a PendingStore
	// (and a token store), or the callback must reach the replica that
	// started the sign-in.
	Pending PendingStore
	// TTL bounds a sign-in; 0 means DefaultSignInTTL.
	TTL time.Duration
	// MaxPerSubject bounds the sign-ins pending per subject (the oldest
	// is forgotten); 0 means DefaultSignInsPerSubject.
	MaxPerSubject int
	// BrowserSubject, if set, returns the subject the browser making r is
	// signed in as to the program ("" for none): the start page and the
	// callback then require it to be the sign-in's subject.
	BrowserSubject func(r *http.Request) string

	mu       sync.Mutex
	handlers map[string]*Handler // by server: the PerCaller handler signing in
	waiters  map[string][]chan error
	results  map[string]signInResult // by id: sign-ins ended here lately
	mem      *MemoryPending
}

// PendingSignIn is a sign-in in progress: everything the callback needs,
// and so a secret (the verifier, the client's secret). Stores keep it
// server-side only.
type PendingSignIn struct {
	// State is the OAuth state parameter, the sign-in's identifier.
	State string `json:"state"`
	// Subject, Binding and Server are who the sign-in is for: the caller's
	// subject, the caller's session binding, and the server's name.
	Subject string `json:"subject"`
	Binding string `json:"binding,omitempty"`
	Server  string `json:"server"`
	// Issuer and Resource key the token stored at the end, with Subject
	// and Server.
	Issuer   string `json:"issuer"`
	Resource string `json:"resource"`
	// IssRequired is set when the authorization server promises an iss
	// in its authorization response (RFC 9207).
	IssRequired bool `json:"iss_required,omitempty"`
	// AuthURL is the authorization URL the start page sends the browser
	// to.
	AuthURL string `json:"auth_url"`
	// Verifier is the PKCE (S256) code verifier.
	Verifier     string `json:"verifier"`
	TokenURL     string `json:"token_url"`
	RedirectURL  string `json:"redirect_url"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	// Browser is the SHA-256 of the cookie of the browser that confirmed
	// the start page, hex; "" until then.
	Browser string    `json:"browser,omitempty"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
}

// String says which sign-in, without its secrets.
func (p *PendingSignIn) String() string {
	return fmt.Sprintf("PendingSignIn{server=%s subject=%s expires=%s}", p.Server, p.Subject, p.Expires.Format(time.RFC3339))
}

// ErrNoSignIn is returned by a [PendingStore] without the sign-in asked
// for (never started, completed, forgotten or expired).
var ErrNoSignIn = errors.New("no such sign-in")

// A PendingStore keeps sign-ins in progress. Implementations are safe for
// concurrent use, return copies, treat a PendingSignIn as a secret, and
// forget one past its Expires.
type PendingStore interface {
	// PutSignIn adds p, forgetting the oldest of p.Subject's past max.
	PutSignIn(ctx context.Context, p *PendingSignIn, max int) error
	// SignIn returns the sign-in of state, or an error wrapping ErrNoSignIn.
	SignIn(ctx context.Context, state string) (*PendingSignIn, error)
	// ClaimSignIn records browser as the browser of the sign-in of state,
	// if none is recorded yet; it fails wrapping ErrNoSignIn otherwise.
	ClaimSignIn(ctx context.Context, state, browser string) (*PendingSignIn, error)
	// TakeSignIn removes and returns the sign-in of state: only one
	// caller ever gets it.
	TakeSignIn(ctx context.Context, state string) (*PendingSignIn, error)
}

// MemoryPending is a [PendingStore] in memory, bounded: at most 10,000
// sign-ins, the oldest forgotten first. The zero value is ready.
type MemoryPending struct {
	mu sync.Mutex
	m  map[string]*PendingSignIn
}

// maxPending bounds a MemoryPending.
const maxPending = 10000

func (s *MemoryPending) purge(now time.Time) {
	for k, p := range s.m {
		if now.After(p.Expires) {
			delete(s.m, k)
		}
	}
}

// PutSignIn implements [PendingStore].
func (s *MemoryPending) PutSignIn(_ context.Context, p *PendingSignIn, max int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]*PendingSignIn{}
	}
	s.purge(time.Now())
	var mine []*PendingSignIn
	for _, q := range s.m {
		if q.Subject == p.Subject {
			mine = append(mine, q)
		}
	}
	slices.SortFunc(mine, func(a, b *PendingSignIn) int { return a.Created.Compare(b.Created) })
	for len(mine) >= max && len(mine) > 0 {
		delete(s.m, mine[0].State)
		mine = mine[1:]
	}
	for len(s.m) >= maxPending {
		var oldest *PendingSignIn
		for _, q := range s.m {
			if oldest == nil || q.Created.Before(oldest.Created) {
				oldest = q
			}
		}
		delete(s.m, oldest.State)
	}
	c := *p
	s.m[p.State] = &c
	return nil
}

func (s *MemoryPending) get(state string) (*PendingSignIn, error) {
	p, ok := s.m[state]
	if !ok || time.Now().After(p.Expires) {
		return nil, ErrNoSignIn
	}
	return p, nil
}

// SignIn implements [PendingStore].
func (s *MemoryPending) SignIn(_ context.Context, state string) (*PendingSignIn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.get(state)
	if err != nil {
		return nil, err
	}
	c := *p
	return &c, nil
}

// ClaimSignIn implements [PendingStore].
func (s *MemoryPending) ClaimSignIn(_ context.Context, state, browser string) (*PendingSignIn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.get(state)
	if err != nil {
		return nil, err
	}
	if p.Browser != "" {
		return nil, fmt.Errorf("%w: opened in a browser already", ErrNoSignIn)
	}
	p.Browser = browser
	c := *p
	return &c, nil
}

// TakeSignIn implements [PendingStore].
func (s *MemoryPending) TakeSignIn(_ context.Context, state string) (*PendingSignIn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.get(state)
	if err != nil {
		return nil, err
	}
	delete(s.m, state)
	return p, nil
}

func (s *SignIns) pending() PendingStore {
	if s.Pending != nil {
		return s.Pending
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mem == nil {
		s.mem = new(MemoryPending)
	}
	return s.mem
}

func (s *SignIns) path() string { return strings.TrimRight(cmp.Or(s.Path, "/oauth"), "/") }

// RedirectURL is the callback's URL: BaseURL+Path+"/callback".
func (s *SignIns) RedirectURL() string {
	return strings.TrimRight(s.BaseURL, "/") + s.path() + "/callback"
}

func (s *SignIns) startURL(state string) string {
	return strings.TrimRight(s.BaseURL, "/") + s.path() + "/start?state=" + url.QueryEscape(state)
}

// register makes h the handler completing the sign-ins of its server.
func (s *SignIns) register(h *Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handlers == nil {
		s.handlers = map[string]*Handler{}
	}
	s.handlers[h.server] = h
}

func (s *SignIns) handler(server string) *Handler {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handlers[server]
}

// SignInStart is a sign-in begun: the URL to send its user to.
type SignInStart struct {
	// URL is the start page, on the program's BaseURL: it names the
	// server and the user, and sends the browser on to the
	// authorization server. It is the caller's own: never show it to
	// anybody else.
	URL string
	// ID identifies the sign-in to [Handler.WaitSignIn] (an elicitation
	// id); it is not the state.
	ID string

	state string
}

// signInResult is how a sign-in ended at this process's callback.
type signInResult struct {
	err error
	at  time.Time
}

// maxResults bounds the results kept for waiters not yet waiting.
const maxResults = 1000

// BeginSignIn starts a sign-in of subject to the server of a
// [Config.PerCaller] handler with [Config.SignIn] set, bound to the
// caller's session binding (any string naming the caller's session; ""
// for none). It discovers the authorization server, registers the client
// (once per handler) as NewHandler's would, and keeps the sign-in
// pending. A subject past SignIns.MaxPerSubject pending sign-ins loses its
// oldest.
func (h *Handler) BeginSignIn(ctx context.Context, subject, binding string) (*SignInStart, error) {
	s := h.cfg.SignIn
	if !h.cfg.PerCaller || s == nil || h.perCaller {
		return nil, errors.New("OAuth: BeginSignIn needs the handler of a PerCaller configuration with SignIn set")
	}
	if subject == "" {
		return nil, h.signIn()
	}
	if err := outbound.CheckEndpoint("sign-in base URL", s.BaseURL); err != nil && !loopbackHTTP(s.BaseURL) {
		return nil, fmt.Errorf("OAuth.SignIn.BaseURL: %w", err)
	}
	prm, asm, err := h.discover(ctx, h.resource, nil)
	if err != nil {
		return nil, fmt.Errorf("discovering the authorization server of %q: %w", h.server, err)
	}
	iss, err := h.Issuer(ctx)
	if err != nil {
		return nil, err
	}
	if asm.Issuer != iss {
		return nil, fmt.Errorf("%w: the authorization server of %q now names issuer %q, not %q", outbound.ErrOutbound, h.server, outbound.Truncate(asm.Issuer, 200), iss)
	}
	if !slices.Contains(asm.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("the authorization server of %q does not support PKCE S256", h.server)
	}
	redirect := cmp.Or(h.cfg.RedirectURL, s.RedirectURL())
	cfg, err := h.signInClient(ctx, asm, redirect)
	if err != nil {
		return nil, err
	}
	scopes := prm.ScopesSupported
	if h.cfg.Scopes != nil {
		scopes = h.cfg.Scopes(scopes)
	}
	if !h.cfg.NoOfflineAccess && slices.Contains(asm.ScopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") {
		scopes = append(slices.Clip(scopes), "offline_access")
	}
	cfg.Scopes = scopes
	verifier, state := oauth2.GenerateVerifier(), rand.Text()+rand.Text()
	now := time.Now()
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", h.resource)}
	if slices.Contains(scopes, "offline_access") {
		opts = append(opts, oauth2.SetAuthURLParam("prompt", "consent"))
	}
	p := &PendingSignIn{State: state, Subject: subject, Binding: binding, Server: h.server, Issuer: iss, Resource: h.resource,
		IssRequired: asm.AuthorizationResponseIssParameterSupported, AuthURL: cfg.AuthCodeURL(state, opts...),
		Verifier: verifier, TokenURL: asm.TokenEndpoint, RedirectURL: redirect, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
		Created: now, Expires: now.Add(cmp.Or(s.TTL, DefaultSignInTTL))}
	if err := s.pending().PutSignIn(ctx, p, cmp.Or(s.MaxPerSubject, DefaultSignInsPerSubject)); err != nil {
		return nil, fmt.Errorf("keeping the sign-in: %w", err)
	}
	s.register(h)
	return &SignInStart{URL: s.startURL(state), ID: signInID(state), state: state}, nil
}

// ResumeSignIn returns the sign-in whose start page is startURL (the
// [SignInStart.URL] of a sign-in this handler's SignIn began), for
// [Handler.WaitSignIn] in a later request than the one that began it: a
// caller of MCP 2026-07-28 asked to sign in by an input-required result
// calls again with its answer. Whether the sign-in is still pending is
// WaitSignIn's to find; a link that is not one of SignIn's start pages is
// an error wrapping [ErrNoSignIn].
func (h *Handler) ResumeSignIn(startURL string) (*SignInStart, error) {
	s := h.cfg.SignIn
	if s == nil {
		return nil, errors.New("OAuth: ResumeSignIn needs SignIn")
	}
	rest, ok := strings.CutPrefix(startURL, strings.TrimRight(s.BaseURL, "/")+s.path()+"/start?")
	q, err := url.ParseQuery(rest)
	if state := q.Get("state"); ok && err == nil && state != "" && len(q) == 1 && len(q["state"]) == 1 {
		return &SignInStart{URL: startURL, ID: signInID(state), state: state}, nil
	}
	return nil, fmt.Errorf("%w: not a start page of %s", ErrNoSignIn, outbound.Truncate(s.BaseURL, 200))
}

// signInID is the public identifier of the sign-in of state: a hash, so
// that an elicitation id gives away nothing of the state.
func signInID(state string) string {
	sum := sha256.Sum256([]byte("agentadapter sign-in id\x00" + state))
	return hex.EncodeToString(sum[:16])
}

func loopbackHTTP(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" {
		return false
	}
	switch u.Hostname() {
	case "127.0.0.1", "::1", "localhost":
		return true
	}
	return false
}

// signInClient returns the OAuth client of the handler's sign-ins: the
// client ID metadata document, the pre-registered client, or one
// registered dynamically, once per handler.
func (h *Handler) signInClient(ctx context.Context, asm *oauthex.AuthServerMeta, redirect string) (*oauth2.Config, error) {
	cfg := &oauth2.Config{RedirectURL: redirect, Endpoint: oauth2.Endpoint{AuthURL: asm.AuthorizationEndpoint, TokenURL: asm.TokenEndpoint}}
	switch {
	case h.cfg.ClientMetadataURL != "" && asm.ClientIDMetadataDocumentSupported:
		cfg.ClientID = h.cfg.ClientMetadataURL
	case h.cfg.ClientID != "":
		cfg.ClientID, cfg.ClientSecret = h.cfg.ClientID, h.cfg.ClientSecret
	case !h.cfg.NoDynamicRegistration && asm.RegistrationEndpoint != "":
		h.mu.Lock()
		reg := h.signInReg
		h.mu.Unlock()
		if reg == nil || reg.issuer != asm.Issuer || reg.redirect != redirect {
			r, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, h.registration(redirect), h.hc)
			if err != nil {
				return nil, fmt.Errorf("registering the client: %w", err)
			}
			reg = &signInReg{issuer: asm.Issuer, redirect: redirect, id: r.ClientID, secret: r.ClientSecret}
			h.mu.Lock()
			h.signInReg = reg
			h.mu.Unlock()
		}
		cfg.ClientID, cfg.ClientSecret = reg.id, reg.secret
	default:
		return nil, errors.New("no client registration method is supported by the authorization server")
	}
	return cfg, nil
}

// signInReg is a handler's dynamically registered sign-in client.
type signInReg struct{ issuer, redirect, id, secret string }

// WaitSignIn waits until the sign-in of start completes (its token is in
// the store: completed by this process or, with a shared store, another),
// fails at this process's callback (an error wrapping [ErrSignInFailed]),
// ctx ends, or the sign-in expires.
func (h *Handler) WaitSignIn(ctx context.Context, subject string, start *SignInStart) error {
	s := h.cfg.SignIn
	if s == nil {
		return errors.New("OAuth: WaitSignIn needs SignIn")
	}
	ch := make(chan error, 1)
	s.mu.Lock()
	if r, ok := s.results[start.ID]; ok {
		// It ended before anybody waited (the browser was quick).
		s.mu.Unlock()
		return r.err
	}
	if s.waiters == nil {
		s.waiters = map[string][]chan error{}
	}
	s.waiters[start.ID] = append(s.waiters[start.ID], ch)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		ws := slices.DeleteFunc(s.waiters[start.ID], func(c chan error) bool { return c == ch })
		if len(ws) == 0 {
			delete(s.waiters, start.ID)
		} else {
			s.waiters[start.ID] = ws
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(s.TTL, DefaultSignInTTL))
	defer cancel()
	tick := time.NewTicker(time.Second) // a sign-in ended on another replica
	defer tick.Stop()
	gone := 0
	for {
		select {
		case err := <-ch:
			return err
		case <-tick.C:
			if c, err := h.ForCaller(ctx, subject); err == nil && c != nil {
				return nil
			}
			// Neither pending nor stored for two ticks running: it failed
			// (or was evicted) elsewhere.
			if _, err := s.pending().SignIn(ctx, start.state); errors.Is(err, ErrNoSignIn) {
				if gone++; gone >= 2 {
					return fmt.Errorf("%w: the sign-in to %q ended without a token", ErrSignInFailed, h.server)
				}
			} else {
				gone = 0
			}
		case <-ctx.Done():
			return fmt.Errorf("waiting for the sign-in to %q: %w", h.server, ctx.Err())
		}
	}
}

func (s *SignIns) completed(id string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.results == nil {
		s.results = map[string]signInResult{}
	}
	for k, r := range s.results {
		if now.Sub(r.at) > cmp.Or(s.TTL, DefaultSignInTTL) || len(s.results) >= maxResults {
			delete(s.results, k)
		}
	}
	s.results[id] = signInResult{err: err, at: now}
	for _, ch := range s.waiters[id] {
		select {
		case ch <- err:
		default:
		}
	}
}

// browserCookie names the cookie binding a browser to its sign-ins.
const browserCookie = "agentadapter_signin"

// ServeHTTP serves the start page (GET shows it, POST confirms it and
// sends the browser to the authorization server) and the callback.
func (s *SignIns) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	switch p := strings.TrimPrefix(r.URL.Path, s.path()); {
	case p == "/start" && r.Method == http.MethodGet:
		s.startPage(w, r)
	case p == "/start" && r.Method == http.MethodPost:
		s.confirm(w, r)
	case p == "/callback" && r.Method == http.MethodGet:
		s.callback(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *SignIns) fail(w http.ResponseWriter, status int, why string) {
	writePage(w, status, page{Title: "Sign-in failed", Message: why})
}

func (s *SignIns) browserOK(r *http.Request, p *PendingSignIn) bool {
	if s.BrowserSubject == nil {
		return true
	}
	return s.BrowserSubject(r) == p.Subject
}

func (s *SignIns) startPage(w http.ResponseWriter, r *http.Request) {
	p, err := s.pending().SignIn(r.Context(), r.URL.Query().Get("state"))
	if err != nil || p.Browser != "" {
		s.fail(w, http.StatusNotFound, "This sign-in link is unknown, used or expired. Ask for the tool again to get a new one.")
		return
	}
	if !s.browserOK(r, p) {
		s.fail(w, http.StatusForbidden, "This sign-in link is for another user. Sign in to the gateway as that user, or ask for your own link.")
		return
	}
	writePage(w, http.StatusOK, page{Title: "Connect your account",
		Message: fmt.Sprintf("Connect your account at %q for the gateway user %q? You will sign in at %s, which lets the gateway's client %q act for you at %q. Continue only if you are %q and you asked for this.",
			p.Server, p.Subject, p.Issuer, outbound.Truncate(p.ClientID, 200), p.Server, p.Subject),
		Form: s.path() + "/start", State: p.State})
}

func (s *SignIns) confirm(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := r.ParseForm(); err != nil {
		s.fail(w, http.StatusBadRequest, "Bad request.")
		return
	}
	state := r.PostForm.Get("state")
	if p, err := s.pending().SignIn(r.Context(), state); err != nil || !s.browserOK(r, p) {
		s.fail(w, http.StatusNotFound, "This sign-in link is unknown, used, expired, or for another user.")
		return
	}
	secret := ""
	if c, err := r.Cookie(browserCookie); err == nil && len(c.Value) == 52 {
		secret = c.Value
	} else {
		secret = rand.Text() + rand.Text()
	}
	p, err := s.pending().ClaimSignIn(r.Context(), state, browserHash(secret))
	if err != nil {
		s.fail(w, http.StatusNotFound, "This sign-in link is unknown, used or expired. Ask for the tool again to get a new one.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: browserCookie, Value: secret, Path: s.path() + "/", HttpOnly: true,
		Secure: strings.HasPrefix(s.BaseURL, "https://"), SameSite: http.SameSiteLaxMode, MaxAge: int(cmp.Or(s.TTL, DefaultSignInTTL) / time.Second)})
	http.Redirect(w, r, p.AuthURL, http.StatusSeeOther)
}

func browserHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

func (s *SignIns) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, err := s.Complete(r.Context(), r, q)
	if err != nil {
		s.fail(w, http.StatusBadRequest, signInFailure(err))
		return
	}
	writePage(w, http.StatusOK, page{Title: "Connected",
		Message: fmt.Sprintf("Your account at %q is connected. You can close this window and return to your assistant.", p.Server)})
}

// signInFailure is what the page says of err: its message, which names no
// secret (the error codes the authorization server sent are truncated,
// and the page escapes them).
func signInFailure(err error) string { return outbound.Truncate(err.Error(), 500) }

// Complete finishes the sign-in a callback request r (with its query q)
// names, in the browser r comes from: the state must be pending, unused
// and unexpired, r must carry the cookie of the browser that confirmed
// the start page (and be of the sign-in's subject, with BrowserSubject),
// iss must be the issuer (RFC 9207), and the code is exchanged with the
// verifier. The token is stored under token.Key{Server, Subject, Issuer,
// Resource} of the sign-in. Errors wrap [ErrSignInFailed].
func (s *SignIns) Complete(ctx context.Context, r *http.Request, q url.Values) (*PendingSignIn, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrSignInFailed}, args...)...)
	}
	state := q.Get("state")
	p, err := s.pending().SignIn(ctx, state)
	if state == "" || err != nil {
		return nil, fail("this sign-in is unknown, used or expired")
	}
	c, cerr := r.Cookie(browserCookie)
	if p.Browser == "" || cerr != nil || subtle.ConstantTimeCompare([]byte(browserHash(c.Value)), []byte(p.Browser)) != 1 {
		return nil, fail("this sign-in was started in another browser")
	}
	if !s.browserOK(r, p) {
		return nil, fail("this sign-in is another user's")
	}
	if p, err = s.pending().TakeSignIn(ctx, state); err != nil {
		return nil, fail("this sign-in is unknown, used or expired")
	}
	id := signInID(p.State)
	if err := s.finish(ctx, p, q); err != nil {
		s.completed(id, err) // the call waiting for it ends now
		return nil, err
	}
	s.completed(id, nil)
	return p, nil
}

// finish completes the sign-in p, taken from the store, with the
// authorization response q.
func (s *SignIns) finish(ctx context.Context, p *PendingSignIn, q url.Values) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrSignInFailed}, args...)...)
	}
	if e := q.Get("error"); e != "" {
		return fail("the authorization server answered %s", outbound.Truncate(e, 100))
	}
	// RFC 9207: an iss is the issuer, compared as strings; one the server
	// promises must be there.
	if iss := q.Get("iss"); (iss != "" || p.IssRequired) && iss != p.Issuer {
		return fail("the authorization response names another issuer")
	}
	code := q.Get("code")
	if code == "" {
		return fail("the authorization response has no code")
	}
	h := s.handler(p.Server)
	if h == nil {
		return fail("MCP server %q has no sign-in here", p.Server)
	}
	if iss, err := h.Issuer(ctx); err != nil || iss != p.Issuer {
		return fail("the issuer of MCP server %q changed", p.Server)
	}
	cfg := &oauth2.Config{ClientID: p.ClientID, ClientSecret: p.ClientSecret, RedirectURL: p.RedirectURL,
		Endpoint: oauth2.Endpoint{TokenURL: p.TokenURL}}
	t, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, h.hc), code,
		oauth2.VerifierOption(p.Verifier), oauth2.SetAuthURLParam("resource", p.Resource))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSignInFailed, safeOAuthError("exchanging the authorization code", err))
	}
	key := token.Key{Server: p.Server, Subject: p.Subject, Issuer: p.Issuer, Resource: p.Resource}
	tok := tokenFromOAuth2(t, &token.Token{TokenURL: p.TokenURL, ClientID: p.ClientID, ClientSecret: p.ClientSecret})
	if err := h.store.PutToken(ctx, key, tok); err != nil {
		return fmt.Errorf("%w: storing the token: %w", ErrSignInFailed, err)
	}
	return nil
}

// page is what the sign-in pages show; html/template escapes every field
// (a server's name, a subject, an error's text).
type page struct {
	Title, Message string
	// Form and State, if set, make the start page's confirmation form.
	Form, State string
}

var pageTemplate = template.Must(template.New("signin").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{{.Title}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36em;margin:4em auto;padding:0 1em}</style></head>
<body><h1>{{.Title}}</h1><p>{{.Message}}</p>
{{if .Form}}<form method="post" action="{{.Form}}"><input type="hidden" name="state" value="{{.State}}"><button type="submit">Continue</button></form>{{end}}
</body></html>
`))

func writePage(w http.ResponseWriter, status int, p page) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	pageTemplate.Execute(w, p)
}
