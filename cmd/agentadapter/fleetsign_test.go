package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
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
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	up := startExchangeUpstream(t, key)
	p := startExchangeProvider(t, key, up.url, 600)
	up.issuer.Store(&p.issuer)

	dir := t.TempDir()
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err := os.WriteFile(filepath.Join(dir, "idp.pem"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
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
	whoami := func(base, inbound string) (string, bool) {
		t.Helper()
		cs, err := connectBearer(t, base+"/mcp", inbound)
		if err != nil {
			t.Fatalf("connecting: %v", err)
		}
		defer cs.Close()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("CallTool: %v", err)
		}
		return text(res), res.IsError
	}
	// No token yet: alice is told to sign in, on either replica.
	if got, isErr := whoami(b.base, aliceIn); !isErr || !strings.Contains(strings.ToLower(got), "sign") {
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
		if got, isErr := whoami(s.base, aliceIn); isErr || got != "upstream user alice" {
			t.Errorf("alice on %s: %q\n%s", name, got, s.out.String())
		}
		if got, isErr := whoami(s.base, bobIn); !isErr || !strings.Contains(strings.ToLower(got), "sign") || strings.Contains(got, "upstream user") || strings.Contains(got, upTok) {
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
		if got, isErr := whoami(s.base, aliceIn); !isErr || strings.Contains(got, "upstream user") {
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
