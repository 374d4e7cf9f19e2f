package sqlitestore

import (
	"context"
	"errors"
	"time"

	"github.com/agentadapter/agentadapter/store/internal/sqlkv"
)

// Limits of [Sessions.Put].
const (
	// MaxSessionKey is the longest key, in bytes.
	MaxSessionKey = 256
	// MaxSessionValue is the largest value, in bytes: a console session
	// takes a few hundred.
	MaxSessionValue = 16 << 10
)

// ErrSessionTooLarge is returned by [Sessions.Put] for a key or value over
// MaxSessionKey or MaxSessionValue.
var ErrSessionTooLarge = errors.New("sqlitestore: session too large")

// Sessions is a table of console login sessions (a console.SessionKV,
// for console.KVSessions), shared by every Store open on the database and
// apart from cached results: clearing the cache signs nobody out. Rows
// past their expiry are never returned; the sweep deletes them. Every
// database error is returned.
type Sessions struct {
	t sqlkv.Sessions
}

// Sessions returns the store's login sessions.
func (s *Store) Sessions() *Sessions { return &Sessions{t: s.kv.Sessions()} }

// Put stores value under key until expires, replacing what key held. It
// refuses an empty key, one that is not UTF-8 or holds NUL, and keys and
// values over the limits ([ErrSessionTooLarge]).
func (t *Sessions) Put(ctx context.Context, key string, value []byte, expires time.Time) error {
	return t.t.Put(ctx, key, value, expires)
}

// Get returns the value under key; ok is false when there is none or it
// has expired.
func (t *Sessions) Get(ctx context.Context, key string) ([]byte, bool, error) {
	return t.t.Get(ctx, key)
}

// Delete removes key for every Store on the database at once; a missing
// key is not an error.
func (t *Sessions) Delete(ctx context.Context, key string) error {
	return t.t.Delete(ctx, key)
}
