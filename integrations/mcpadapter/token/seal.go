package token

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// The errors of encryption at rest. None of them quotes a token or a key.
var (
	// ErrNoKey is returned when a store must encrypt or decrypt a token
	// and has no keys: a store for per-user tokens opened without a
	// [Keyring], a per-user token put into a store without one, or an
	// encrypted token read by a store without one. Set
	// AGENTADAPTER_TOKEN_KEY or AGENTADAPTER_TOKEN_KEY_FILE (see
	// [LoadKeyring]).
	ErrNoKey = errors.New("mcpadapter: no token encryption key: set AGENTADAPTER_TOKEN_KEY (base64 of 32 random bytes) or AGENTADAPTER_TOKEN_KEY_FILE (a file of such keys, mode 0600)")
	// ErrDecrypt is returned for a stored token that cannot be decrypted:
	// its key is not in the [Keyring], the ciphertext was changed or
	// moved to another key's row, or a per-user token is stored
	// unencrypted. The store's contents are never returned as a token.
	ErrDecrypt = errors.New("mcpadapter: stored token cannot be decrypted")
	// ErrBadKey is returned by [NewKeyring] and [LoadKeyring] for key
	// material that is not usable: not 32 bytes, not base64, or a key file
	// that others may read.
	ErrBadKey = errors.New("mcpadapter: bad token encryption key")
)

// The environment variables [LoadKeyring] reads.
const (
	// KeyEnv holds the keys themselves, base64 (standard or URL
	// alphabet), separated by commas, the current key first.
	KeyEnv = "AGENTADAPTER_TOKEN_KEY"
	// KeyFileEnv names a file of keys, one a line, the current key first;
	// blank lines and lines starting with # are skipped. Only its owner
	// may read it (mode 0600 or 0400).
	KeyFileEnv = "AGENTADAPTER_TOKEN_KEY_FILE"
)

// sealPrefix opens every encrypted token: a version, then the key id and
// the base64url nonce and ciphertext, separated by dots. A stored token
// without it is the plaintext JSON of the stores before encryption.
const sealPrefix = "aat1."

// Keyring holds the AES-256 keys that encrypt tokens at rest (AES-GCM).
// The first key encrypts every token written; every key decrypts. Each
// ciphertext carries the id of its key (a hash of the key, not the key),
// so that rotation is: put the new key first, keep the old ones after it
// until every token has been written again (a refresh rewrites a token),
// then remove them. A Keyring is immutable and safe for concurrent use.
type Keyring struct {
	ids   []string
	aeads map[string]cipher.AEAD
}

// NewKeyring returns a keyring of keys, each 32 random bytes, the
// current one first. It fails with an error wrapping [ErrBadKey].
func NewKeyring(keys ...[]byte) (*Keyring, error) {
	if len(keys) == 0 {
		return nil, ErrNoKey
	}
	r := &Keyring{aeads: map[string]cipher.AEAD{}}
	for i, k := range keys {
		if len(k) != 32 {
			return nil, fmt.Errorf("%w: key %d is %d bytes, not 32", ErrBadKey, i+1, len(k))
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadKey, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadKey, err)
		}
		id := keyID(k)
		if _, dup := r.aeads[id]; dup {
			continue
		}
		r.ids = append(r.ids, id)
		r.aeads[id] = aead
	}
	return r, nil
}

// keyID names a key in its ciphertexts: the first 8 bytes of a hash of it.
func keyID(k []byte) string {
	h := sha256.Sum256(append([]byte("agentadapter token key id\x00"), k...))
	return hex.EncodeToString(h[:8])
}

// KeyIDs returns the ids of the keyring's keys, the current one first: what
// a stored ciphertext names, to tell which key it needs. They reveal
// nothing of the keys.
func (r *Keyring) KeyIDs() []string { return append([]string(nil), r.ids...) }

