package console

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
)

// cookieName names the session cookie. The __Host- prefix (over TLS)
// would pin it to one origin, but it also forbids a Path and plain HTTP on
// localhost; SameSite=Strict and HttpOnly are set either way.
const cookieName = "agentadapter_console"

// operatorKey carries the operator of a request.
type operatorKey struct{}

// Operator is who is using the console.
type Operator struct {
	// Name is recorded as the approver of every decision.
	Name string
	// csrf is the token forms must carry; empty for bearer-header requests,
	// whose credentials a browser never sends on its own.
	csrf string
	// session is the id of the cookie session, if any.
	session string
	// user is set for a user of Options.Users, who sees only the
	// Connections page.
	user bool
}

// Credential is the SHA-256 of the token an operator signed in with: what
// a login session keeps of it, and what Options.Revalidate is asked about.
type Credential [32]byte

// OperatorFromContext returns the operator of a console request, or nil.
func OperatorFromContext(ctx context.Context) *Operator {
	o, _ := ctx.Value(operatorKey{}).(*Operator)
	return o
}

// openSession stores a new session and returns its cookie value, or ""
// when the store refused it.
func (c *Console) openSession(ctx context.Context, operator string, user bool, cred Credential, expires time.Time) string {
	id := randomToken()
	s := Session{Operator: operator, CSRF: randomToken(), Expires: expires, User: user}
	if c.opts.Auth != nil {
		s.Credential = hex.EncodeToString(cred[:])
	}
	if err := c.sessions.Put(ctx, sessionKey(id), s); err != nil {
		c.logger.Error("console: storing a login session failed", "operator", operator, "err", err)
		return ""
	}
	return id
}

// session returns the operator of a session cookie, or nil.
func (c *Console) session(ctx context.Context, id string) *Operator {
	s, ok, err := c.sessions.Get(ctx, sessionKey(id))
	if err != nil {
		c.logger.Error("console: reading a login session failed", "err", err)
		return nil
	}
	if !ok || s.Operator == "" || c.now().After(s.Expires) {
		return nil
	}
	if !c.current(ctx, s) {
		// Ended in the store too: a replica still running the old
		// credentials refuses the cookie as well.
		if err := c.sessions.Delete(ctx, sessionKey(id)); err != nil {
			c.logger.Error("console: ending a login session failed", "operator", s.Operator, "err", err)
		}
		return nil
	}
	return &Operator{Name: s.Operator, csrf: s.CSRF, session: id, user: s.User}
}

// current reports whether a session's credential is still one this
// console accepts. With Auth, the session must carry the hash of the
// token it was opened with and Revalidate must still accept it, so an
// operator removed or given a new token is signed out on the next
// request, on every console sharing the store. Without Auth, only
// anonymous sessions hold: a session an operator opened while the
// console had tokens does not outlive them as that operator.
func (c *Console) current(ctx context.Context, s Session) bool {
	if c.opts.Auth == nil {
		return s.Operator == AnonymousOperator && s.Credential == ""
	}
	b, err := hex.DecodeString(s.Credential)
	if err != nil || len(b) != len(Credential{}) {
		return false
	}
	if s.User {
		return c.opts.Users != nil // until its token's expiry, the session's
	}
	if err := c.opts.Revalidate(ctx, s.Operator, Credential(b)); err != nil {
		c.logger.Info("console: a login session ended: its credential is no longer an operator's", "operator", s.Operator, "err", err)
		return false
	}
	return true
}

func randomToken() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// errUnauthorized is what a verifier failure becomes; the verifier's own
// message never reaches the page.
var errUnauthorized = errors.New("the token was not accepted")

