package console_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/console"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// TestConnectionsPage (#27): a console user sees their own connections to
// per-user servers (server, issuer, expiry; never a token, never another
// user's) and disconnects one: the grant is revoked at the authorization
// server's revocation endpoint (RFC 7009, as the client it was issued
// to), the token deleted; another user's stays. A disconnect without the
// session's CSRF token is refused.
func TestConnectionsPage(t *testing.T) {
	ctx := context.Background()
	mux := http.NewServeMux()
	as := httptest.NewServer(mux)
	t.Cleanup(as.Close)
	resource, issuer := as.URL+"/mcp", as.URL
	var mu sync.Mutex
	var revoked []url.Values
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"resource": resource, "authorization_servers": []string{issuer}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"issuer": issuer, "authorization_endpoint": issuer + "/authorize",
			"token_endpoint": issuer + "/token", "revocation_endpoint": issuer + "/revoke",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("POST /revoke", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		id, secret, _ := r.BasicAuth()
		v := r.PostForm
		v.Set("basic", id+":"+secret)
		mu.Lock()
		revoked = append(revoked, v)
		mu.Unlock()
	})
	store := new(token.MemoryStore)
	si := &oauth.SignIns{BaseURL: "http://127.0.0.1:1"}
	if _, err := oauth.NewHandler("up", resource, &oauth.Config{PerCaller: true, Tokens: store, SignIn: si}, nil); err != nil {
		t.Fatal(err)
	}
	key := func(sub string) token.Key {
		return token.Key{Server: "up", Subject: sub, Issuer: issuer, Resource: resource}
	}
	exp := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	for _, sub := range []string{"alice", "bob"} {
		store.PutToken(ctx, key(sub), &token.Token{AccessToken: "at-" + sub, RefreshToken: "rt-" + sub, Expiry: exp,
			Scopes: []string{"read"}, TokenURL: issuer + "/token", ClientID: "client-1", ClientSecret: "cs-1"})
	}

	e := newEnv(t, envOptions{connections: si})
	alice, bob := e.login("tok-alice"), e.login("tok-bob")
	page := body(alice.do("GET", "connections", nil, nil))
	if !strings.Contains(page, "<code>up</code>") || !strings.Contains(page, issuer) || !strings.Contains(page, exp.Format(time.RFC3339)) {
		t.Errorf("alice's connections page lacks her connection:\n%s", page)
	}
	for _, secret := range []string{"at-alice", "rt-alice", "cs-1", "at-bob", "rt-bob"} {
		if strings.Contains(page, secret) {
			t.Errorf("the connections page shows %q", secret)
		}
	}

	if res := alice.do("POST", "connections", url.Values{"server": {"up"}}, nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("a disconnect without the CSRF token: %d, want 403", res.StatusCode)
	}
	if _, err := store.Token(ctx, key("alice")); err != nil {
		t.Fatalf("alice's token after the refused disconnect: %v", err)
	}
	if res := alice.post("connections", url.Values{"server": {"up"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("alice's disconnect: %d %s", res.StatusCode, body(res))
	}
	if _, err := store.Token(ctx, key("alice")); err == nil {
		t.Error("alice's token is still stored after her disconnect")
	}
	if _, err := store.Token(ctx, key("bob")); err != nil {
		t.Errorf("bob's token after alice disconnected: %v", err)
	}
	mu.Lock()
	if len(revoked) != 1 || revoked[0].Get("token") != "rt-alice" || revoked[0].Get("token_type_hint") != "refresh_token" || revoked[0].Get("basic") != "client-1:cs-1" {
		t.Errorf("revocations: %v, want alice's refresh token, as client-1", revoked)
	}
	mu.Unlock()
	if page := body(alice.do("GET", "connections", nil, nil)); !strings.Contains(page, "You have connected no account") {
		t.Errorf("alice's page after disconnecting:\n%s", page)
	}
	if page := body(bob.do("GET", "connections", nil, nil)); !strings.Contains(page, "<code>up</code>") {
		t.Errorf("bob's page after alice disconnected:\n%s", page)
	}
	if res := bob.post("connections", url.Values{"server": {"nowhere"}}); res.StatusCode != http.StatusBadGateway {
		t.Errorf("disconnecting an unknown server: %d", res.StatusCode)
	}
}

// TestUsers: Options.Users signs a program's users in with their own
// token, after the operators' Auth: a user lands on the Connections page
// and reaches nothing else (every other page sends them back there, every
// other action, the pending list and the ledger export answer 403, as a
// bearer token too); their session ends with their token's expiry; an
// operator token is still an operator's. Users without Auth is refused.
func TestUsers(t *testing.T) {
	users := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		switch tok {
		case "user-carol":
			return &auth.TokenInfo{UserID: "carol", Expiration: time.Now().Add(time.Hour)}, nil
		case "user-dan":
			return &auth.TokenInfo{UserID: "dan", Expiration: time.Now().Add(1500 * time.Millisecond)}, nil
		}
		return nil, auth.ErrInvalidToken
	}
	if _, err := console.New(&console.Options{Approvals: new(approval.Deferred), Ledger: ledger.NewMemory(0), AllowAnonymousLocal: true,
		Users: &export.AuthOptions{Verifier: users}}); !errors.Is(err, console.ErrConfig) {
		t.Errorf("Users without Auth: %v, want ErrConfig", err)
	}

	si := &oauth.SignIns{BaseURL: "http://127.0.0.1:1"}
	e := newEnv(t, envOptions{connections: si, users: users})
	ticket := e.hold(context.Background(), `{"path":"/tmp/x"}`)
	carol := &operator{t: t, e: e, c: &http.Client{Jar: must(cookiejar.New(nil)), CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if res := carol.do("POST", "login", url.Values{"token": {"user-carol"}}, nil); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "connections" {
		t.Fatalf("carol's sign-in: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	page := body(carol.do("GET", "connections", nil, nil))
	m := csrfRE.FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, "carol") || strings.Contains(page, `href="approvals"`) {
		t.Fatalf("carol's connections page:\n%s", page)
	}
	carol.csrf = m[1]
	for _, path := range []string{"approvals", "ledger", "servers", "quarantine", "edit?ticket=" + ticket} {
		if res := carol.do("GET", path, nil, nil); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "connections" {
			t.Errorf("carol at %s: %d %q, want sent to her connections", path, res.StatusCode, res.Header.Get("Location"))
		}
	}
	for _, path := range []string{"decide", "standing", "edit", "servers", "quarantine"} {
		if res := carol.post(path, url.Values{"ticket": {ticket}, "verdict": {"approve"}}); res.StatusCode != http.StatusForbidden {
			t.Errorf("carol posting %s: %d, want 403", path, res.StatusCode)
		}
	}
	bearer := &operator{t: t, e: e, c: &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	for path, want := range map[string]int{"pending": http.StatusForbidden, "export": http.StatusForbidden, "events": http.StatusForbidden,
		"approvals": http.StatusSeeOther, "connections": http.StatusOK} {
		res := bearer.do("GET", path, nil, http.Header{"Authorization": {"Bearer user-carol"}})
		if res.StatusCode != want {
			t.Errorf("carol's bearer token at %s: %d, want %d", path, res.StatusCode, want)
		}
		res.Body.Close()
	}
	if tk := e.ticket(ticket); tk.State != approval.TicketPending {
		t.Errorf("the ticket after carol's attempts: %s", tk.State)
	}
	// An operator is still one.
	ops := e.login("tok-alice")
	if res := ops.do("GET", "approvals", nil, nil); res.StatusCode != http.StatusOK {
		t.Errorf("the operator's approvals: %d", res.StatusCode)
	}
	// Dan's session ends with his token.
	dan := &operator{t: t, e: e, c: &http.Client{Jar: must(cookiejar.New(nil)), CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if res := dan.do("POST", "login", url.Values{"token": {"user-dan"}}, nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("dan's sign-in: %d", res.StatusCode)
	}
	if res := dan.do("GET", "connections", nil, nil); res.StatusCode != http.StatusOK {
		t.Fatalf("dan's connections: %d", res.StatusCode)
	}
	time.Sleep(2 * time.Second)
	if res := dan.do("GET", "connections", nil, nil); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "login" {
		t.Errorf("dan after his token expired: %d %q, want sent to sign in", res.StatusCode, res.Header.Get("Location"))
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
