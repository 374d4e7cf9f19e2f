package console_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/console"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
)

// mapKV is a SessionKV in memory that keeps expired rows (Get hides them,
// as the stores do) and fails on demand.
type mapKV struct {
	mu      sync.Mutex
	rows    map[string]kvRow
	failPut error
	failGet error
}

type kvRow struct {
	value   []byte
	expires time.Time
}

func newMapKV() *mapKV { return &mapKV{rows: map[string]kvRow{}} }

func (m *mapKV) Put(_ context.Context, key string, value []byte, expires time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failPut != nil {
		return m.failPut
	}
	m.rows[key] = kvRow{append([]byte(nil), value...), expires}
	return nil
}

func (m *mapKV) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failGet != nil {
		return nil, false, m.failGet
	}
	r, ok := m.rows[key]
	if !ok || !time.Now().Before(r.expires) {
		return nil, false, nil
	}
	return append([]byte(nil), r.value...), true, nil
}

func (m *mapKV) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.rows, key)
	return nil
}

func (m *mapKV) keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ks []string
	for k := range m.rows {
		ks = append(ks, k)
	}
	return ks
}

// sessionConsole serves a console with its login sessions in sessions.
func sessionConsole(t *testing.T, sessions console.SessionStore) *httptest.Server {
	t.Helper()
	ledger := ledger.NewMemory(0)
	c, err := console.New(&console.Options{
		Approvals: &approval.Deferred{}, Ledger: ledger, LedgerReader: ledger,
		Auth: &export.AuthOptions{Verifier: verifier}, Revalidate: revalidate, Sessions: sessions, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(c)
	t.Cleanup(func() { c.Close(); s.Close() })
	return s
}

// send sends one request without following redirects.
func kvSend(t *testing.T, srv *httptest.Server, method, path, cookie string, form url.Values) *http.Response {
	t.Helper()
	rd := strings.NewReader("")
	if form != nil {
		rd = strings.NewReader(form.Encode())
	}
	r, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != "" {
		r.Header.Set("Cookie", cookie)
	}
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := (&http.Client{CheckRedirect: noRedirect}).Do(r)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// signIn signs tok in on srv and returns the session's cookie and its
// hash, the store's key.
func kvSignIn(t *testing.T, srv *httptest.Server, tok string) (cookie, key string) {
	t.Helper()
	res := kvSend(t, srv, "POST", "/login", "", url.Values{"token": {tok}})
	body(res)
	if res.StatusCode != http.StatusSeeOther || len(res.Cookies()) != 1 {
		t.Fatalf("login: %d %v", res.StatusCode, res.Cookies())
	}
	ck := res.Cookies()[0]
	sum := sha256.Sum256([]byte(ck.Value))
	return ck.Name + "=" + ck.Value, hex.EncodeToString(sum[:])
}

// signedIn reports whether cookie opens the approvals page on srv, and
// returns the page.
func kvSignedIn(t *testing.T, srv *httptest.Server, cookie string) (bool, string) {
	t.Helper()
	res := kvSend(t, srv, "GET", "/approvals", cookie, nil)
	page := body(res)
	switch res.StatusCode {
	case http.StatusOK:
		return true, page
	case http.StatusSeeOther:
		return false, page
	}
	t.Fatalf("GET /approvals: %d %s", res.StatusCode, page)
	return false, ""
}

func kvSignOut(t *testing.T, srv *httptest.Server, cookie, page string) {
	t.Helper()
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the page:\n%s", page)
	}
	if res := kvSend(t, srv, "POST", "/logout", cookie, url.Values{"csrf": {m[1]}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d %s", res.StatusCode, body(res))
	}
}

// Consoles over one SessionKV share sign-ins and sign-outs; the KV holds
// the session under the cookie's hash, never the cookie; forged and
// expired sessions open nothing.
func TestKVSessionsShared(t *testing.T) {
	kv := newMapKV()
	a, b := sessionConsole(t, console.KVSessions(kv)), sessionConsole(t, console.KVSessions(kv))
	cookie, key := kvSignIn(t, a, "tok-alice")
	if got := kv.keys(); len(got) != 1 || got[0] != key {
		t.Fatalf("KV keys = %q, want only the cookie's hash %q", got, key)
	}
	var s console.Session
	if err := json.Unmarshal(kv.rows[key].value, &s); err != nil || s.Operator != "alice" || s.CSRF == "" || !s.Expires.Equal(kv.rows[key].expires) {
		t.Errorf("stored session = %+v (%v), expires %v; want alice's with a CSRF token, expiring when the row does", s, err, kv.rows[key].expires)
	}
	if strings.Contains(string(kv.rows[key].value), strings.TrimPrefix(cookie, "agentadapter_console=")) {
		t.Error("the stored value holds the cookie")
	}
	ok, page := kvSignedIn(t, b, cookie)
	if !ok || !strings.Contains(page, "alice") {
		t.Fatalf("the other console does not know the session:\n%s", page)
	}
	if ok, _ := kvSignedIn(t, a, cookie[:strings.Index(cookie, "=")+1]+"forged"); ok {
		t.Error("a forged cookie signed in")
	}
	// Sign-out on b ends the session on a.
	kvSignOut(t, b, cookie, page)
	if len(kv.keys()) != 0 {
		t.Errorf("after sign-out the KV still holds %q", kv.keys())
	}
	if ok, _ := kvSignedIn(t, a, cookie); ok {
		t.Error("the session outlived its sign-out on another console")
	}

	// A session past its expiry opens nothing, even from a KV that
	// returns it.
	cookie, key = kvSignIn(t, a, "tok-bob")
	kv.mu.Lock()
	r := kv.rows[key]
	var v console.Session
	if err := json.Unmarshal(r.value, &v); err != nil {
		t.Fatal(err)
	}
	v.Expires = time.Now().Add(-time.Minute)
	r.value, _ = json.Marshal(v)
	kv.rows[key] = r // the row itself has not expired
	kv.mu.Unlock()
	if ok, _ := kvSignedIn(t, b, cookie); ok {
		t.Error("an expired session signed in")
	}
}

// A session the KV refuses fails the sign-in with a clear answer, not a
// silent sign-out on the next request; a KV that cannot be read signs
// nobody in.
func TestKVSessionsErrors(t *testing.T) {
	kv := newMapKV()
	srv := sessionConsole(t, console.KVSessions(kv))
	kv.failPut = errors.New("disk full")
	res := kvSend(t, srv, "POST", "/login", "", url.Values{"token": {"tok-alice"}})
	page := body(res)
	if res.StatusCode != http.StatusServiceUnavailable || len(res.Cookies()) != 0 || !strings.Contains(page, "the session could not be stored") {
		t.Errorf("login with a failing KV: %d, cookies %v, want 503 and no cookie saying so:\n%s", res.StatusCode, res.Cookies(), page)
	}
	kv.failPut = nil
	cookie, _ := kvSignIn(t, srv, "tok-alice")
	kv.failGet = errors.New("connection refused")
	if ok, _ := kvSignedIn(t, srv, cookie); ok {
		t.Error("signed in through a KV that fails")
	}
	kv.failGet = nil
	if ok, _ := kvSignedIn(t, srv, cookie); !ok {
		t.Error("not signed in once the KV answers again")
	}
}

// A console on UpgradeSessions keeps the operators CacheSessions signed
// in, and a sign-out on either side ends them on both; new sign-ins go to
// the KV only.
func TestUpgradeSessions(t *testing.T) {
	cache := adapter.NewMemoryCache(100, 0)
	kv := newMapKV()
	old := sessionConsole(t, console.CacheSessions(cache))
	upgraded := sessionConsole(t, console.UpgradeSessions(kv, cache))

	cookie, key := kvSignIn(t, old, "tok-alice")
	ok, page := kvSignedIn(t, upgraded, cookie)
	if !ok {
		t.Fatal("the upgraded console signed out a session the cache holds")
	}
	if len(kv.keys()) != 0 {
		t.Errorf("a legacy session was copied to the KV: %q", kv.keys())
	}
	kvSignOut(t, upgraded, cookie, page)
	if ok, _ := kvSignedIn(t, old, cookie); ok {
		t.Error("sign-out on the upgraded console left the session open on the old one")
	}

	cookie, _ = kvSignIn(t, old, "tok-bob")
	ok, page = kvSignedIn(t, old, cookie)
	if !ok {
		t.Fatal("the old console lost its own session")
	}
	kvSignOut(t, old, cookie, page)
	if ok, _ := kvSignedIn(t, upgraded, cookie); ok {
		t.Error("sign-out on the old console left the session open on the upgraded one")
	}

	cookie, key = kvSignIn(t, upgraded, "tok-alice")
	if _, ok := cache.Get(context.Background(), "console/session/"+key); ok {
		t.Error("a new session went to the result cache")
	}
	if got := kv.keys(); len(got) != 1 || got[0] != key {
		t.Errorf("KV keys = %q, want %q", got, key)
	}
	if ok, _ := kvSignedIn(t, upgraded, cookie); !ok {
		t.Error("a new session on the upgraded console does not hold")
	}
}
