package token_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/mcpadaptertest"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

func TestMemoryTokenStore(t *testing.T) {
	mcpadaptertest.TestTokenStore(t, func(t *testing.T) token.Store { return new(token.MemoryStore) })
}

func TestFileTokenStore(t *testing.T) {
	mcpadaptertest.TestTokenStore(t, func(t *testing.T) token.Store {
		return token.NewFileStore(filepath.Join(t.TempDir(), "sub", "tokens.json"))
	})
}

func TestFileTokenStorePermissionsAndReopen(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "tokens.json")
	key := token.Key{Server: "docs", Resource: "https://docs.example/mcp"}
	tok := &token.Token{AccessToken: "at-secret", RefreshToken: "rt-secret", TokenType: "Bearer"}
	if err := token.NewFileStore(path).PutToken(ctx, key, tok); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("%s has mode %v, want %v", p, got, want)
		}
	}
	// No temporary file is left beside it.
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(names) != 1 {
		t.Errorf("directory holds %v, want only the token file", names)
	}
	// Another store on the same file (a restarted process) sees the token.
	got, err := token.NewFileStore(path).Token(ctx, key)
	if err != nil || got.RefreshToken != "rt-secret" {
		t.Fatalf("reopened store: %v, %v", got, err)
	}
}

func TestFileTokenStoreCorruptFile(t *testing.T) {
	// A damaged file is a clear error that does not quote the file (it
	// holds secrets), not a panic or an empty store that would overwrite it.
	path := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(path, []byte(`[{"key":{"server":"a"},"token":{"access_token":"at-secret"`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := token.NewFileStore(path)
	_, err := s.Token(context.Background(), token.Key{Server: "a"})
	if err == nil || strings.Contains(err.Error(), "at-secret") {
		t.Fatalf("Token on a corrupt file = %v; want an error that does not quote the file", err)
	}
	if err := s.PutToken(context.Background(), token.Key{Server: "b"}, &token.Token{AccessToken: "x"}); err == nil {
		t.Fatal("PutToken overwrote a corrupt token file")
	}
}

func TestTokenRedacted(t *testing.T) {
	tok := token.Token{AccessToken: "at-secret", RefreshToken: "rt-secret", ClientSecret: "cs-secret",
		TokenType: "Bearer", Expiry: time.Now(), Scopes: []string{"read"}}
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	log.Info("token", "token", tok, "ptr", &tok)
	for _, s := range []string{
		fmt.Sprint(tok), fmt.Sprintf("%v %+v %#v %s", tok, tok, tok, tok),
		fmt.Sprint(&tok), fmt.Sprintf("%+v %#v", &tok, &tok), buf.String(),
	} {
		for _, secret := range []string{"at-secret", "rt-secret", "cs-secret"} {
			if strings.Contains(s, secret) {
				t.Errorf("a formatted token shows %s: %s", secret, s)
			}
		}
	}
}