// verify checks a bearer token the way the gateway does, throttled per
// client address: too many wrong tokens from one address fail with a
// *throttledError before the verifier is asked.
func (c *Console) verify(r *http.Request, token string) (name string, user bool, expires time.Time, err error) {
	addr := c.clientAddr(r)
	if wait := c.throttle.wait(addr, c.now()); wait > 0 {
		return "", false, time.Time{}, &throttledError{wait}
	}
	a := c.opts.Auth
	info, err := a.Verifier(r.Context(), token, r)
	if (err != nil || info == nil) && c.opts.Users != nil {
		a, user = c.opts.Users, true
		info, err = a.Verifier(r.Context(), token, r)
	}
	if err != nil || info == nil {
		c.throttle.failed(addr, c.now())
		return "", false, time.Time{}, errUnauthorized
	}
	c.throttle.succeeded(addr)
	name, expires, err = checkToken(a, info, c.now())
	return name, user, expires, err
}

// checkToken checks what a's verifier said of a token at now: expiry,
// scopes and a user id.
func checkToken(a *export.AuthOptions, info *auth.TokenInfo, now time.Time) (string, time.Time, error) {
	if info.Expiration.IsZero() {
		if !a.AllowMissingExpiration {
			return "", time.Time{}, errors.New("the token has no expiry")
		}
	} else if now.After(info.Expiration.Add(a.ClockSkew)) {
		return "", time.Time{}, errors.New("the token has expired")
	}
	for _, s := range a.Scopes {
		if !slices.Contains(info.Scopes, s) {
			return "", time.Time{}, errors.New("the token lacks the scope " + s)
		}
	}
	if info.UserID == "" {
		return "", time.Time{}, errors.New("the token names no user: decisions need an operator identity")
	}
	return info.UserID, info.Expiration, nil
}

// isLoopback reports whether the request came to and from loopback
// addresses and names a loopback host: a DNS-rebinding page (its own name
// resolving to 127.0.0.1) sends that name in Host and is refused.
func isLoopback(r *http.Request) bool {
	if !mcpadapter.IsLoopback(r.Host) {
		return false
	}
	la, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if la == nil {
		return false
	}
	lhost, _, err := net.SplitHostPort(la.String())
	if err != nil {
		return false
	}
	rhost, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	lip, rip := net.ParseIP(lhost), net.ParseIP(rhost)
	return lip != nil && rip != nil && lip.IsLoopback() && rip.IsLoopback()
}

// operator authenticates a request: a bearer header, then the session
// cookie, then (if allowed) anonymous loopback access. Pages without an
// operator send browsers to the login page.
func (c *Console) operator(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		op, err := c.authenticate(r)
		if te := (*throttledError)(nil); errors.As(err, &te) {
			te.write(w)
			return
		}
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="agentadapter console"`)
			http.Error(w, "console: "+err.Error(), http.StatusUnauthorized)
			return
		}
		if op == nil {
			if r.Method == http.MethodGet && r.URL.Path != "/events" && r.URL.Path != "/pending" && r.URL.Path != "/export" {
				seeOther(w, "login")
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="agentadapter console"`)
			http.Error(w, "console: sign in first", http.StatusUnauthorized)
			return
		}
		if op.user && r.URL.Path != "/connections" && r.URL.Path != "/logout" {
			// A user of Options.Users: their connections, nothing else.
			if r.Method == http.MethodGet && r.URL.Path != "/events" && r.URL.Path != "/pending" && r.URL.Path != "/export" {
				seeOther(w, "connections")
				return
			}
			http.Error(w, "console: this page is for operators; users see only their connections", http.StatusForbidden)
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), operatorKey{}, op)))
	}
}

// authenticate returns the operator, nil when there is none, or an error
// for a bad bearer header.
func (c *Console) authenticate(r *http.Request) (*Operator, error) {
	if c.opts.Auth != nil {
		if h := r.Header.Get("Authorization"); h != "" {
			tok, ok := strings.CutPrefix(h, "Bearer ")
			if !ok {
				return nil, errors.New("only bearer tokens are accepted")
			}
			name, user, _, err := c.verify(r, strings.TrimSpace(tok))
			if err != nil {
				return nil, err
			}
			return &Operator{Name: name, user: user}, nil
		}
		if ck, err := r.Cookie(cookieName); err == nil {
			if op := c.session(r.Context(), ck.Value); op != nil {
				return op, nil
			}
		}
		return nil, nil
	}
	if c.opts.AllowAnonymousLocal && isLoopback(r) {
		// Forms still carry a token, bound to a cookie session, so a page
		// of another local site cannot post decisions.
		if ck, err := r.Cookie(cookieName); err == nil {
			if op := c.session(r.Context(), ck.Value); op != nil {
				return op, nil
			}
		}
		return nil, nil
	}
	return nil, errors.New("anonymous access is allowed only from this machine")
}

