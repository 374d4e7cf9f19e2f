package sqlitestore

import (
	"context"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/store/internal/sqlkv"
)

// Cache is an [adapter.Cache] in the database, shared by every Store open
// on it. Entries expire after their TTL (zero: adapter.DefaultCacheTTL);
// the sweep deletes expired ones. Keys are opaque bytes: the executor's
// keys name the tool and the canonical arguments, and a key that also
// names the caller's subject keeps one subject's results from another.
// Database errors are logged and read as misses.
type Cache struct {
	t sqlkv.Cache
}

// Get implements [adapter.Cache].
func (c *Cache) Get(ctx context.Context, key string) (*adapter.Result, bool) {
	return c.t.Get(ctx, key)
}

// Add implements [adapter.Cache].
func (c *Cache) Add(ctx context.Context, key string, r *adapter.Result, ttl time.Duration) {
	c.t.Add(ctx, key, r, ttl)
}
