package adapter

import (
	"context"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
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
}

// MemoryCache is an in-memory LRU [Cache] with per-entry expiry.
type MemoryCache struct {
	lru *expirable.LRU[string, cacheEntry]
}

type cacheEntry struct {
	r       *Result
	expires time.Time
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
	return &MemoryCache{lru: expirable.NewLRU[string, cacheEntry](size, nil, maxTTL)}
}

// Get implements [Cache].
func (m *MemoryCache) Get(_ context.Context, key string) (*Result, bool) {
	e, ok := m.lru.Get(key)
	if !ok {
		return nil, false
	}
	if time.Now().After(e.expires) {
		m.lru.Remove(key)
		return nil, false
	}
	return e.r, true
}

// Add implements [Cache].
func (m *MemoryCache) Add(_ context.Context, key string, r *Result, ttl time.Duration) {
	m.lru.Add(key, cacheEntry{r: r, expires: time.Now().Add(ttl)})
}

// Len returns the number of entries (expired ones included until evicted).
func (m *MemoryCache) Len() int { return m.lru.Len() }
