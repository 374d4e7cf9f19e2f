package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
)

// A SessionKV is a table of login sessions that outlives the process: a
// store's own sessions table (the SQLite and PostgreSQL stores' Sessions
// method returns one). Keys are the SHA-256 hex of a cookie; values are
// opaque bytes. Unlike a result cache, it has a Delete and reports its
// failures, so a session it could not keep fails the sign-in instead of
// signing the operator out on the next request. Implementations must be
// safe for concurrent use.
type SessionKV interface {
	// Put stores value under key until expires, replacing what key held.
	Put(ctx context.Context, key string, value []byte, expires time.Time) error
	// Get returns the value under key; ok is false when there is none or
	// it has expired.
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)
	// Delete removes key at once; a missing key is not an error.
	Delete(ctx context.Context, key string) error
}

// KVSessions keeps sessions in kv, as JSON: consoles given the same
// durable kv (replicas, one console across restarts) share sign-ins and
// sign-outs, and clearing the result cache leaves them alone. Every error
// of kv is returned, so a session kv refuses fails the sign-in with a
// clear answer.
func KVSessions(kv SessionKV) SessionStore { return kvSessions{kv: kv} }

// UpgradeSessions is [KVSessions] for the release that moves sessions out
// of the result cache ([CacheSessions]): a session kv lacks is looked up
// in old, under the key CacheSessions gave it, and Delete ends it there
// as well. New sessions go to kv only. Sessions last hours, so the next
// release drops this; a console built on KVSessions alone signs in once
// more the operators CacheSessions had signed in.
func UpgradeSessions(kv SessionKV, old adapter.Cache) SessionStore {
	s := kvSessions{kv: kv}
	if old != nil {
		s.old = cacheSessions{old}
	}
	return s
}

type kvSessions struct {
	kv SessionKV
	// old holds the sessions of CacheSessions; nil for none. Legacy
	// sessions are read there, never copied: a sign-out on a replica
	// still running CacheSessions tombstones the only copy.
	old SessionStore
}

func (s kvSessions) Put(ctx context.Context, key string, v Session) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("console: encoding a session: %w", err)
	}
	if err := s.kv.Put(ctx, key, b, v.Expires); err != nil {
		return fmt.Errorf("console: storing a session: %w", err)
	}
	return nil
}

func (s kvSessions) Get(ctx context.Context, key string) (Session, bool, error) {
	b, ok, err := s.kv.Get(ctx, key)
	if err != nil {
		return Session{}, false, fmt.Errorf("console: reading a session: %w", err)
	}
	if !ok {
		if s.old != nil {
			return s.old.Get(ctx, key)
		}
		return Session{}, false, nil
	}
	var v Session
	if err := json.Unmarshal(b, &v); err != nil {
		return Session{}, false, fmt.Errorf("console: a stored session is unreadable: %w", err)
	}
	return v, true, nil
}

func (s kvSessions) Delete(ctx context.Context, key string) error {
	var errs []error
	if err := s.kv.Delete(ctx, key); err != nil {
		errs = append(errs, fmt.Errorf("console: ending a session: %w", err))
	}
	if s.old != nil {
		errs = append(errs, s.old.Delete(ctx, key))
	}
	return errors.Join(errs...)
}
