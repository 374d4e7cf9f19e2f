package token_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/mcpadaptertest"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

func newKey(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

func keyring(t *testing.T, keys ...[]byte) *token.Keyring {
	t.Helper()
	r, err := token.NewKeyring(keys...)
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

// noSecret fails if s shows any secret of the tokens of alice or bob.
func noSecret(t *testing.T, what, s string) {
	t.Helper()
	for _, who := range []string{"alice", "bob"} {
		for _, secret := range []string{"-at-secret", "-rt-secret", "-cs-secret"} {
			if strings.Contains(s, who+secret) {
				t.Errorf("%s shows %s%s", what, who, secret)
			}
		}
	}
}

func TestMemoryTokenIsolation(t *testing.T) {
	mcpadaptertest.TestTokenIsolation(t, func(t *testing.T) token.Store { return new(token.MemoryStore) })
}

func TestFileTokenIsolation(t *testing.T) {
	keys := keyring(t, newKey(t))
	mcpadaptertest.TestTokenIsolation(t, func(t *testing.T) token.Store {
		s, err := token.OpenFileStore(filepath.Join(t.TempDir(), "tokens.json"), token.StoreOptions{Keys: keys, PerUser: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestEncryptedFileTokenStore(t *testing.T) {
	keys := keyring(t, newKey(t))
	mcpadaptertest.TestTokenStore(t, func(t *testing.T) token.Store {
		s, err := token.OpenFileStore(filepath.Join(t.TempDir(), "tokens.json"), token.StoreOptions{Keys: keys})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// fileEntries reads a token file as JSON, behind the store's back.
func fileEntries(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var es []map[string]any
	if err := json.Unmarshal(b, &es); err != nil {
		t.Fatal(err)
	}
	return es
}

func writeEntries(t *testing.T, path string, es []map[string]any) {
	t.Helper()
	b, err := json.Marshal(es)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestFileStoreCiphertextOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tokens.json")
	s, err := token.OpenFileStore(path, token.StoreOptions{Keys: keyring(t, newKey(t)), PerUser: true})
	if err != nil {
		t.Fatal(err)
	}
	shared := token.Key{Server: "docs", Resource: "https://docs.example/mcp"}
	for k, who := range map[token.Key]string{aliceKey: "alice", bobKey: "bob", shared: "alice"} {
		if err := s.PutToken(ctx, k, secretToken(who)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "the token file", string(b))
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", st.Mode().Perm())
	}
}

func TestFileStoreTampered(t *testing.T) {
	ctx := context.Background()
	keys := keyring(t, newKey(t))
	setup := func(t *testing.T) (string, *token.FileStore) {
		path := filepath.Join(t.TempDir(), "tokens.json")
		s, err := token.OpenFileStore(path, token.StoreOptions{Keys: keys, PerUser: true})
		if err != nil {
			t.Fatal(err)
		}
		for k, who := range map[token.Key]string{aliceKey: "alice", bobKey: "bob"} {
			if err := s.PutToken(ctx, k, secretToken(who)); err != nil {
				t.Fatal(err)
			}
		}
		return path, s
	}
	indexOf := func(es []map[string]any, subject string) int {
		for i, e := range es {
			if e["key"].(map[string]any)["subject"] == subject {
				return i
			}
		}
		t.Fatalf("no entry for %s", subject)
		return -1
	}
	check := func(t *testing.T, s *token.FileStore, k token.Key) {
		t.Helper()
		tok, err := s.Token(ctx, k)
		if !errors.Is(err, token.ErrDecrypt) {
			t.Fatalf("Token(%s) = %v, %v; want ErrDecrypt", k.Subject, tok, err)
		}
		noSecret(t, "the error", err.Error())
	}
	t.Run("FlippedByte", func(t *testing.T) {
		path, s := setup(t)
		es := fileEntries(t, path)
		i := indexOf(es, "bob")
		sealed := []byte(es[i]["sealed"].(string))
		sealed[len(sealed)-5] ^= 1
		es[i]["sealed"] = string(sealed)
		writeEntries(t, path, es)
		check(t, s, bobKey)
		if _, err := s.Token(ctx, aliceKey); err != nil {
			t.Errorf("alice's untouched token: %v", err)
		}
	})
	t.Run("MovedToAnotherSubject", func(t *testing.T) {
		// alice's ciphertext copied into bob's entry: it is bound to
		// alice's key and does not decrypt as bob's.
		path, s := setup(t)
		es := fileEntries(t, path)
		es[indexOf(es, "bob")]["sealed"] = es[indexOf(es, "alice")]["sealed"]
		writeEntries(t, path, es)
		check(t, s, bobKey)
	})
	t.Run("PlaintextPerUser", func(t *testing.T) {
		// A per-user token written in the clear by someone with the file
		// is not accepted as bob's.
		path, s := setup(t)
		es := fileEntries(t, path)
		i := indexOf(es, "bob")
		delete(es[i], "sealed")
		es[i]["token"] = map[string]any{"access_token": "planted"}
		writeEntries(t, path, es)
		check(t, s, bobKey)
	})
	t.Run("WrongKey", func(t *testing.T) {
		path, _ := setup(t)
		other, err := token.OpenFileStore(path, token.StoreOptions{Keys: keyring(t, newKey(t)), PerUser: true})
		if err != nil {
			t.Fatal(err)
		}
		check(t, other, aliceKey)
	})
	t.Run("NoKey", func(t *testing.T) {
		path, _ := setup(t)
		tok, err := token.NewFileStore(path).Token(ctx, aliceKey)
		if !errors.Is(err, token.ErrNoKey) {
			t.Fatalf("Token without keys = %v, %v; want ErrNoKey", tok, err)
		}
	})
}

func TestRotation(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tokens.json")
	old, cur := newKey(t), newKey(t)
	open := func(keys ...[]byte) *token.FileStore {
		s, err := token.OpenFileStore(path, token.StoreOptions{Keys: keyring(t, keys...), PerUser: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := open(old).PutToken(ctx, aliceKey, secretToken("alice")); err != nil {
		t.Fatal(err)
	}
	// The new key first, the old one kept: alice's old token still reads,
	// bob's new one is written with the new key.
	s := open(cur, old)
	if tok, err := s.Token(ctx, aliceKey); err != nil || tok.AccessToken != "alice-at-secret" {
		t.Fatalf("alice's token after rotation: %v, %v", tok, err)
	}
	if err := s.PutToken(ctx, bobKey, secretToken("bob")); err != nil {
		t.Fatal(err)
	}
	ids := keyring(t, cur, old).KeyIDs()
	for _, e := range fileEntries(t, path) {
		sealed := e["sealed"].(string)
		want := ids[1]
		if e["key"].(map[string]any)["subject"] == "bob" {
			want = ids[0]
		}
		if !strings.HasPrefix(sealed, "aat1."+want+".") {
			t.Errorf("entry %v sealed with %.22s, want key id %s", e["key"], sealed, want)
		}
	}
	// Once alice's token is written again, the old key may go.
	if err := s.PutToken(ctx, aliceKey, secretToken("alice")); err != nil {
		t.Fatal(err)
	}
	s = open(cur)
	for _, k := range []token.Key{aliceKey, bobKey} {
		if _, err := s.Token(ctx, k); err != nil {
			t.Errorf("Token(%s) with the new key only: %v", k.Subject, err)
		}
	}
	// Without the key it needs, a token is ErrDecrypt, naming the key id.
	if err := open(old).PutToken(ctx, aliceKey, secretToken("alice")); err != nil {
		t.Fatal(err)
	}
	_, err := open(cur).Token(ctx, aliceKey)
	if !errors.Is(err, token.ErrDecrypt) || !strings.Contains(err.Error(), ids[1]) {
		t.Errorf("a token of a removed key: %v; want ErrDecrypt naming key %s", err, ids[1])
	}
}

func TestMigratedFileStore(t *testing.T) {
	// A file written before per-user tokens (no subject, no issuer, in
	// the clear) reads as the shared identity's, with or without keys, and
	// is encrypted when next written.
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tokens.json")
	old := `[{"key":{"server":"docs","resource":"https://docs.example/mcp"},"token":{"access_token":"alice-at-secret","refresh_token":"alice-rt-secret"}}]`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	shared := token.Key{Server: "docs", Resource: "https://docs.example/mcp"}
	if tok, err := token.NewFileStore(path).Token(ctx, shared); err != nil || tok.AccessToken != "alice-at-secret" {
		t.Fatalf("old entry without keys: %v, %v", tok, err)
	}
	s, err := token.OpenFileStore(path, token.StoreOptions{Keys: keyring(t, newKey(t)), PerUser: true})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Token(ctx, shared)
	if err != nil || tok.RefreshToken != "alice-rt-secret" {
		t.Fatalf("old entry with keys: %v, %v", tok, err)
	}
	if err := s.PutToken(ctx, shared, tok); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	noSecret(t, "the rewritten file", string(b))
}

func TestPerUserNeedsKeys(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := token.OpenFileStore(filepath.Join(dir, "t.json"), token.StoreOptions{PerUser: true}); !errors.Is(err, token.ErrNoKey) ||
		!strings.Contains(err.Error(), token.KeyEnv) || !strings.Contains(err.Error(), token.KeyFileEnv) {
		t.Errorf("OpenFileStore PerUser without keys: %v; want ErrNoKey saying what to set", err)
	}
	// A store without keys refuses a per-user token rather than storing it
	// in the clear, and leaves no file.
	path := filepath.Join(dir, "plain.json")
	if err := token.NewFileStore(path).PutToken(ctx, aliceKey, secretToken("alice")); !errors.Is(err, token.ErrNoKey) {
		t.Errorf("PutToken of a per-user token without keys: %v; want ErrNoKey", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused put left a file: %v", err)
	}
	// A per-user key must name its issuer.
	noIssuer := aliceKey
	noIssuer.Issuer = ""
	for _, s := range []token.Store{new(token.MemoryStore), token.NewFileStore(path)} {
		if err := s.PutToken(ctx, noIssuer, secretToken("alice")); err == nil {
			t.Errorf("%T: PutToken of a per-user key without an issuer succeeded", s)
		}
	}
}

func TestLoadKeyring(t *testing.T) {
	k1, k2 := newKey(t), newKey(t)
	want := keyring(t, k1, k2).KeyIDs()
	same := func(t *testing.T, r *token.Keyring, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if got := r.KeyIDs(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("KeyIDs = %v, want %v", got, want)
		}
	}
	t.Run("None", func(t *testing.T) {
		t.Setenv(token.KeyEnv, "")
		t.Setenv(token.KeyFileEnv, "")
		if _, err := token.LoadKeyring(token.KeyringOptions{}); !errors.Is(err, token.ErrNoKey) {
			t.Errorf("LoadKeyring with nothing set: %v; want ErrNoKey", err)
		}
	})
	t.Run("Env", func(t *testing.T) {
		t.Setenv(token.KeyFileEnv, "")
		t.Setenv(token.KeyEnv, base64.StdEncoding.EncodeToString(k1)+", "+base64.RawURLEncoding.EncodeToString(k2))
		r, err := token.LoadKeyring(token.KeyringOptions{})
		same(t, r, err)
	})
	file := func(t *testing.T, mode os.FileMode) string {
		p := filepath.Join(t.TempDir(), "keys")
		text := "# current first\n" + base64.StdEncoding.EncodeToString(k1) + "\n\n" + base64.StdEncoding.EncodeToString(k2) + "\n"
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("File", func(t *testing.T) {
		t.Setenv(token.KeyEnv, "")
		t.Setenv(token.KeyFileEnv, file(t, 0o600))
		r, err := token.LoadKeyring(token.KeyringOptions{})
		same(t, r, err)
		r, err = token.LoadKeyring(token.KeyringOptions{File: file(t, 0o400)})
		same(t, r, err)
	})
	t.Run("FileReadableByOthers", func(t *testing.T) {
		for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660} {
			_, err := token.LoadKeyring(token.KeyringOptions{File: file(t, mode)})
			if !errors.Is(err, token.ErrBadKey) || !strings.Contains(err.Error(), "chmod 600") {
				t.Errorf("key file mode %v: %v; want ErrBadKey saying chmod 600", mode, err)
			}
		}
	})
	t.Run("Bad", func(t *testing.T) {
		t.Setenv(token.KeyFileEnv, "")
		short := base64.StdEncoding.EncodeToString(k1[:16])
		for _, v := range []string{short, "not*base64*secretmaterial", base64.StdEncoding.EncodeToString(k1) + ",%%%secretmaterial"} {
			t.Setenv(token.KeyEnv, v)
			_, err := token.LoadKeyring(token.KeyringOptions{})
			if !errors.Is(err, token.ErrBadKey) {
				t.Errorf("LoadKeyring(%.10q...): %v; want ErrBadKey", v, err)
				continue
			}
			if strings.Contains(err.Error(), "secretmaterial") || strings.Contains(err.Error(), short) {
				t.Errorf("the error quotes the key: %v", err)
			}
		}
	})
}

func TestDecodeBounded(t *testing.T) {
	// Garbage under the ciphertext prefix is ErrDecrypt, never a panic or a
	// token.
	keys := keyring(t, newKey(t))
	id := keys.KeyIDs()[0]
	for _, b := range []string{"aat1.", "aat1." + id, "aat1." + id + ".", "aat1." + id + ".AAAA", "aat1." + id + ".!!!!",
		"aat1.nokey.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "aat1." + id + "." + strings.Repeat("A", 80)} {
		tok, err := token.Decode(keys, aliceKey, []byte(b))
		if !errors.Is(err, token.ErrDecrypt) {
			t.Errorf("Decode(%q) = %v, %v; want ErrDecrypt", b, tok, err)
		}
	}
	sealed, err := token.Encode(keys, aliceKey, secretToken("alice"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("secret")) {
		t.Errorf("Encode's output shows a secret: %s", sealed)
	}
	for _, k := range []token.Key{bobKey, {Server: "docs2", Subject: "alice", Issuer: aliceKey.Issuer, Resource: aliceKey.Resource},
		{Server: "docs", Subject: "alice", Issuer: "https://evil.example", Resource: aliceKey.Resource},
		{Server: "docs", Subject: "alice", Issuer: aliceKey.Issuer, Resource: "https://evil.example/mcp"}} {
		if _, err := token.Decode(keys, k, sealed); !errors.Is(err, token.ErrDecrypt) {
			t.Errorf("alice's ciphertext read under %+v: %v; want ErrDecrypt", k, err)
		}
	}
}

func BenchmarkEncodeDecode(b *testing.B) {
	k := make([]byte, 32)
	rand.Read(k)
	keys, err := token.NewKeyring(k)
	if err != nil {
		b.Fatal(err)
	}
	tok := secretToken("alice")
	for _, tt := range []struct {
		name string
		keys *token.Keyring
		key  token.Key
	}{{"Plain", nil, token.Key{Server: "docs", Resource: aliceKey.Resource}}, {"Sealed", keys, aliceKey}} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				enc, err := token.Encode(tt.keys, tt.key, tok)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := token.Decode(tt.keys, tt.key, enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSealLabel: Keyring.Seal's ciphertext opens only under its own label
// and with a key of the keyring; a token's ciphertext never opens as a
// sealed secret nor the other way round; a changed byte, a truncation, a
// plaintext or an unknown key fail with ErrDecrypt, naming no secret.
func TestSealLabel(t *testing.T) {
	old, cur := newKey(t), newKey(t)
	plain := []byte(`{"verifier":"alice-pkce-secret"}`)
	sealed := keyring(t, old).Seal("signin abc", plain)
	if bytes.Contains(sealed, []byte("alice-pkce-secret")) {
		t.Fatal("the ciphertext shows the secret")
	}
	// Rotation: a keyring holding the old key after the new one opens it.
	got, err := keyring(t, cur, old).Open("signin abc", sealed)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("Open after rotation: %q, %v", got, err)
	}
	if again := keyring(t, cur).Seal("signin abc", plain); bytes.Equal(again, sealed) {
		t.Error("two seals are equal: the nonce is not fresh")
	}
	tok, err := token.Encode(keyring(t, old), aliceKey, secretToken("alice"))
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)-3] ^= 'A' ^ 'B'
	for _, c := range []struct {
		name   string
		keys   *token.Keyring
		label  string
		sealed []byte
	}{
		{"another label", keyring(t, old), "signin abd", sealed},
		{"the empty label", keyring(t, old), "", sealed},
		{"a keyring without its key", keyring(t, cur), "signin abc", sealed},
		{"a changed byte", keyring(t, old), "signin abc", flipped},
		{"truncated", keyring(t, old), "signin abc", sealed[:len(sealed)/2]},
		{"the prefix alone", keyring(t, old), "signin abc", []byte("aat1.")},
		{"plaintext", keyring(t, old), "signin abc", plain},
		{"empty", keyring(t, old), "signin abc", nil},
		{"a token's ciphertext", keyring(t, old), "signin abc", tok},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.keys.Open(c.label, c.sealed)
			if !errors.Is(err, token.ErrDecrypt) || got != nil {
				t.Fatalf("Open: %q, %v; want ErrDecrypt", got, err)
			}
			if strings.Contains(err.Error(), "alice") || len(err.Error()) > 300 {
				t.Errorf("the error: %q", err)
			}
		})
	}
	// A sealed secret does not decode as a token under any key.
	if _, err := token.Decode(keyring(t, old), aliceKey, sealed); !errors.Is(err, token.ErrDecrypt) {
		t.Errorf("a sealed secret decoded as a token: %v", err)
	}
}
