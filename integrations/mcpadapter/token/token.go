// Package token keeps the OAuth tokens an MCP client obtained, per server,
// caller, issuer and resource, so that a program restarted does not send
// its users through authorization again. It imports no MCP SDK and no OAuth library: a
// database store implements [Store] with this package alone.
//
//	store := token.NewFileStore(filepath.Join(dir, "myagent", "tokens.json"))
//	t, err := store.Token(ctx, token.Key{Server: "notes", Resource: "https://notes.example/mcp"})
//	if errors.Is(err, token.ErrNotFound) {
//		// authorize
//	}
//
// Everything in a [Token] is a secret: its String, GoString and LogValue
// methods redact it.
//
// A token either acts for the program itself (the shared, service
// identity: [Key.Subject] empty, as before per-user tokens) or for one
// caller (Subject set). Per-user tokens are stored encrypted: a store
// holds them only with a [Keyring] ([StoreOptions]), and refuses them
// without one ([ErrNoKey]).
package token

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// ErrNotFound is returned by a [Store] that holds no token for a key.
var ErrNotFound = errors.New("mcpadapter: no token stored")

// Key identifies a stored token: the server's name (Server.Name), the
// caller it acts for, the authorization server that issued it, and the
// resource it was issued for (the server's canonical URL). A token is only
// ever sent to the resource it is stored under, on behalf of its subject.
//
// Tokens stored before subjects and issuers were part of the key read as
// Subject "" and Issuer "": the shared identity's, issuer not recorded.
type Key struct {
	Server string `json:"server"`
	// Subject is the caller the token acts for, as the inbound
	// authentication verified it (a token's sub, a console login); empty
	// is the shared, service identity.
	Subject string `json:"subject,omitempty"`
	// Issuer is the authorization server's issuer identifier (its
	// metadata's issuer). A per-user token must name it: the same resource
	// under another issuer is another credential. Empty is allowed for the
	// shared identity only (its tokens stored before issuers were
	// recorded).
	Issuer   string `json:"issuer,omitempty"`
	Resource string `json:"resource"`
}

// maxKeyField bounds each field of a Key: a name, a subject, a URL.
const maxKeyField = 4096

// Check reports whether k may key a token: a per-user key (Subject set)
// names its Issuer, and no field is longer than 4096 bytes.
func (k Key) Check() error {
	for _, f := range []string{k.Server, k.Subject, k.Issuer, k.Resource} {
		if len(f) > maxKeyField {
			return fmt.Errorf("mcpadapter: token key field longer than %d bytes", maxKeyField)
		}
	}
	if k.Subject != "" && k.Issuer == "" {
		return errors.New("mcpadapter: a per-user token key (Subject set) must name its Issuer")
	}
	return nil
}

// Token is an OAuth grant obtained for one server: the access token and
// what is needed to refresh it in a later process without the user.
//
// Its String, GoString and LogValue methods redact every secret, so that a
// token printed or logged by mistake shows only its type, expiry and scopes.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	// Scopes are the scopes granted, if the server said.
	Scopes []string `json:"scopes,omitempty"`
	// TokenURL, ClientID and ClientSecret are the token endpoint and the
	// client the token was issued to: what a refresh needs.
	TokenURL     string `json:"token_url,omitempty"`
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
}

// String describes the token without its secrets.
func (t Token) String() string {
	return fmt.Sprintf("Token{type=%s expiry=%s scopes=%v access=%s refresh=%s}",
		t.TokenType, t.Expiry.Format(time.RFC3339), t.Scopes, redact(t.AccessToken), redact(t.RefreshToken))
}

// GoString is String, so that %#v redacts too.
func (t Token) GoString() string { return t.String() }

// LogValue lets slog log a token without its secrets.
func (t Token) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("type", t.TokenType),
		slog.Time("expiry", t.Expiry),
		slog.Any("scopes", t.Scopes),
		slog.Bool("refreshable", t.RefreshToken != ""),
	)
}

func redact(s string) string {
	if s == "" {
		return "none"
	}
	return "REDACTED"
}

func (t *Token) clone() *Token {
	c := *t
	c.Scopes = slices.Clone(t.Scopes)
	return &c
}

// A Store keeps OAuth tokens per [Key] (server, subject, issuer,
// resource), so that a program restarted does not send its users through
// authorization again. A token is returned only for the very key it was
// put under: never another subject's or another issuer's.
// Implementations must be safe for concurrent use, return copies (a caller
// may modify what it gets), and treat everything in a Token as a secret:
// never log it; one holding per-user tokens stores them encrypted ([Encode],
// [Decode]). mcpadaptertest.TestTokenStore checks an implementation, and
// mcpadaptertest.TestTokenIsolation its per-user isolation.
type Store interface {
	// Token returns the token stored under key, or an error wrapping
	// ErrNotFound.
	Token(ctx context.Context, key Key) (*Token, error)
	// PutToken stores t under key, replacing any token there.
	PutToken(ctx context.Context, key Key, t *Token) error
	// DeleteToken removes the token stored under key; removing an absent
	// token is not an error.
	DeleteToken(ctx context.Context, key Key) error
}

