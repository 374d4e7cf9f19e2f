package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	pgstore "github.com/agentadapter/agentadapter/store/postgres"
)

// TestFleetPerUserTokens (#27): serve replicas on one PostgreSQL keep the
// per-user tokens of an oauth.perCaller server in the store's token
// table, sealed with AGENTADAPTER_TOKEN_KEY, so that a token alice got
// through one replica is used by every replica, for alice only. Alice's
// upstream token is put through the store's API (the same database, the
// same key) as replica A's sign-in would; replica B, which never saw it,
// reaches the upstream (go-sdk behind auth.RequireBearerToken, checking
// the signature, issuer and its own audience) as alice; bob on B, and on
// A, gets the sign-in error and never alice's token; deleting alice's row
// stops alice on both. The table holds the token sealed, never in the
// clear.
func TestFleetPerUserTokens(t *testing.T) {
	pg := startPostgres(t)
	dir := t.TempDir()
	up, p, key := startIdP(t, dir, map[string]any{"upstreamTTL": 600})
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"up": {"type": "http", "url": %q}},
  "agentadapter": {"store": %q, "policy": {"approval": {"default": "never"}},
    "auth": {"jwt": {"publicKeyFile": "idp.pem", "issuer": %q, "audience": %q}},
    "servers": {"up": {"trust": "trusted", "oauth": {"perCaller": true, "issuer": %q, "tokens": "tokens.json"}}}}}`,
		up.url, pg.DSN, p.issuer, gatewayResource, p.issuer))
	raw := make([]byte, 32)
	rand.Read(raw)
	keys, err := token.NewKeyring(raw)
	if err != nil {
		t.Fatal(err)
	}
	envOf := func(i int) []string {
		return []string{"XDG_STATE_HOME=" + filepath.Join(dir, fmt.Sprintf("state%d", i)), "AGENTADAPTER_TOKEN_KEY=" + base64.StdEncoding.EncodeToString(raw)}
	}

	// The shared identity's token, which lists the tools (an operator's
	// sign-in), is in the shared table too.
	db, err := pgstore.Open(context.Background(), pg.DSN, &pgstore.Options{Tokens: token.StoreOptions{Keys: keys, PerUser: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Tokens().PutToken(context.Background(), token.Key{Server: "up", Resource: up.url},
		&token.Token{AccessToken: upstreamToken(t, key, p.issuer, up.url, "service"), TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	a := startServe(t, dir, envOf(0), "--config", "gateway.json")
	b := startServe(t, dir, envOf(1), "--config", "gateway.json")

	aliceIn, bobIn := p.mint(t, "alice"), p.mint(t, "bob")
	// No token yet: alice is told to sign in, on either replica.
	if got, isErr := whoami(t, b.base, aliceIn); !isErr || !strings.Contains(strings.ToLower(got), "sign") {
		t.Fatalf("alice on B before any token: %q, want the sign-in error", got)
	}

	// Alice's upstream token, written as replica A's sign-in writes it.
	upTok := upstreamToken(t, key, p.issuer, up.url, "alice")
	aliceKey := token.Key{Server: "up", Subject: "alice", Issuer: p.issuer, Resource: up.url}
	if err := db.Tokens().PutToken(context.Background(), aliceKey,
		&token.Token{AccessToken: upTok, TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*served{"A": a, "B": b} {
		if got, isErr := whoami(t, s.base, aliceIn); isErr || got != "upstream user alice" {
			t.Errorf("alice on %s: %q\n%s", name, got, s.out.String())
		}
		if got, isErr := whoami(t, s.base, bobIn); !isErr || !strings.Contains(strings.ToLower(got), "sign") || strings.Contains(got, "upstream user") || strings.Contains(got, upTok) {
			t.Errorf("bob on %s: %q, want the sign-in error", name, got)
		}
	}
	up.mu.Lock()
	subs := strings.Join(up.subs, ",")
	up.mu.Unlock()
	if strings.Contains(subs, "bob") || !strings.Contains(subs, "alice") {
		t.Errorf("the upstream's subjects: %q", subs)
	}

	// Deleting alice's row stops alice on every replica.
	if err := db.Tokens().DeleteToken(context.Background(), aliceKey); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*served{"A": a, "B": b} {
		if got, isErr := whoami(t, s.base, aliceIn); !isErr || strings.Contains(got, "upstream user") {
			t.Errorf("alice on %s after her token was deleted: %q", name, got)
		}
	}
	// The file store was not used.
	if _, err := os.Stat(filepath.Join(dir, "tokens.json")); err == nil {
		t.Error("per-user tokens went to the file store, not the shared table")
	}
}

// upstreamToken is an access token for the upstream at aud, as its
// authorization server (issuer, signing with key) issues one for sub.
func upstreamToken(t *testing.T, key *ecdsa.PrivateKey, issuer, aud, sub string) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"sub": sub, "iss": issuer, "aud": aud,
		"exp": time.Now().Add(time.Hour).Unix()}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestFleetSignIn (#27): the per-user sign-in through two serve replicas
// on one PostgreSQL behind a round-robin balancer, with oidc-provider (npm)
// as the authorization server of both the gateway (alice's and bob's
// inbound tokens) and the upstream (each user's sign-in). Alice's call on
// replica B gets the sign-in error with her link at the balancer; her
// browser opens it on A, confirms on B, logs in and consents at the
// provider, and the callback, through the balancer, completes on A: the
// sign-in in progress and the token are in the shared store. Then alice
// reaches the upstream (go-sdk behind auth.RequireBearerToken) as alice on
// both replicas, bob gets the sign-in error on both, until he signs in
// himself and is bob on both. The attacks, on every replica: alice's
// callback opened in bob's browser, a forged state, and a replay of
// alice's callback, each refused with alice's sign-in and token intact.
func TestFleetSignIn(t *testing.T) {
	pg := startPostgres(t)
	lb := startBalancer(t, []string{"", ""}, false) // the replicas are set below
	callback := lb.srv.URL + "/oauth/callback"
	dir := t.TempDir()
	up, p, key := startIdP(t, dir, map[string]any{"upstreamTTL": 600, "signInRedirect": callback})
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"up": {"type": "http", "url": %q}},
  "agentadapter": {"store": %q, "policy": {"approval": {"default": "never"}}, "signIn": {"baseUrl": %q},
    "console": {"operators": [{"subject": "ops", "token": "ops-token-5f2c9a1e7b3d8f4a6c0e9d"}]},
    "auth": {"jwt": {"publicKeyFile": "idp.pem", "issuer": %q, "audience": %q}},
    "servers": {"up": {"trust": "trusted", "oauth": {"perCaller": true, "issuer": %q, "clientId": "gw-signin",
      "clientSecret": "gw-signin-secret", "scopes": ["mcp"], "noOfflineAccess": true}}}}}`,
		up.url, pg.DSN, lb.srv.URL, p.issuer, gatewayResource, p.issuer))
	raw := make([]byte, 32)
	rand.Read(raw)
	keys, err := token.NewKeyring(raw)
	if err != nil {
		t.Fatal(err)
	}
	db, err := pgstore.Open(context.Background(), pg.DSN, &pgstore.Options{Tokens: token.StoreOptions{Keys: keys, PerUser: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The shared identity's token, which lists the tools.
	if err := db.Tokens().PutToken(context.Background(), token.Key{Server: "up", Resource: up.url},
		&token.Token{AccessToken: upstreamToken(t, key, p.issuer, up.url, "service"), TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	var replicas []*served
	for i := range 2 {
		s := startServe(t, dir, []string{"XDG_STATE_HOME=" + filepath.Join(dir, fmt.Sprintf("state%d", i)),
			"AGENTADAPTER_TOKEN_KEY=" + base64.StdEncoding.EncodeToString(raw)}, "--config", "gateway.json")
		lb.set(i, s.base)
		replicas = append(replicas, s)
	}
	a, b := replicas[0], replicas[1]

	aliceIn, bobIn := p.mint(t, "alice"), p.mint(t, "bob")
	linkOf := func(s *served, inbound, who string) string {
		t.Helper()
		msg, isErr := whoami(t, s.base, inbound)
		link := regexp.MustCompile(`https?://\S+/oauth/start\?state=[A-Za-z0-9%_-]+`).FindString(msg)
		if !isErr || !strings.HasPrefix(link, lb.srv.URL+"/oauth/start?") {
			t.Fatalf("%s's first call: %q, want the sign-in error with a link at the balancer", who, msg)
		}
		return link
	}
	refused := func(what string, status int, body string) {
		t.Helper()
		if status < 400 || !strings.Contains(body, "Sign-in failed") {
			t.Errorf("%s: %d %.300s, want the failure page", what, status, body)
		}
	}

	hits := func() (n [2]int64) { return [2]int64{lb.hits[0].Load(), lb.hits[1].Load()} }
	before := hits()
	aliceBrowser := testpeers.NewBrowser(t)
	_, _, cb := aliceBrowser.SignIn(linkOf(b, aliceIn, "alice"), "alice", callback, true)
	if cb == nil || !strings.HasPrefix(cb.String(), callback+"?") {
		t.Fatalf("alice's sign-in did not reach the callback: %v", cb)
	}
	if h := hits(); h[0] == before[0] || h[1] == before[1] {
		t.Fatalf("the balancer sent alice's start page and confirmation to one replica only: %v -> %v", before, h)
	}
	// Alice's callback in bob's browser, and a forged state, on each
	// replica.
	bobBrowser := testpeers.NewBrowser(t)
	for _, s := range replicas {
		status, body, _ := bobBrowser.Do(http.MethodGet, s.base+"/oauth/callback?"+cb.RawQuery, nil)
		refused("alice's callback in bob's browser", status, body)
		forged := cb.Query()
		forged.Set("state", "forged-"+forged.Get("state"))
		status, body, _ = aliceBrowser.Do(http.MethodGet, s.base+"/oauth/callback?"+forged.Encode(), nil)
		refused("a forged state", status, body)
	}
	if got, isErr := whoami(t, a.base, aliceIn); !isErr || strings.Contains(got, "upstream user") {
		t.Fatalf("alice before her callback: %q", got)
	}
	// Her own browser completes it, through the balancer.
	if status, body, _ := aliceBrowser.Do(http.MethodGet, cb.String(), nil); status != http.StatusOK || !strings.Contains(body, "is connected") {
		t.Fatalf("alice's callback: %d %.300s\nA:\n%s\nB:\n%s", status, body, a.out.String(), b.out.String())
	}
	for _, s := range replicas {
		status, body, _ := aliceBrowser.Do(http.MethodGet, s.base+"/oauth/callback?"+cb.RawQuery, nil)
		refused("a replay of alice's callback", status, body)
	}
	for name, s := range map[string]*served{"A": a, "B": b} {
		if got, isErr := whoami(t, s.base, aliceIn); isErr || got != "upstream user alice" {
			t.Errorf("alice on %s after her sign-in: %q", name, got)
		}
		if got, isErr := whoami(t, s.base, bobIn); !isErr || strings.Contains(got, "upstream user") {
			t.Errorf("bob on %s before his sign-in: %q, want the sign-in error", name, got)
		}
	}
	up.mu.Lock()
	subs := strings.Join(up.subs, ",")
	up.mu.Unlock()
	if strings.Contains(subs, "bob") {
		t.Errorf("the upstream saw bob before his sign-in: %q", subs)
	}

	// Bob signs in himself, completing through the balancer wherever it
	// sends him; then each is himself on both replicas.
	if status, body, _ := bobBrowser.SignIn(linkOf(a, bobIn, "bob"), "bob", callback, false); status != http.StatusOK || !strings.Contains(body, "is connected") {
		t.Fatalf("bob's sign-in: %d %.300s", status, body)
	}
	for name, s := range map[string]*served{"A": a, "B": b} {
		for who, in := range map[string]string{"alice": aliceIn, "bob": bobIn} {
			if got, isErr := whoami(t, s.base, in); isErr || got != "upstream user "+who {
				t.Errorf("%s on %s: %q", who, name, got)
			}
		}
	}
	// The shared ledger says, call by call, whose credential reached the
	// upstream.
	n := 0
	for r, err := range db.Ledger().Query(context.Background(), ledger.Query{Tool: "whoami"}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if r.Credential != "caller" || (r.Subject != "alice" && r.Subject != "bob") {
			t.Errorf("a whoami record: subject %q credential %q", r.Subject, r.Credential)
		}
	}
	if n < 8 {
		t.Errorf("%d whoami records in the shared ledger, want at least 8", n)
	}
	// Alice signs in to the console (replica A) with her MCP token: she
	// sees her connection and nothing an operator sees or decides.
	login, _ := a.do(t, frontReq{method: "POST", path: "/console/login", form: url.Values{"token": {aliceIn}}})
	if login.StatusCode != http.StatusSeeOther || login.Header.Get("Location") != "connections" {
		t.Fatalf("alice's console sign-in: %d %q", login.StatusCode, login.Header.Get("Location"))
	}
	aliceCookie := sessionCookie(t, login)
	res, page := a.do(t, frontReq{method: "GET", path: "/console/connections", cookie: aliceCookie})
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "<code>up</code>") || csrf == nil || strings.Contains(page, `href="approvals"`) {
		t.Fatalf("alice's connections page (no link to the operators' pages): %d\n%.2000s", res.StatusCode, page)
	}
	for _, path := range []string{"/console/approvals", "/console/ledger", "/console/servers", "/console/quarantine", "/console/edit"} {
		if res, _ := b.do(t, frontReq{method: "GET", path: path, cookie: aliceCookie}); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "connections" {
			t.Errorf("alice (a user) at %s: %d %q, want sent to her connections", path, res.StatusCode, res.Header.Get("Location"))
		}
	}
	for _, path := range []string{"/console/decide", "/console/standing", "/console/edit", "/console/servers", "/console/quarantine"} {
		if res, _ := a.do(t, frontReq{method: "POST", path: path, cookie: aliceCookie, form: url.Values{"csrf": {csrf[1]}}}); res.StatusCode != http.StatusForbidden {
			t.Errorf("alice (a user) posting %s: %d, want 403", path, res.StatusCode)
		}
	}
	for _, path := range []string{"/console/export", "/console/pending"} {
		if res, _ := a.do(t, frontReq{method: "GET", path: path, header: map[string]string{"Authorization": "Bearer " + aliceIn}}); res.StatusCode != http.StatusForbidden {
			t.Errorf("alice's bearer token at %s: %d, want 403", path, res.StatusCode)
		}
	}
	// The operator still reaches the approvals.
	if res, _ := a.do(t, frontReq{method: "GET", path: "/console/approvals", header: map[string]string{"Authorization": "Bearer ops-token-5f2c9a1e7b3d8f4a6c0e9d"}}); res.StatusCode != http.StatusOK {
		t.Errorf("the operator's approvals: %d", res.StatusCode)
	}
	// She disconnects on replica B (her session is shared): her calls stop
	// on both replicas; bob's go on.
	if res, body := b.do(t, frontReq{method: "POST", path: "/console/connections", cookie: aliceCookie, form: url.Values{"csrf": {csrf[1]}, "server": {"up"}}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("alice's disconnect: %d %.300s", res.StatusCode, body)
	}
	for name, s := range map[string]*served{"A": a, "B": b} {
		if got, isErr := whoami(t, s.base, aliceIn); !isErr || strings.Contains(got, "upstream user") {
			t.Errorf("alice on %s after disconnecting: %q", name, got)
		}
		if got, isErr := whoami(t, s.base, bobIn); isErr || got != "upstream user bob" {
			t.Errorf("bob on %s after alice disconnected: %q", name, got)
		}
	}
	if _, page := a.do(t, frontReq{method: "GET", path: "/console/connections", header: map[string]string{"Authorization": "Bearer " + bobIn}}); !strings.Contains(page, "<code>up</code>") {
		t.Errorf("bob's connections page:\n%.1000s", page)
	}

	// The store holds each user's token sealed, in its own row.
	if tok, err := db.Tokens().Token(context.Background(), token.Key{Server: "up", Subject: "bob", Issuer: p.issuer, Resource: up.url}); err != nil || tok == nil {
		t.Errorf("bob's row: %v", err)
	}
	if _, err := db.Tokens().Token(context.Background(), token.Key{Server: "up", Subject: "alice", Issuer: p.issuer, Resource: up.url}); err == nil {
		t.Error("alice's row after her disconnect")
	}
}
