package console

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
)

// Session is one operator's login session.
type Session struct {
	// Operator is who signed in.
	Operator string `json:"operator"`
	// CSRF is the token the session's forms carry.
	CSRF string `json:"csrf"`
	// Expires ends the session.
	Expires time.Time `json:"expires"`
	// Credential is the hex SHA-256 of the token the session was opened
	// with (empty for an anonymous session): every request asks
	// Options.Revalidate whether it is still an operator's.
	Credential string `json:"credential,omitempty"`
	// User marks a session of Options.Users: the Connections page only.
	User bool `json:"user,omitempty"`
}

// A SessionStore keeps login sessions. Keys are the SHA-256 of a session's
// cookie, so what a store holds never opens a session by itself. Consoles
// sharing a store (replicas, or one console across restarts) share their
// sessions: a sign-in on one holds on the others, and so does a sign-out.
// Implementations must be safe for concurrent use.
type SessionStore interface {
	// Put stores s under key until s.Expires.
	Put(ctx context.Context, key string, s Session) error
	// Get returns the session under key; ok is false when there is none
	// (never stored, expired, deleted).
	Get(ctx context.Context, key string) (s Session, ok bool, err error)
	// Delete ends the session under key.
	Delete(ctx context.Context, key string) error
}

func sessionKey(cookie string) string {
	sum := sha256.Sum256([]byte(cookie))
	return hex.EncodeToString(sum[:])
}

// MemorySessions returns a SessionStore in this process's memory (the
// default of Options.Sessions): consoles given the same one share their
// sessions, and a restart signs operators out.
func MemorySessions() SessionStore {
	s := &memorySessions{m: map[string]Session{}}
	s.now = time.Now
	return s
}

// memorySessions is the default SessionStore: this process only, so a
// restart signs operators out.
type memorySessions struct {
	mu  sync.Mutex
	m   map[string]Session
	now func() time.Time
}

// maxSessions bounds the in-memory session table; the soonest-expiring go
// first.
const maxSessions = 10000

func (s *memorySessions) Put(_ context.Context, key string, v Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.m) >= maxSessions {
		now := s.now()
		for k, x := range s.m {
			if now.After(x.Expires) {
				delete(s.m, k)
			}
		}
		for len(s.m) >= maxSessions {
			var oldest string
			for k, x := range s.m {
				if oldest == "" || x.Expires.Before(s.m[oldest].Expires) {
					oldest = k
				}
			}
			delete(s.m, oldest)
		}
	}
	s.m[key] = v
	return nil
}

func (s *memorySessions) Get(_ context.Context, key string) (Session, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if ok && s.now().After(v.Expires) {
		delete(s.m, key)
		return Session{}, false, nil
	}
	return v, ok, nil
}

func (s *memorySessions) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

// CacheSessions keeps sessions in an adapter.Cache under keys of their own
// ("console/session/" and the hash): a durable, shared cache (the SQLite
// and PostgreSQL stores') makes sessions outlive restarts and reach every
// replica. Delete overwrites the session with a tombstone that lives as
// long as the session would have, since a cache has no delete. A cache
// that evicts an entry signs its operator out: the safe direction.
//
// Deprecated: clearing or evicting cached results signs operators out,
// and a session the cache fails to keep is lost without an error. Use
// [KVSessions] over a store's sessions table ([UpgradeSessions] for the
// release that moves them).
func CacheSessions(c adapter.Cache) SessionStore { return cacheSessions{c} }

type cacheSessions struct{ c adapter.Cache }

// sessionCachePrefix sets session entries apart from the executor's, whose
// keys always hold NUL separators.
const sessionCachePrefix = "console/session/"

func (s cacheSessions) Put(ctx context.Context, key string, v Session) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if ttl := time.Until(v.Expires); ttl > 0 {
		s.c.Add(ctx, sessionCachePrefix+key, adapter.TextResult(string(b)), ttl)
	}
	return nil
}

func (s cacheSessions) Get(ctx context.Context, key string) (Session, bool, error) {
	r, ok := s.c.Get(ctx, sessionCachePrefix+key)
	if !ok || r == nil || len(r.Content) != 1 {
		return Session{}, false, nil
	}
	t, isText := r.Content[0].(*adapter.TextContent)
	if !isText {
		return Session{}, false, nil
	}
	var v Session
	if err := json.Unmarshal([]byte(t.Text), &v); err != nil {
		return Session{}, false, err
	}
	if v.Operator == "" { // a tombstone
		return Session{}, false, nil
	}
	return v, true, nil
}

func (s cacheSessions) Delete(ctx context.Context, key string) error {
	v, ok, err := s.Get(ctx, key)
	if err != nil || !ok {
		return err
	}
	if ttl := time.Until(v.Expires); ttl > 0 {
		s.c.Add(ctx, sessionCachePrefix+key, adapter.TextResult(`{"operator":""}`), ttl+time.Minute)
	}
	return nil
}
