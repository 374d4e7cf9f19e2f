package sqlkv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of [Sessions.Put].
const (
	// MaxSessionKey is the longest key, in bytes.
	MaxSessionKey = 256
	// MaxSessionValue is the largest value, in bytes.
	MaxSessionValue = 16 << 10
)

// Put stores value under key until expires, replacing what key held. It
// refuses an empty key, one that is not UTF-8 or holds NUL, and keys and
// values over the limits (Dialect.ErrSessionTooLarge).
func (s Sessions) Put(ctx context.Context, key string, value []byte, expires time.Time) error {
	if err := s.check(key, value); err != nil {
		return err
	}
	if value == nil {
		value = []byte{}
	}
	if _, err := s.t.db.Exec(ctx, s.t.q.sessionsPut, key, value, expires.UnixNano()); err != nil {
		return fmt.Errorf("%s: storing a session: %w", s.t.d.Name, err)
	}
	return nil
}

// Get returns the value under key; ok is false when there is none or it
// has expired.
func (s Sessions) Get(ctx context.Context, key string) ([]byte, bool, error) {
	var b []byte
	err := s.t.db.QueryRow(ctx, s.t.q.sessionsGet, key, s.t.d.Now().UnixNano()).Scan(&b)
	if errors.Is(err, s.t.d.NoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s: reading a session: %w", s.t.d.Name, err)
	}
	return b, true, nil
}

// Delete removes key; a missing key is not an error.
func (s Sessions) Delete(ctx context.Context, key string) error {
	if _, err := s.t.db.Exec(ctx, s.t.q.sessionsDelete, key); err != nil {
		return fmt.Errorf("%s: deleting a session: %w", s.t.d.Name, err)
	}
	return nil
}

func (s Sessions) check(key string, value []byte) error {
	switch {
	case key == "" || !utf8.ValidString(key) || strings.ContainsRune(key, 0):
		return fmt.Errorf("%s: session key %q: want 1 to %d bytes of UTF-8 without NUL", s.t.d.Name, key, MaxSessionKey)
	case len(key) > MaxSessionKey:
		return fmt.Errorf("%w: a key of %d bytes (at most %d)", s.t.d.ErrSessionTooLarge, len(key), MaxSessionKey)
	case len(value) > MaxSessionValue:
		return fmt.Errorf("%w: a value of %d bytes (at most %d)", s.t.d.ErrSessionTooLarge, len(value), MaxSessionValue)
	}
	return nil
}
