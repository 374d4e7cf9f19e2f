package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
	"github.com/agentadapter/agentadapter/store/internal/migrations"
)

func testKeyring(t testing.TB) *token.Keyring {
	t.Helper()
	k := make([]byte, 32)
	rand.Read(k)
	r, err := token.NewKeyring(k)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var (
	aliceKey = token.Key{Server: "docs", Subject: "alice", Issuer: "https://as.example", Resource: "https://docs.example/mcp"}
	bobKey   = token.Key{Server: "docs", Subject: "bob", Issuer: "https://as.example", Resource: "https://docs.example/mcp"}
)

func secretToken(who string) *token.Token {
	return &token.Token{AccessToken: who + "-at-secret", RefreshToken: who + "-rt-secret", ClientSecret: who + "-cs-secret", TokenType: "Bearer"}
}

// TestTokensAtRest checks the encryption of the tokens table: it holds
// ciphertext only; a row changed, or moved to another subject's key,
// behind the store's back is [token.ErrDecrypt] (never a token); a store
// with another key reads none; one for per-user tokens without a key does
// not open; and none of the errors shows a secret.
func TestTokensAtRest(t *testing.T, k *Kit) {
	ctx := context.Background()
	keys := testKeyring(t)
	db := k.NewDB(t)
	s := k.open(t, db, Options{Tokens: token.StoreOptions{Keys: keys, PerUser: true}})
	shared := token.Key{Server: "docs", Resource: "https://docs.example/mcp"}
	for key, who := range map[token.Key]string{aliceKey: "alice", bobKey: "bob", shared: "service"} {
		if err := s.Tokens.PutToken(ctx, key, secretToken(who)); err != nil {
			t.Fatal(err)
		}
	}
	noSecret := func(what string, b []byte) {
		t.Helper()
		if bytes.Contains(b, []byte("-secret")) {
			t.Errorf("%s shows a secret: %q", what, b)
		}
	}
	row := func(subject string) []byte {
		t.Helper()
		var b []byte
		if err := s.QueryRow(ctx, "SELECT token FROM tokens WHERE subject = "+k.Param(1), subject).Scan(&b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, sub := range []string{"alice", "bob", ""} {
		noSecret("the tokens table", row(sub))
	}
	decryptErr := func(what string, key token.Key, st *Store) {
		t.Helper()
		tok, err := st.Tokens.Token(ctx, key)
		if !errors.Is(err, token.ErrDecrypt) {
			t.Errorf("%s: Token = %v, %v; want ErrDecrypt", what, tok, err)
			return
		}
		noSecret("the error", []byte(err.Error()))
	}
	set := func(subject string, b []byte) {
		t.Helper()
		if err := s.Exec(ctx, "UPDATE tokens SET token = "+k.Param(1)+" WHERE subject = "+k.Param(2), b, subject); err != nil {
			t.Fatal(err)
		}
	}
	alice, bob := row("alice"), row("bob")

	// Another store on the same database with another key reads nothing.
	other := k.open(t, db, Options{Tokens: token.StoreOptions{Keys: testKeyring(t), PerUser: true}})
	decryptErr("another key", aliceKey, other)

	flipped := bytes.Clone(bob)
	flipped[len(flipped)-3] ^= 1
	set("bob", flipped)
	decryptErr("a changed byte", bobKey, s)
	if _, err := s.Tokens.Token(ctx, aliceKey); err != nil {
		t.Errorf("alice's untouched token: %v", err)
	}
	set("bob", alice)
	decryptErr("alice's row copied into bob's", bobKey, s)
	set("bob", []byte(`{"access_token":"planted"}`))
	decryptErr("a per-user token planted in the clear", bobKey, s)
	set("bob", bob)
	if tok, err := s.Tokens.Token(ctx, bobKey); err != nil || tok.AccessToken != "bob-at-secret" {
		t.Errorf("bob's restored token: %v, %v", tok, err)
	}

	if _, err := k.Open(ctx, db, Options{Tokens: token.StoreOptions{PerUser: true}}); !errors.Is(err, token.ErrNoKey) ||
		!strings.Contains(err.Error(), token.KeyEnv) {
		t.Errorf("Open for per-user tokens without keys: %v; want ErrNoKey saying what to set", err)
	}
	plain := k.open(t, db, Options{})
	if err := plain.Tokens.PutToken(ctx, aliceKey, secretToken("alice")); !errors.Is(err, token.ErrNoKey) {
		t.Errorf("PutToken of a per-user token without keys: %v; want ErrNoKey", err)
	}
	if _, err := plain.Tokens.Token(ctx, aliceKey); !errors.Is(err, token.ErrNoKey) {
		t.Errorf("Token of an encrypted token without keys: %v; want ErrNoKey", err)
	}
}

// TestMigrateTokens opens a database of the schema before per-user tokens
// (version 8) holding a token: it reads as the shared identity's (subject
// and issuer empty), is encrypted when written again with keys, and per-user
// tokens beside it stay apart.
func TestMigrateTokens(t *testing.T, k *Kit, ms []migrations.Migration, exec func(db, stmt string) error, version func(v int) string) {
	ctx := context.Background()
	db := k.NewDB(t)
	for _, m := range ms[:8] {
		if err := exec(db, m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
	}
	if err := exec(db, version(8)); err != nil {
		t.Fatal(err)
	}
	if err := exec(db, `INSERT INTO tokens (server, resource, token, updated)
		VALUES ('docs', 'https://docs.example/mcp', '{"access_token":"service-at-secret","refresh_token":"service-rt-secret"}', 1)`); err != nil {
		t.Fatal(err)
	}
	s := k.open(t, db, Options{Tokens: token.StoreOptions{Keys: testKeyring(t), PerUser: true}})
	shared := token.Key{Server: "docs", Resource: "https://docs.example/mcp"}
	tok, err := s.Tokens.Token(ctx, shared)
	if err != nil || tok.AccessToken != "service-at-secret" || tok.RefreshToken != "service-rt-secret" {
		t.Fatalf("the migrated token: %v, %v", tok, err)
	}
	if err := s.Tokens.PutToken(ctx, aliceKey, secretToken("alice")); err != nil {
		t.Fatal(err)
	}
	if err := s.Tokens.PutToken(ctx, shared, tok); err != nil {
		t.Fatal(err)
	}
	var b []byte
	if err := s.QueryRow(ctx, "SELECT token FROM tokens WHERE subject = '' AND issuer = ''").Scan(&b); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("secret")) {
		t.Errorf("the shared token written again with keys is in the clear: %q", b)
	}
	var n int
	if err := s.QueryRow(ctx, "SELECT COUNT(*) FROM tokens").Scan(&n); err != nil || n != 2 {
		t.Errorf("tokens rows = %d, %v; want 2 (the shared one replaced, alice's)", n, err)
	}
	if got, err := s.Tokens.Token(ctx, aliceKey); err != nil || got.AccessToken != "alice-at-secret" {
		t.Errorf("alice's token beside the migrated one: %v, %v", got, err)
	}
}