// MemoryStore is a [Store] in memory: tokens last as long as the
// process. The zero value is ready to use. It holds per-user tokens in the
// clear: memory is not at rest.
type MemoryStore struct {
	mu     sync.Mutex
	tokens map[Key]*Token
}

// Token implements [Store].
func (s *MemoryStore) Token(_ context.Context, key Key) (*Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[key]
	if !ok {
		return nil, ErrNotFound
	}
	return t.clone(), nil
}

// PutToken implements [Store].
func (s *MemoryStore) PutToken(_ context.Context, key Key, t *Token) error {
	if t == nil {
		return errors.New("mcpadapter: PutToken with a nil token")
	}
	if err := key.Check(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tokens == nil {
		s.tokens = map[Key]*Token{}
	}
	s.tokens[key] = t.clone()
	return nil
}

// DeleteToken implements [Store].
func (s *MemoryStore) DeleteToken(_ context.Context, key Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tokens, key)
	return nil
}

// FileStore is a [Store] in one JSON file, readable and writable by
// its owner only (0600, in a directory created 0700). Every change rewrites
// the file atomically (a temporary file renamed over it), so a crash leaves
// the old or the new contents, never a mix. It serialises the writers of
// one process; processes sharing a file must not write at the same time.
//
// Opened with keys ([OpenFileStore]) it encrypts every token it writes;
// entries written unencrypted before are still read (the shared
// identity's) and encrypted when next written.
type FileStore struct {
	path string
	keys *Keyring
	mu   sync.Mutex
}

// NewFileStore returns a store kept in the file at path, which need
// not exist yet, without encryption keys: it keeps the shared identity's
// tokens and refuses per-user ones ([ErrNoKey]).
func NewFileStore(path string) *FileStore {
	return &FileStore{path: path}
}

// OpenFileStore returns a store kept in the file at path, which need not
// exist yet, encrypting with opts.Keys. It fails with [ErrNoKey] when
// opts.PerUser is set without keys.
func OpenFileStore(path string, opts StoreOptions) (*FileStore, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	return &FileStore{path: path, keys: opts.Keys}, nil
}

// A fileEntry holds a token in the clear (Token, as before encryption) or
// encrypted (Sealed, what [Encode] returns).
type fileEntry struct {
	Key    Key    `json:"key"`
	Token  *Token `json:"token,omitempty"`
	Sealed string `json:"sealed,omitempty"`
}

func (s *FileStore) entryToken(e fileEntry) (*Token, error) {
	if e.Sealed != "" {
		return Decode(s.keys, e.Key, []byte(e.Sealed))
	}
	if e.Token == nil {
		return nil, ErrNotFound
	}
	if e.Key.Subject != "" {
		return nil, fmt.Errorf("%w: a per-user token is stored unencrypted", ErrDecrypt)
	}
	return e.Token, nil
}

// maxTokenFile bounds what is read: a token file is a few kilobytes.
const maxTokenFile = 16 << 20

func (s *FileStore) load() ([]fileEntry, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > maxTokenFile {
		return nil, fmt.Errorf("mcpadapter: token file %s is larger than %d bytes", s.path, maxTokenFile)
	}
	var entries []fileEntry
	if err := json.NewDecoder(f).Decode(&entries); err != nil {
		// The decoder's error may quote the file: it holds secrets.
		return nil, fmt.Errorf("mcpadapter: token file %s is not valid", s.path)
	}
	return entries, nil
}

func (s *FileStore) save(entries []fileEntry) error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(entries)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tokens-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return err
	}
	ok = true
	return nil
}

// Token implements [Store].
func (s *FileStore) Token(_ context.Context, key Key) (*Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := s.load()
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Key == key {
			return s.entryToken(e)
		}
	}
	return nil, ErrNotFound
}

// PutToken implements [Store].
func (s *FileStore) PutToken(_ context.Context, key Key, t *Token) error {
	if t == nil {
		return errors.New("mcpadapter: PutToken with a nil token")
	}
	e := fileEntry{Key: key, Token: t}
	if s.keys != nil || key.Subject != "" {
		b, err := Encode(s.keys, key, t)
		if err != nil {
			return err
		}
		e = fileEntry{Key: key, Sealed: string(b)}
	} else if err := key.Check(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := s.load()
	if err != nil {
		return err
	}
	entries = slices.DeleteFunc(entries, func(e fileEntry) bool { return e.Key == key })
	entries = append(entries, e)
	return s.save(entries)
}

// DeleteToken implements [Store].
func (s *FileStore) DeleteToken(_ context.Context, key Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := s.load()
	if err != nil {
		return err
	}
	n := len(entries)
	entries = slices.DeleteFunc(entries, func(e fileEntry) bool { return e.Key == key })
	if len(entries) == n {
		return nil
	}
	return s.save(entries)
}
