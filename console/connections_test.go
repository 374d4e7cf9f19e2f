package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

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
