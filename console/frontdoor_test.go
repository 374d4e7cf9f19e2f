package console_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/console"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
)

// frontDoor is a console with operator tokens the test can revoke, served
// through ServeHTTP with whatever client address a request claims.
type frontDoor struct {
	c  *console.Console
	mu sync.Mutex
	ok map[string]string // token -> operator
}

func newFrontDoor(t *testing.T, opts console.Options) *frontDoor {
	t.Helper()
	f := &frontDoor{ok: map[string]string{"tok-alice": "alice", "tok-bob": "bob"}}
	opts.Ledger = ledger.NewMemory(0)
	opts.Approvals = &approval.Deferred{}
	opts.Logger = slog.New(slog.DiscardHandler)
	if !opts.AllowAnonymousLocal {
		opts.Auth = &export.AuthOptions{Verifier: func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			u, ok := f.ok[tok]
			if !ok {
				return nil, auth.ErrInvalidToken
			}
			return &auth.TokenInfo{UserID: u, Expiration: time.Now().Add(time.Hour)}, nil
		}}
		opts.Revalidate = func(_ context.Context, op string, cred console.Credential) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			for tok, u := range f.ok {
				if u == op && sha256.Sum256([]byte(tok)) == cred {
					return nil
				}
			}
			return errors.New("revoked")
		}
	}
	c, err := console.New(&opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	f.c = c
	return f
}

