package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
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
var ErrSessionTooLarge = errors.New("pgstore: session too large")

// Sessions is a table of console login sessions (a console.SessionKV,
// for console.KVSessions), shared by every replica on the database and
// apart from cached results: clearing the cache signs nobody out. Rows
// past their expiry are never returned; the sweep deletes them. Every
// database error is returned.
type Sessions struct {
	s *Store
}

// Sessions returns the store's login sessions.
func (s *Store) Sessions() *Sessions { return &Sessions{s: s} }

// Put stores value under key until expires, replacing what key held. It
// refuses an empty key, one that is not UTF-8 or holds NUL, and keys and
// values over the limits ([ErrSessionTooLarge]).
func (t *Sessions) Put(ctx context.Context, key string, value []byte, expires time.Time) error {
	if err := checkSession(key, value); err != nil {
		return err
	}
	if value == nil {
		value = []byte{}
	}
	if _, err := t.s.pool.Exec(ctx, `INSERT INTO console_sessions (key, value, expires) VALUES ($1, $2, $3)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
		key, value, expires.UnixNano()); err != nil {
		return fmt.Errorf("pgstore: storing a session: %w", err)
	}
	return nil
}

// Get returns the value under key; ok is false when there is none or it
// has expired.
func (t *Sessions) Get(ctx context.Context, key string) ([]byte, bool, error) {
	var b []byte
	err := t.s.pool.QueryRow(ctx, "SELECT value FROM console_sessions WHERE key = $1 AND expires > $2", key, t.s.now().UnixNano()).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("pgstore: reading a session: %w", err)
	}
	return b, true, nil
}

// Delete removes key for every replica at once; a missing
// key is not an error.
func (t *Sessions) Delete(ctx context.Context, key string) error {
	if _, err := t.s.pool.Exec(ctx, "DELETE FROM console_sessions WHERE key = $1", key); err != nil {
		return fmt.Errorf("pgstore: deleting a session: %w", err)
	}
	return nil
}

func checkSession(key string, value []byte) error {
	switch {
	case key == "" || !utf8.ValidString(key) || strings.ContainsRune(key, 0):
		return fmt.Errorf("pgstore: session key %q: want 1 to %d bytes of UTF-8 without NUL", key, MaxSessionKey)
	case len(key) > MaxSessionKey:
		return fmt.Errorf("%w: a key of %d bytes (at most %d)", ErrSessionTooLarge, len(key), MaxSessionKey)
	case len(value) > MaxSessionValue:
		return fmt.Errorf("%w: a value of %d bytes (at most %d)", ErrSessionTooLarge, len(value), MaxSessionValue)
	}
	return nil
}
