package adapter

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/agentadapter/agentadapter/adapter/internal/cow"
)

// A Cache stores successful results by key. Implementations must be safe
// for concurrent use. The adaptertest package checks an implementation.
type Cache interface {
	// Get returns the result stored under key, if present and not expired.
	Get(ctx context.Context, key string) (*Result, bool)
	// Add stores r under key for ttl.
	Add(ctx context.Context, key string, r *Result, ttl time.Duration)
}

// Defaults for [CacheOptions].
const (
	DefaultCacheSize = 1024
	DefaultCacheTTL  = 5 * time.Minute
)

// CacheOptions configure result caching in an [Executor]. Caching is opt-in
// per tool, and only read-only or idempotent tools are ever cached; errors
// are never cached. Concurrent identical calls of a cached tool run the
// handler once.
type CacheOptions struct {
	// Store holds the results; nil means NewMemoryCache(DefaultCacheSize, TTL).
	Store Cache
	// TTL is the default time to live; zero means DefaultCacheTTL.
	TTL time.Duration
	// Tools lists the cached tools with their TTL (zero: TTL).
	Tools map[string]time.Duration
	// Shared lets a result cached for one caller serve another. By default
	// entries are kept per caller (the Subject of [ToolCall.Identity];
	// calls without an identity share the empty subject), so that one
	// user is never served what a tool returned for another. Set it only
	// for tools whose results do not depend on who calls.
	Shared bool
}

// MemoryCache is an in-memory [Cache] with a size bound and per-entry
// expiry. It starts no goroutine: expired entries are dropped when met.
//
// Reads take no lock: entries live in small shards, each an immutable map
// behind an atomic pointer that a write replaces with an updated copy, so
// hits from many goroutines on the same hot entry share cache lines
// instead of bouncing a lock between CPUs. A full shard evicts with a
// CLOCK sweep (an approximation of least recently used).
type MemoryCache struct {
	maxTTL time.Duration
	now    func() time.Time
	shards []cow.Shard[*cacheEntry]
	mask   uint64
}

type cacheEntry struct {
	r       *Result
	expires int64 // unix nanoseconds
	ref     atomic.Bool
}

// NewMemoryCache returns a cache holding at most size results (zero:
// DefaultCacheSize), none for longer than maxTTL (zero: DefaultCacheTTL).
func NewMemoryCache(size int, maxTTL time.Duration) *MemoryCache {
	if size <= 0 {
		size = DefaultCacheSize
	}
	if maxTTL <= 0 {
		maxTTL = DefaultCacheTTL
	}
	n := cow.For(size)
	c := &MemoryCache{maxTTL: maxTTL, now: time.Now, shards: make([]cow.Shard[*cacheEntry], n), mask: uint64(n - 1)}
	for i := range c.shards {
		c.shards[i].Cap = size / n
		if i < size%n {
			c.shards[i].Cap++
		}
	}
	return c
}

func (m *MemoryCache) shard(key string) *cow.Shard[*cacheEntry] {
	return &m.shards[cow.FNV64(key)&m.mask]
}

// Get implements [Cache].
func (m *MemoryCache) Get(_ context.Context, key string) (*Result, bool) {
	e, ok := m.shard(key).Get(key)
	if !ok || m.now().UnixNano() >= e.expires {
		return nil, false
	}
	if !e.ref.Load() { // write only when needed: keeps hot entries' lines shared
		e.ref.Store(true)
	}
	return e.r, true
}

// Add implements [Cache].
func (m *MemoryCache) Add(_ context.Context, key string, r *Result, ttl time.Duration) {
	if ttl <= 0 || ttl > m.maxTTL {
		ttl = m.maxTTL
	}
	now := m.now().UnixNano()
	e := &cacheEntry{r: r, expires: now + int64(ttl)}
	s := m.shard(key)
	s.Mu.Lock()
	s.Put(key, e, func(old map[string]*cacheEntry) string { return clockVictim(old, now) })
	s.Mu.Unlock()
}

// clockVictim picks an expired or unreferenced entry, clearing reference
// bits as it goes (second chance); if all were referenced, any.
func clockVictim(m map[string]*cacheEntry, now int64) string {
	var any string
	for k, e := range m {
		if now >= e.expires || !e.ref.Load() {
			return k
		}
		e.ref.Store(false)
		any = k
	}
	return any
}

// Len returns the number of entries (expired ones included until dropped).
func (m *MemoryCache) Len() int {
	n := 0
	for i := range m.shards {
		n += m.shards[i].Len()
	}
	return n
}

// argMemo remembers, for cached tools, what validating a given argument
// text produced: the validated arguments and the cache key. Validation is
// a pure function of the bytes and the compiled schema, so a repeated call
// (the case caching is for) skips the schema check and canonicalisation,
// the bulk of a cache hit's cost, with the very same outcome. Only
// successes are remembered. Bounded, with lock-free reads like MemoryCache.
type argMemo struct {
	shards [memoShards]cow.Shard[memoEntry]
}

type memoEntry struct {
	c    *compiled // the schema the text was validated against
	args []byte    // the validated arguments (never modified)
	key  string    // the cache key
	hash string    // CanonicalHash of args, when a ledger records them
}

const (
	memoMaxArgs = 1024 // longer argument texts are not remembered
	memoShards  = 64   // of cow.Target entries each
)

func (m *argMemo) get(c *compiled, raw []byte) (memoEntry, bool) {
	e, ok := m.shards[cow.FNV64(raw)&(memoShards-1)].GetBytes(raw)
	return e, ok && e.c == c
}

func (m *argMemo) put(c *compiled, raw []byte, e memoEntry) {
	e.c = c
	s := &m.shards[cow.FNV64(raw)&(memoShards-1)]
	s.Mu.Lock()
	if s.Cap == 0 {
		s.Cap = cow.Target
	}
	s.Put(string(raw), e, func(old map[string]memoEntry) string {
		for k := range old { // map order is random: drop any one
			return k
		}
		return ""
	})
	s.Mu.Unlock()
}
