package sqlitestore

import (
	"context"
	"time"

	"github.com/agentadapter/agentadapter/store/internal/sqlkv"
)

// SignIns is the table of per-user sign-ins in progress, shared by
// every Store open on the database: a sign-in begun at one replica completes at the callback
// reaching another. Its values are opaque to the store (the gateway seals
// them); claiming and taking a sign-in are atomic, so that of racing
// replicas one wins. Rows past their expiry are never returned; the sweep
// deletes them. Every database error is returned.
type SignIns struct {
	t sqlkv.SignIns
}

// SignIns returns the store's sign-ins in progress.
func (s *Store) SignIns() *SignIns { return &SignIns{t: s.kv.SignIns()} }

// ErrSignInRow is wrapped by the errors of [SignIns.Put] and
// [SignIns.Claim] for a key, subject, value, bound or claim they refuse:
// keys, subjects and claims are 1 to 4096 bytes of UTF-8 without NUL,
// values 1 byte to 64 KiB, bounds 1 to 1000.
var ErrSignInRow = sqlkv.ErrSignInRow

// Put adds the sign-in value under key for subject, from created until
// expires, then forgets the oldest of subject's sign-ins past max and the
// expired ones. A key already held is an error.
func (t *SignIns) Put(ctx context.Context, key, subject string, value []byte, created, expires time.Time, max int) error {
	return t.t.Put(ctx, key, subject, value, created, expires, max)
}

// Get returns the sign-in under key and its claim ("" for none); ok is
// false when there is none or it has expired.
func (t *SignIns) Get(ctx context.Context, key string) (value []byte, claim string, ok bool, err error) {
	return t.t.Get(ctx, key)
}

// Claim records claim on the sign-in under key if it has none yet and
// returns the sign-in; ok is false when there is none, it has expired or
// it is claimed already.
func (t *SignIns) Claim(ctx context.Context, key, claim string) (value []byte, ok bool, err error) {
	return t.t.Claim(ctx, key, claim)
}

// Take deletes and returns the sign-in under key and its claim; ok is
// false when there is none or it has expired. Only one caller ever gets
// a sign-in.
func (t *SignIns) Take(ctx context.Context, key string) (value []byte, claim string, ok bool, err error) {
	return t.t.Take(ctx, key)
}
