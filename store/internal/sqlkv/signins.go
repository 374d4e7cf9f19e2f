package sqlkv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of [SignIns.Put].
const (
	// MaxSignInKey is the longest key or subject, in bytes.
	MaxSignInKey = 4096
	// MaxSignInValue is the largest value, in bytes: a sealed sign-in
	// takes a few kilobytes.
	MaxSignInValue = 64 << 10
	// MaxSignInsPerSubject is the largest bound Put takes.
	MaxSignInsPerSubject = 1000
)

// ErrSignInRow is wrapped by the errors of [SignIns.Put] for a key,
// subject, value or bound it refuses.
var ErrSignInRow = errors.New("sign-in row refused")

// Put adds the sign-in value under key for subject, from created until
// expires, and then forgets the oldest of subject's sign-ins past max (1
// to MaxSignInsPerSubject) and the expired ones. A key already held is an
// error: a sign-in's key is new.
func (s SignIns) Put(ctx context.Context, key, subject string, value []byte, created, expires time.Time, max int) error {
	switch {
	case !rowKey(key) || !rowKey(subject):
		return fmt.Errorf("%s: %w: the key and the subject are 1 to %d bytes of UTF-8 without NUL", s.t.d.Name, ErrSignInRow, MaxSignInKey)
	case len(value) == 0 || len(value) > MaxSignInValue:
		return fmt.Errorf("%s: %w: a value of %d bytes (1 to %d)", s.t.d.Name, ErrSignInRow, len(value), MaxSignInValue)
	case max < 1 || max > MaxSignInsPerSubject:
		return fmt.Errorf("%s: %w: a bound of %d (1 to %d)", s.t.d.Name, ErrSignInRow, max, MaxSignInsPerSubject)
	}
	if _, err := s.t.db.Exec(ctx, s.t.q.signInsPut, key, subject, value, created.UnixNano(), expires.UnixNano()); err != nil {
		return fmt.Errorf("%s: storing a sign-in: %w", s.t.d.Name, err)
	}
	if _, err := s.t.db.Exec(ctx, s.t.q.signInsTrim, subject, subject, s.t.d.Now().UnixNano(), max); err != nil {
		return fmt.Errorf("%s: trimming sign-ins: %w", s.t.d.Name, err)
	}
	return nil
}

// Get returns the sign-in under key and its claim ("" for none); ok is
// false when there is none or it has expired.
func (s SignIns) Get(ctx context.Context, key string) (value []byte, claim string, ok bool, err error) {
	err = s.t.db.QueryRow(ctx, s.t.q.signInsGet, key, s.t.d.Now().UnixNano()).Scan(&value, &claim)
	if errors.Is(err, s.t.d.NoRows) {
		return nil, "", false, nil
	}
	if err != nil {
		return nil, "", false, fmt.Errorf("%s: reading a sign-in: %w", s.t.d.Name, err)
	}
	return value, claim, true, nil
}

// Claim records claim (not empty) on the sign-in under key if it has none
// yet, and returns the sign-in; ok is false when there is none, it has
// expired or it is claimed already. Of racing claims, one wins.
func (s SignIns) Claim(ctx context.Context, key, claim string) (value []byte, ok bool, err error) {
	if claim == "" || !rowKey(claim) {
		return nil, false, fmt.Errorf("%s: %w: a claim is 1 to %d bytes of UTF-8 without NUL", s.t.d.Name, ErrSignInRow, MaxSignInKey)
	}
	err = s.t.db.QueryRow(ctx, s.t.q.signInsClaim, claim, key, s.t.d.Now().UnixNano()).Scan(&value)
	if errors.Is(err, s.t.d.NoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s: claiming a sign-in: %w", s.t.d.Name, err)
	}
	return value, true, nil
}

// Take deletes and returns the sign-in under key and its claim; ok is
// false when there is none or it has expired. Of racing takes, one gets
// it.
func (s SignIns) Take(ctx context.Context, key string) (value []byte, claim string, ok bool, err error) {
	err = s.t.db.QueryRow(ctx, s.t.q.signInsTake, key, s.t.d.Now().UnixNano()).Scan(&value, &claim)
	if errors.Is(err, s.t.d.NoRows) {
		return nil, "", false, nil
	}
	if err != nil {
		return nil, "", false, fmt.Errorf("%s: taking a sign-in: %w", s.t.d.Name, err)
	}
	return value, claim, true, nil
}

func rowKey(k string) bool {
	return k != "" && len(k) <= MaxSignInKey && utf8.ValidString(k) && !strings.ContainsRune(k, 0)
}