// KeyringOptions say where [LoadKeyring] finds the keys. The zero value
// reads the environment.
type KeyringOptions struct {
	// File is a file of keys, as [KeyFileEnv] names one; empty means the
	// file named by KeyFileEnv, or else the keys in KeyEnv.
	File string
}

// maxKeyFile bounds a key file: a few keys of 44 characters.
const maxKeyFile = 64 << 10

// LoadKeyring returns the keys of opts.File, or of the file $KeyFileEnv
// names, or of $KeyEnv. With none of them it returns [ErrNoKey], whose
// message says what to set. A key file that its group or others may read
// or write is refused ([ErrBadKey]): it would let them read every token.
func LoadKeyring(opts KeyringOptions) (*Keyring, error) {
	file := opts.File
	if file == "" {
		file = os.Getenv(KeyFileEnv)
	}
	var text string
	var sep func(rune) bool
	switch {
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadKey, err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadKey, err)
		}
		if m := st.Mode(); !m.IsRegular() || m.Perm()&0o077 != 0 {
			return nil, fmt.Errorf("%w: key file %s has mode %v: allow its owner only (chmod 600)", ErrBadKey, file, m)
		}
		b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadKey, err)
		}
		if len(b) > maxKeyFile {
			return nil, fmt.Errorf("%w: key file %s is larger than %d bytes", ErrBadKey, file, maxKeyFile)
		}
		text, sep = string(b), func(r rune) bool { return r == '\n' || r == '\r' }
	case os.Getenv(KeyEnv) != "":
		text, sep = os.Getenv(KeyEnv), func(r rune) bool { return r == ',' }
	default:
		return nil, ErrNoKey
	}
	var keys [][]byte
	for _, line := range strings.FieldsFunc(text, sep) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, err := decodeKey(line)
		if err != nil {
			// The error names the key's position, never its text.
			return nil, fmt.Errorf("%w: key %d is not base64", ErrBadKey, len(keys)+1)
		}
		keys = append(keys, k)
	}
	return NewKeyring(keys...)
}

func decodeKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil {
			return k, nil
		}
	}
	return nil, errors.New("not base64")
}

// aad binds a ciphertext to the key it is stored under: moved to another
// subject's, issuer's, resource's or server's row it does not decrypt.
func aad(k Key) []byte {
	b, _ := json.Marshal([4]string{k.Server, k.Subject, k.Issuer, k.Resource})
	return append([]byte("agentadapter token v1\x00"), b...)
}

func (r *Keyring) seal(k Key, plain []byte) []byte { return r.sealAAD(aad(k), plain) }

func (r *Keyring) open(k Key, b []byte) ([]byte, error) {
	return r.openAAD(aad(k), b, "wrong key, or the ciphertext was changed or moved from another token's row")
}

// labelAAD binds a ciphertext of [Keyring.Seal] to its label; its prefix
// differs from a token's, so neither opens as the other.
func labelAAD(label string) []byte {
	return append([]byte("agentadapter sealed v1\x00"), label...)
}

// Seal encrypts plain with the keyring's current key, bound to label:
// [Keyring.Open] with another label, or a token's store, does not decrypt
// it. It is how secrets other than tokens (a sign-in in progress, under
// its key) are kept at rest with the same keys and the same rotation.
func (r *Keyring) Seal(label string, plain []byte) []byte { return r.sealAAD(labelAAD(label), plain) }

// Open decrypts what [Keyring.Seal] encrypted under label, with whichever
// key of the keyring sealed it. It fails with an error wrapping
// [ErrDecrypt] for another label, a key the keyring does not hold, or a
// changed ciphertext.
func (r *Keyring) Open(label string, sealed []byte) ([]byte, error) {
	if !bytes.HasPrefix(sealed, []byte(sealPrefix)) {
		return nil, fmt.Errorf("%w: not sealed", ErrDecrypt)
	}
	return r.openAAD(labelAAD(label), sealed, "wrong key or label, or the ciphertext was changed")
}

