package sqlitestore

import (
	"context"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
)

// Cache is an [adapter.Cache] in the database, shared by every Store open
// on it. Entries expire after their TTL (zero: adapter.DefaultCacheTTL);
// the sweep deletes expired ones. Keys are opaque bytes: the executor's
// keys name the tool and the canonical arguments, and a key that also
// names the caller's subject keeps one subject's results from another.
// Database errors are logged and read as misses.
type Cache struct {
	s *Store
}

// Get implements [adapter.Cache].
func (c *Cache) Get(ctx context.Context, key string) (*adapter.Result, bool) {
	var b []byte
	err := c.s.db.QueryRowContext(ctx, "SELECT value FROM cache WHERE key = ? AND expires > ?", []byte(key), c.s.now().UnixNano()).Scan(&b)
	if err != nil {
		return nil, false
	}
	r, err := adapter.UnmarshalResult(b)
	if err != nil {
		c.s.logger.Error("sqlitestore: cache entry unreadable", "error", err)
		return nil, false
	}
	return r, true
}

// Add implements [adapter.Cache].
func (c *Cache) Add(ctx context.Context, key string, r *adapter.Result, ttl time.Duration) {
	if ttl <= 0 {
		ttl = adapter.DefaultCacheTTL
	}
	b, err := adapter.MarshalResult(r)
	if err != nil {
		c.s.logger.Error("sqlitestore: result not cached", "error", err)
		return
	}
	if _, err := c.s.db.ExecContext(ctx, "INSERT OR REPLACE INTO cache (key, value, expires) VALUES (?, ?, ?)",
		[]byte(key), b, c.s.now().Add(ttl).UnixNano()); err != nil {
		c.s.logger.Error("sqlitestore: result not cached", "error", err)
	}
}