// do serves one request from addr ("203.0.113.7:4000").
func (f *frontDoor) do(method, path, addr string, form url.Values, hdr http.Header) *httptest.ResponseRecorder {
	var req *http.Request
	if form != nil {
		req = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	req.RemoteAddr = addr
	for k, v := range hdr {
		req.Header[k] = v
	}
	w := httptest.NewRecorder()
	f.c.ServeHTTP(w, req)
	return w
}

// A guesser is slowed down per address: of 300 wrong tokens, only the
// first few are checked; the rest get 429 with Retry-After, a right token
// from the guessing address too (it learns nothing while it waits), while
// an operator on another address signs in at once. Bearer headers are
// throttled like the form.
func TestSignInThrottled(t *testing.T) {
	f := newFrontDoor(t, console.Options{})
	const attacker = "203.0.113.7:4000"
	refused := 0
	for i := range 300 {
		w := f.do("POST", "/login", attacker, url.Values{"token": {"guess-" + strconv.Itoa(i)}}, nil)
		switch w.Code {
		case http.StatusTooManyRequests:
			refused++
			if ra, err := strconv.Atoi(w.Header().Get("Retry-After")); err != nil || ra < 1 {
				t.Fatalf("429 without a usable Retry-After: %q", w.Header().Get("Retry-After"))
			}
		case http.StatusUnauthorized:
		default:
			t.Fatalf("wrong token %d: %d", i, w.Code)
		}
	}
	if refused < 300-console.DefaultSignInFailures {
		t.Errorf("%d of 300 wrong tokens refused unchecked, want at least %d", refused, 300-console.DefaultSignInFailures)
	}
	if w := f.do("POST", "/login", attacker, url.Values{"token": {"tok-alice"}}, nil); w.Code != http.StatusTooManyRequests {
		t.Errorf("the throttled address signed in with a right token: %d", w.Code)
	}
	if w := f.do("GET", "/approvals", attacker, nil, http.Header{"Authorization": {"Bearer tok-alice"}}); w.Code != http.StatusTooManyRequests {
		t.Errorf("the throttled address got past with a bearer header: %d", w.Code)
	}
	if w := f.do("POST", "/login", "198.51.100.2:5000", url.Values{"token": {"tok-alice"}}, nil); w.Code != http.StatusSeeOther {
		t.Errorf("an operator on another address could not sign in: %d %s", w.Code, w.Body)
	}
	// IPv6 addresses count by their /64: rotating the host part does not
	// reset the wait.
	for i := range 10 {
		f.do("GET", "/approvals", "[2001:db8::"+strconv.Itoa(i+1)+"]:1", nil, http.Header{"Authorization": {"Bearer wrong"}})
	}
	if w := f.do("GET", "/approvals", "[2001:db8::ffff]:1", nil, http.Header{"Authorization": {"Bearer wrong"}}); w.Code != http.StatusTooManyRequests {
		t.Errorf("a new address in the same /64: %d, want 429", w.Code)
	}
}

// Behind a trusted proxy, the client's address is the proxy's word
// (X-Forwarded-For); from anyone else the header is ignored, so a guesser
// cannot spread its attempts over made-up addresses.
func TestSignInThrottledBehindProxy(t *testing.T) {
	f := newFrontDoor(t, console.Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	for i := range 20 {
		f.do("POST", "/login", "192.0.2.9:1", url.Values{"token": {"wrong"}}, http.Header{"X-Forwarded-For": {"203.0.113." + strconv.Itoa(i)}})
	}
	if w := f.do("POST", "/login", "192.0.2.9:1", url.Values{"token": {"tok-bob"}}, http.Header{"X-Forwarded-For": {"203.0.113.99"}}); w.Code != http.StatusTooManyRequests {
		t.Errorf("an untrusted peer's X-Forwarded-For was believed: %d", w.Code)
	}
	for range 20 {
		f.do("POST", "/login", "10.0.0.1:1", url.Values{"token": {"wrong"}}, http.Header{"X-Forwarded-For": {"203.0.113.50"}})
	}
	if w := f.do("POST", "/login", "10.0.0.1:1", url.Values{"token": {"tok-bob"}}, http.Header{"X-Forwarded-For": {"198.51.100.7, 10.0.0.2"}}); w.Code != http.StatusSeeOther {
		t.Errorf("another client behind the proxy was throttled with the guesser: %d", w.Code)
	}
}

// A login session dies with the credential it was opened with: once
// Revalidate no longer accepts the operator's token, the cookie opens
// nothing, on the next request, and cannot decide.
func TestSessionEndsWithCredential(t *testing.T) {
	f := newFrontDoor(t, console.Options{})
	w := f.do("POST", "/login", "127.0.0.1:1", url.Values{"token": {"tok-alice"}}, nil)
	if w.Code != http.StatusSeeOther || len(w.Result().Cookies()) != 1 {
		t.Fatalf("login: %d", w.Code)
	}
	ck := w.Result().Cookies()[0]
	cookie := http.Header{"Cookie": {ck.Name + "=" + ck.Value}}
	page := f.do("GET", "/approvals", "127.0.0.1:1", nil, cookie)
	m := csrfRE.FindStringSubmatch(page.Body.String())
	if page.Code != http.StatusOK || m == nil {
		t.Fatalf("approvals with the session: %d", page.Code)
	}
	// alice's token is rotated: the same name, another token.
	f.mu.Lock()
	delete(f.ok, "tok-alice")
	f.ok["tok-alice-2"] = "alice"
	f.mu.Unlock()
	if w := f.do("GET", "/approvals", "127.0.0.1:1", nil, cookie); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "login" {
		t.Errorf("a rotated token's session still opens the page: %d %s", w.Code, w.Header().Get("Location"))
	}
	if w := f.do("POST", "/decide", "127.0.0.1:1", url.Values{"csrf": {m[1]}, "ticket": {"tkt_x"}, "action": {"approve"}}, cookie); w.Code != http.StatusUnauthorized {
		t.Errorf("a rotated token's session can still decide: %d", w.Code)
	}
	// The token coming back does not revive a session opened by another
	// operator name.
	f.mu.Lock()
	f.ok["tok-alice"] = "alice"
	f.mu.Unlock()
	w = f.do("POST", "/login", "127.0.0.1:1", url.Values{"token": {"tok-bob"}}, nil)
	bob := http.Header{"Cookie": {w.Result().Cookies()[0].Name + "=" + w.Result().Cookies()[0].Value}}
	f.mu.Lock()
	f.ok["tok-bob"] = "bob2" // renamed
	f.mu.Unlock()
	if w := f.do("GET", "/approvals", "127.0.0.1:1", nil, bob); w.Code != http.StatusSeeOther {
		t.Errorf("a renamed operator's session still opens the page: %d", w.Code)
	}
}

// Anonymous loopback access is refused to a DNS-rebinding page: the
// connection is loopback, but Host names the attacker's domain.
func TestAnonymousRefusesRebinding(t *testing.T) {
	f := newFrontDoor(t, console.Options{AllowAnonymousLocal: true})
	serve := func(host, method, path string, form url.Values) *httptest.ResponseRecorder {
		var req *http.Request
		if form != nil {
			req = httptest.NewRequest(method, "http://"+host+path, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		} else {
			req = httptest.NewRequest(method, "http://"+host+path, nil)
		}
		req.RemoteAddr = "127.0.0.1:5555"
		req.Header.Set("Origin", "http://"+host)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		ctx := context.WithValue(req.Context(), http.LocalAddrContextKey, netAddr("127.0.0.1:8931"))
		w := httptest.NewRecorder()
		f.c.ServeHTTP(w, req.WithContext(ctx))
		return w
	}
	if w := serve("rebind.evil.example:8931", "POST", "/login", url.Values{}); w.Code != http.StatusUnauthorized || len(w.Result().Cookies()) != 0 {
		t.Errorf("a rebinding page signed in: %d, cookies %v", w.Code, w.Result().Cookies())
	}
	if w := serve("rebind.evil.example:8931", "GET", "/approvals", nil); w.Code != http.StatusUnauthorized {
		t.Errorf("a rebinding page read the approvals: %d", w.Code)
	}
	for _, host := range []string{"127.0.0.1:8931", "localhost:8931", "[::1]:8931"} {
		if w := serve(host, "POST", "/login", url.Values{}); w.Code != http.StatusSeeOther {
			t.Errorf("Host %s: sign-in %d, want 303", host, w.Code)
		}
	}
}

type netAddr string

func (a netAddr) Network() string { return "tcp" }
func (a netAddr) String() string  { return string(a) }

// The session cookie is Secure over TLS, and behind a trusted proxy that
// says the browser used https; a peer that is not a trusted proxy cannot
// say so.
func TestCookieSecure(t *testing.T) {
	f := newFrontDoor(t, console.Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.5/32")}})
	for _, tt := range []struct {
		name, addr, proto string
		want              bool
	}{
		{"plain HTTP", "127.0.0.1:1", "", false},
		{"trusted proxy, https", "10.0.0.5:1", "https", true},
		{"trusted proxy, http", "10.0.0.5:1", "http", false},
		{"untrusted peer says https", "10.0.0.6:1", "https", false},
	} {
		hdr := http.Header{}
		if tt.proto != "" {
			hdr.Set("X-Forwarded-Proto", tt.proto)
		}
		w := f.do("POST", "/login", tt.addr, url.Values{"token": {"tok-alice"}}, hdr)
		ck := w.Result().Cookies()
		if w.Code != http.StatusSeeOther || len(ck) != 1 {
			t.Fatalf("%s: login %d", tt.name, w.Code)
		}
		if ck[0].Secure != tt.want {
			t.Errorf("%s: Secure=%v, want %v", tt.name, ck[0].Secure, tt.want)
		}
	}
	srv := httptest.NewTLSServer(f.c)
	defer srv.Close()
	cl := srv.Client()
	cl.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := cl.PostForm(srv.URL+"/login", url.Values{"token": {"tok-bob"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if ck := res.Cookies(); len(ck) != 1 || !ck[0].Secure {
		t.Errorf("over TLS: cookies %v, want one Secure", ck)
	}
}

// A session store shared by consoles of different configurations: an
// operator's session does not open an anonymous console as that operator,
// and a session stored without a credential (before sessions were bound
// to one) opens nothing.
func TestSessionNeedsItsCredential(t *testing.T) {
	store := console.MemorySessions()
	authed := newFrontDoor(t, console.Options{Sessions: store})
	anon := newFrontDoor(t, console.Options{Sessions: store, AllowAnonymousLocal: true})
	w := authed.do("POST", "/login", "127.0.0.1:1", url.Values{"token": {"tok-alice"}}, nil)
	ck := w.Result().Cookies()[0]
	cookie := http.Header{"Cookie": {ck.Name + "=" + ck.Value}}
	req := httptest.NewRequest("GET", "http://127.0.0.1:8931/approvals", nil)
	req.RemoteAddr = "127.0.0.1:1"
	req.Header = cookie
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, netAddr("127.0.0.1:8931")))
	rec := httptest.NewRecorder()
	anon.c.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther || strings.Contains(rec.Body.String(), "alice") {
		t.Errorf("alice's session opened the anonymous console: %d", rec.Code)
	}

	const old = "a-cookie-from-before-the-upgrade"
	sum := sha256.Sum256([]byte(old))
	if err := store.Put(context.Background(), hex.EncodeToString(sum[:]), console.Session{Operator: "alice", CSRF: "x", Expires: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if w := authed.do("GET", "/approvals", "127.0.0.1:1", nil, http.Header{"Cookie": {ck.Name + "=" + old}}); w.Code != http.StatusSeeOther {
		t.Errorf("a session without a credential opened the console: %d", w.Code)
	}
}
