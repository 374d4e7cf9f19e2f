package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "github.com/ncruces/go-sqlite3/driver" // to look at the store behind the gateways' backs

	"github.com/agentadapter/agentadapter/console"
	sqlitestore "github.com/agentadapter/agentadapter/store/sqlite"
)

// Two gateway replicas on one SQLite file share console sign-ins and
// sign-outs through the store's sessions table, apart from the result
// cache: clearing cached results signs nobody out. Forged cookies and
// expired rows open nothing, and a session too large for the table fails
// the sign-in with an error instead of a sign-out on the next request.
func TestServeConsoleSessionsReplicas(t *testing.T) {
	dir := t.TempDir()
	// bob's subject makes a session over the table's limit.
	huge := strings.Repeat("b", 17<<10)
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"agentadapter": {"store": "sqlite:%s/state.db",
  "console": {"operators": [{"subject": "alice", "token": "alice-token-5f2c9a1e7b3d8f4a6c0e"},
    {"subject": %q, "token": "bob-token-5f2c9a1e7b3d8f4a6c0e9d"}]}}}`, dir, huge))
	req := func(s *served, method, path, cookie string, form url.Values) (*http.Response, string) {
		t.Helper()
		r, _ := http.NewRequest(method, s.base+"/console/"+path, strings.NewReader(form.Encode()))
		if form != nil {
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if cookie != "" {
			r.Header.Set("Cookie", cookie)
		}
		res, err := http.DefaultTransport.RoundTrip(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	signIn := func(s *served) (cookie, key string) {
		t.Helper()
		res, page := req(s, "POST", "login", "", url.Values{"token": {"alice-token-5f2c9a1e7b3d8f4a6c0e"}})
		if res.StatusCode != http.StatusSeeOther || len(res.Cookies()) != 1 {
			t.Fatalf("login: %d %v\n%s", res.StatusCode, res.Cookies(), page)
		}
		ck := res.Cookies()[0]
		sum := sha256.Sum256([]byte(ck.Value))
		return ck.Name + "=" + ck.Value, hex.EncodeToString(sum[:])
	}
	signedIn := func(s *served, cookie string) (bool, string) {
		t.Helper()
		res, page := req(s, "GET", "approvals", cookie, nil)
		switch res.StatusCode {
		case http.StatusOK:
			return strings.Contains(page, "alice"), page
		case http.StatusSeeOther:
			return false, page
		}
		t.Fatalf("GET approvals: %d\n%s", res.StatusCode, page)
		return false, ""
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "state.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(query string, args ...any) int {
		t.Helper()
		var n int
		if err := db.QueryRow(query, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.Exec(query, args...); err != nil {
			t.Fatal(err)
		}
	}

	a := startServe(t, dir, nil, "--config", "gateway.json")
	b := startServe(t, dir, nil, "--config", "gateway.json")
	cookie, key := signIn(a)
	if ok, page := signedIn(b, cookie); !ok {
		t.Fatalf("the other replica does not know the session:\n%s", page)
	}
	if n := count("SELECT COUNT(*) FROM console_sessions WHERE key = ?", key); n != 1 {
		t.Errorf("%d sessions table rows under the cookie's hash, want 1", n)
	}
	if n := count("SELECT COUNT(*) FROM cache WHERE CAST(key AS TEXT) LIKE 'console/session/%'"); n != 0 {
		t.Errorf("%d sessions in the result cache, want none", n)
	}

	// Clearing cached results signs nobody out.
	exec("DELETE FROM cache")
	for name, s := range map[string]*served{"a": a, "b": b} {
		if ok, _ := signedIn(s, cookie); !ok {
			t.Errorf("clearing the result cache signed the operator out of %s", name)
		}
	}

	// A forged cookie, or one whose row has expired, opens nothing.
	if ok, _ := signedIn(b, cookie[:strings.Index(cookie, "=")+1]+"forged"); ok {
		t.Error("a forged cookie signed in")
	}
	other, otherKey := signIn(b)
	exec("UPDATE console_sessions SET expires = ? WHERE key = ?", time.Now().Add(-time.Second).UnixNano(), otherKey)
	if ok, _ := signedIn(a, other); ok {
		t.Error("a session whose row expired signed in")
	}

	// A session the table refuses fails the sign-in, saying why.
	res, page := req(a, "POST", "login", "", url.Values{"token": {"bob-token-5f2c9a1e7b3d8f4a6c0e9d"}})
	if res.StatusCode != http.StatusServiceUnavailable || len(res.Cookies()) != 0 || !strings.Contains(page, "the session could not be stored") {
		t.Errorf("login with an oversized session: %d %v, want 503 without a cookie:\n%.500s", res.StatusCode, res.Cookies(), page)
	}
	if !regexp.MustCompile(`storing a login session failed.*session too large: a value of \d+ bytes \(at most 16384\)`).MatchString(a.out.String()) {
		t.Errorf("the log does not say why the session was refused:\n%.2000s", a.out.String())
	}

	// Sign-out on b ends the session on a.
	ok, page := signedIn(b, cookie)
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if !ok || m == nil {
		t.Fatalf("no CSRF token (signed in: %v):\n%s", ok, page)
	}
	if res, _ := req(b, "POST", "logout", cookie, url.Values{"csrf": {m[1]}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", res.StatusCode)
	}
	if ok, _ := signedIn(a, cookie); ok {
		t.Error("the session outlived its sign-out on the other replica")
	}
	if n := count("SELECT COUNT(*) FROM console_sessions WHERE key = ?", key); n != 0 {
		t.Errorf("the row outlived the sign-out: %d", n)
	}
	a.stop(t)
	b.stop(t)
}

// A session an older gateway kept in the result cache (CacheSessions)
// still holds after the upgrade, for one release, and signing out ends
// it there too.
func TestServeConsoleSessionsUpgrade(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"agentadapter": {"store": "sqlite:%s/state.db",
  "console": {"operators": [{"subject": "alice", "token": "alice-token-5f2c9a1e7b3d8f4a6c0e"}]}}}`, dir))
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "state.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	cred := sha256.Sum256([]byte("alice-token-5f2c9a1e7b3d8f4a6c0e"))
	sum := sha256.Sum256([]byte("legacy-cookie"))
	key := hex.EncodeToString(sum[:])
	legacy := console.CacheSessions(st.Cache())
	if err := legacy.Put(ctx, key, console.Session{Operator: "alice", CSRF: "legacy-csrf", Expires: time.Now().Add(time.Hour), Credential: hex.EncodeToString(cred[:])}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	s := startServe(t, dir, nil, "--config", "gateway.json")
	get := func() int {
		t.Helper()
		r, _ := http.NewRequest("GET", s.base+"/console/approvals", nil)
		r.Header.Set("Cookie", "agentadapter_console=legacy-cookie")
		res, err := http.DefaultTransport.RoundTrip(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := get(); code != http.StatusOK {
		t.Fatalf("a session the older gateway kept: %d, want 200", code)
	}
	form := url.Values{"csrf": {"legacy-csrf"}}
	r, _ := http.NewRequest("POST", s.base+"/console/logout", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Cookie", "agentadapter_console=legacy-cookie")
	res, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", res.StatusCode)
	}
	if code := get(); code != http.StatusSeeOther {
		t.Errorf("the legacy session outlived its sign-out: %d", code)
	}
	s.stop(t)
}
