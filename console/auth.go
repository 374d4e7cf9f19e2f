package console

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"
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
}

// OperatorFromContext returns the operator of a console request, or nil.
func OperatorFromContext(ctx context.Context) *Operator {
	o, _ := ctx.Value(operatorKey{}).(*Operator)
	return o
}

// openSession stores a new session and returns its cookie value, or ""
// when the store refused it.
func (c *Console) openSession(ctx context.Context, operator string, expires time.Time) string {
	id := randomToken()
	if err := c.sessions.Put(ctx, sessionKey(id), Session{Operator: operator, CSRF: randomToken(), Expires: expires}); err != nil {
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
	return &Operator{Name: s.Operator, csrf: s.CSRF, session: id}
}

func randomToken() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// errUnauthorized is what a verifier failure becomes; the verifier's own
// message never reaches the page.
var errUnauthorized = errors.New("the token was not accepted")

// verify checks a bearer token the way the gateway does.
func (c *Console) verify(r *http.Request, token string) (name string, expires time.Time, err error) {
	a := c.opts.Auth
	info, err := a.Verifier(r.Context(), token, r)
	if err != nil || info == nil {
		return "", time.Time{}, errUnauthorized
	}
	now := c.now()
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
// addresses.
func isLoopback(r *http.Request) bool {
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
			name, _, err := c.verify(r, strings.TrimSpace(tok))
			if err != nil {
				return nil, err
			}
			return &Operator{Name: name}, nil
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
	expires := c.now().Add(c.opts.SessionTTL)
	switch {
	case c.opts.Auth != nil:
		n, exp, err := c.verify(r, strings.TrimSpace(r.PostForm.Get("token")))
		if err != nil {
			c.render(w, r, http.StatusUnauthorized, "login", &page{Title: "Sign in", Login: true, Error: "Sign-in failed: " + err.Error() + "."})
			return
		}
		name = n
		if !exp.IsZero() && exp.Before(expires) {
			expires = exp
		}
	case c.opts.AllowAnonymousLocal && isLoopback(r):
		name = AnonymousOperator
	default:
		http.Error(w, "console: anonymous access is allowed only from this machine", http.StatusUnauthorized)
		return
	}
	id := c.openSession(r.Context(), name, expires)
	if id == "" {
		c.render(w, r, http.StatusServiceUnavailable, "login", &page{Title: "Sign in", Login: true, Anonymous: c.opts.Auth == nil, Error: "Sign-in failed: the session could not be stored; see the server log."})
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: id, Path: "/", Expires: expires,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode,
	})
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
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
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