func (r *Keyring) sealAAD(aad, plain []byte) []byte {
	id := r.ids[0]
	aead := r.aeads[id]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	rand.Read(nonce) // never fails (crypto/rand)
	ct := aead.Seal(nonce, nonce, plain, aad)
	return []byte(sealPrefix + id + "." + base64.RawURLEncoding.EncodeToString(ct))
}

// openAAD opens b, sealed under aad; failed says why a ciphertext that
// parses does not open.
func (r *Keyring) openAAD(aad, b []byte, failed string) ([]byte, error) {
	rest := string(b[len(sealPrefix):])
	id, enc, ok := strings.Cut(rest, ".")
	if !ok {
		return nil, fmt.Errorf("%w: malformed ciphertext", ErrDecrypt)
	}
	aead, ok := r.aeads[id]
	if !ok {
		return nil, fmt.Errorf("%w: it was encrypted with key %.16q, which the keyring does not hold", ErrDecrypt, id)
	}
	ct, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil || len(ct) < aead.NonceSize()+aead.Overhead() {
		return nil, fmt.Errorf("%w: malformed ciphertext", ErrDecrypt)
	}
	plain, err := aead.Open(nil, ct[:aead.NonceSize()], ct[aead.NonceSize():], aad)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrDecrypt, failed)
	}
	return plain, nil
}

// Encode returns what a store keeps for t under k: t encrypted with the
// current key of keys, or, with keys nil, t's JSON as stores wrote it
// before encryption. A per-user token (k.Subject set) is never stored
// unencrypted: without keys it is [ErrNoKey]. Stores outside this package
// use Encode and [Decode] to keep tokens as these stores do.
func Encode(keys *Keyring, k Key, t *Token) ([]byte, error) {
	if t == nil {
		return nil, errors.New("mcpadapter: PutToken with a nil token")
	}
	if err := k.Check(); err != nil {
		return nil, err
	}
	if keys == nil && k.Subject != "" {
		return nil, ErrNoKey
	}
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("mcpadapter: encoding token: %w", err)
	}
	if keys == nil {
		return b, nil
	}
	return keys.seal(k, b), nil
}

// Decode returns the token a store kept under k as [Encode] wrote it. An
// encrypted token needs keys ([ErrNoKey] without them, [ErrDecrypt] with
// the wrong ones); an unencrypted one is read only for the shared identity
// (k.Subject empty): a per-user token stored in the clear was not written
// by a store, and is [ErrDecrypt].
func Decode(keys *Keyring, k Key, b []byte) (*Token, error) {
	var plain []byte
	switch {
	case bytes.HasPrefix(b, []byte(sealPrefix)):
		if keys == nil {
			return nil, fmt.Errorf("%w (the stored token is encrypted)", ErrNoKey)
		}
		p, err := keys.open(k, b)
		if err != nil {
			return nil, err
		}
		plain = p
	case k.Subject != "":
		return nil, fmt.Errorf("%w: a per-user token is stored unencrypted", ErrDecrypt)
	default:
		plain = b
	}
	var t Token
	if err := json.Unmarshal(plain, &t); err != nil {
		// The error of encoding/json never quotes the token's text.
		return nil, fmt.Errorf("mcpadapter: stored token unreadable: %w", err)
	}
	return &t, nil
}

// StoreOptions configure how a store keeps tokens at rest. The zero value
// keeps the shared identity's tokens as they are (unencrypted, as before
// per-user tokens) and refuses per-user ones.
type StoreOptions struct {
	// Keys encrypt every token written and decrypt every token read;
	// tokens written unencrypted before Keys were set are still read (the
	// shared identity's only), and encrypted when next written.
	Keys *Keyring
	// PerUser says the store is to hold per-user tokens (Key.Subject
	// set): opening it without Keys fails with [ErrNoKey].
	PerUser bool
}

// Check returns [ErrNoKey] for options that ask for per-user tokens
// without keys: a store opened so refuses to start.
func (o StoreOptions) Check() error {
	if o.PerUser && o.Keys == nil {
		return ErrNoKey
	}
	return nil
}
