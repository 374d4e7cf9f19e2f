package sqlkv

import (
	"context"
	"errors"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
)

// Get implements [adapter.Cache].
func (c Cache) Get(ctx context.Context, key string) (*adapter.Result, bool) {
	var b []byte
	err := c.t.db.QueryRow(ctx, c.t.q.cacheGet, []byte(key), c.t.d.Now().UnixNano()).Scan(&b)
	if err != nil {
		if !errors.Is(err, c.t.d.NoRows) {
			c.t.d.Logger.Error(c.t.d.Name+": cache read failed", "error", err)
		}
		return nil, false
	}
	r, err := adapter.UnmarshalResult(b)
	if err != nil {
		c.t.d.Logger.Error(c.t.d.Name+": cache entry unreadable", "error", err)
		return nil, false
	}
	return r, true
}

// Add implements [adapter.Cache].
func (c Cache) Add(ctx context.Context, key string, r *adapter.Result, ttl time.Duration) {
	if ttl <= 0 {
		ttl = adapter.DefaultCacheTTL
	}
	b, err := adapter.MarshalResult(r)
	if err != nil {
		c.t.d.Logger.Error(c.t.d.Name+": result not cached", "error", err)
		return
	}
	if _, err := c.t.db.Exec(ctx, c.t.q.cacheAdd, []byte(key), b, c.t.d.Now().Add(ttl).UnixNano()); err != nil {
		c.t.d.Logger.Error(c.t.d.Name+": result not cached", "error", err)
	}
}
