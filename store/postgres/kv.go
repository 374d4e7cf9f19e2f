package pgstore

import (
	"context"
	"iter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
	"github.com/agentadapter/agentadapter/store/internal/sqlkv"
)

// Cache is an [adapter.Cache] in the database, shared by every replica.
// Entries expire after their TTL (zero: adapter.DefaultCacheTTL); the
// sweep deletes expired ones. Keys are opaque bytes: the executor's keys
// name the tool and the canonical arguments, and a key that also names
// the caller's subject keeps one subject's results from another.
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

// Pins is a [pin.Store] in the database: every manager using it
// compares a tool's definition with the same pin, so every replica
// quarantines the same changed tool, and an Accept through any of them
// releases it in all.
type Pins struct {
	t sqlkv.Pins
}

// Get implements [pin.Store].
func (p *Pins) Get(ctx context.Context, key string) (string, bool, error) {
	return p.t.Get(ctx, key)
}

// SetIfAbsent implements [pin.Store].
func (p *Pins) SetIfAbsent(ctx context.Context, key, hash string) (string, error) {
	return p.t.SetIfAbsent(ctx, key, hash)
}

// Set implements [pin.Store].
func (p *Pins) Set(ctx context.Context, key, hash string) error {
	return p.t.Set(ctx, key, hash)
}

// All implements [pin.Store].
func (p *Pins) All(ctx context.Context) iter.Seq2[pin.Pin, error] {
	return p.t.All(ctx)
}

// Tokens is a [token.Store] in the database: replicas share the
// OAuth grants of their upstream servers, and a restarted process finds
// them. Tokens are secrets: with Options.Tokens.Keys they are stored
// encrypted, and per-user tokens only so; restrict who may read the tokens
// table all the same.
type Tokens struct {
	t sqlkv.Tokens
}

// Token implements [token.Store].
func (t *Tokens) Token(ctx context.Context, key token.Key) (*token.Token, error) {
	return t.t.Token(ctx, key)
}

// PutToken implements [token.Store].
func (t *Tokens) PutToken(ctx context.Context, key token.Key, tok *token.Token) error {
	return t.t.PutToken(ctx, key, tok)
}

// DeleteToken implements [token.Store].
func (t *Tokens) DeleteToken(ctx context.Context, key token.Key) error {
	return t.t.DeleteToken(ctx, key)
}

// pgDB is the pool as the shared tables reach it.
type pgDB struct{ p *pgxpool.Pool }

func (d pgDB) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := d.p.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (d pgDB) QueryRow(ctx context.Context, query string, args ...any) sqlkv.Row {
	return d.p.QueryRow(ctx, query, args...)
}

func (d pgDB) Query(ctx context.Context, query string, args ...any) (sqlkv.Rows, error) {
	rows, err := d.p.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}