func (c *Console) loginPage(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, http.StatusOK, "login", &page{Title: "Sign in", Login: true, Anonymous: c.opts.Auth == nil})
}

func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "console: bad form", http.StatusBadRequest)
		return
	}
	var name string
	var user bool
	var cred Credential
	expires := c.now().Add(c.opts.SessionTTL)
	switch {
	case c.opts.Auth != nil:
		tok := strings.TrimSpace(r.PostForm.Get("token"))
		n, u, exp, err := c.verify(r, tok)
		if te := (*throttledError)(nil); errors.As(err, &te) {
			w.Header().Set("Retry-After", te.retryAfter())
			c.render(w, r, http.StatusTooManyRequests, "login", &page{Title: "Sign in", Login: true, Error: "Sign-in refused: " + err.Error() + "."})
			return
		}
		if err != nil {
			c.render(w, r, http.StatusUnauthorized, "login", &page{Title: "Sign in", Login: true, Error: "Sign-in failed: " + err.Error() + "."})
			return
		}
		name, user, cred = n, u, sha256.Sum256([]byte(tok))
		if !exp.IsZero() && exp.Before(expires) {
			expires = exp
		}
	case c.opts.AllowAnonymousLocal && isLoopback(r):
		name = AnonymousOperator
	default:
		http.Error(w, "console: anonymous access is allowed only from this machine", http.StatusUnauthorized)
		return
	}
	id := c.openSession(r.Context(), name, user, cred, expires)
	if id == "" {
		c.render(w, r, http.StatusServiceUnavailable, "login", &page{Title: "Sign in", Login: true, Anonymous: c.opts.Auth == nil, Error: "Sign-in failed: the session could not be stored; see the server log."})
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: id, Path: "/", Expires: expires,
		HttpOnly: true, Secure: c.overTLS(r), SameSite: http.SameSiteStrictMode,
	})
	if user {
		seeOther(w, "connections")
		return
	}
	seeOther(w, "approvals")
}

func (c *Console) logout(w http.ResponseWriter, r *http.Request) {
	op := OperatorFromContext(r.Context())
	if op.session != "" {
		if err := c.sessions.Delete(r.Context(), sessionKey(op.session)); err != nil {
			c.logger.Error("console: ending a login session failed", "operator", op.Name, "err", err)
			http.Error(w, "console: the session could not be ended; see the server log", http.StatusInternalServerError)
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: c.overTLS(r), SameSite: http.SameSiteStrictMode})
	seeOther(w, "login")
}

// csrfOK checks the form's token against the session's. Requests
// authenticated by a bearer header carry no ambient credential and need none.
func (c *Console) csrfOK(r *http.Request, op *Operator) bool {
	if op.session == "" {
		return true
	}
	got := r.PostForm.Get("csrf")
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(op.csrf)) == 1
}

// action parses a bounded form and checks its CSRF token before an action
// handler runs.
func (c *Console) action(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "console: bad form: "+truncate(err.Error(), 200), http.StatusBadRequest)
			return
		}
		if !c.csrfOK(r, OperatorFromContext(r.Context())) {
			http.Error(w, "console: the form is stale or forged (CSRF token mismatch); reload the page", http.StatusForbidden)
			return
		}
		next(w, r)
	}
}

// maxFormBytes bounds an action's form (edited arguments included).
const maxFormBytes = 1 << 20
