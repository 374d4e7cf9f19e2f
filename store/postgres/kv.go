package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// Cache is an [adapter.Cache] in the database, shared by every replica.
// Entries expire after their TTL (zero: adapter.DefaultCacheTTL); the
// sweep deletes expired ones. Keys are opaque bytes: the executor's keys
// name the tool and the canonical arguments, and a key that also names
// the caller's subject keeps one subject's results from another.
// Database errors are logged and read as misses.
type Cache struct {
	s *Store
}

// Get implements [adapter.Cache].
func (c *Cache) Get(ctx context.Context, key string) (*adapter.Result, bool) {
	var b []byte
	err := c.s.pool.QueryRow(ctx, "SELECT value FROM cache WHERE key = $1 AND expires > $2", []byte(key), c.s.now().UnixNano()).Scan(&b)
	if err != nil {
		if !errors.Is(err, pgx.ErrNoRows) {
			c.s.logger.Error("pgstore: cache read failed", "error", err)
		}
		return nil, false
	}
	r, err := adapter.UnmarshalResult(b)
	if err != nil {
		c.s.logger.Error("pgstore: cache entry unreadable", "error", err)
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
		c.s.logger.Error("pgstore: result not cached", "error", err)
		return
	}
	if _, err := c.s.pool.Exec(ctx, `INSERT INTO cache (key, value, expires) VALUES ($1, $2, $3)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
		[]byte(key), b, c.s.now().Add(ttl).UnixNano()); err != nil {
		c.s.logger.Error("pgstore: result not cached", "error", err)
	}
}

// Pins is a [pin.Store] in the database: every manager using it
// compares a tool's definition with the same pin, so every replica
// quarantines the same changed tool, and an Accept through any of them
// releases it in all.
type Pins struct {
	s *Store
}

// Get implements [pin.Store].
func (p *Pins) Get(ctx context.Context, key string) (string, bool, error) {
	var h string
	err := p.s.pool.QueryRow(ctx, "SELECT hash FROM pins WHERE key = $1", key).Scan(&h)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("pgstore: %w", err)
	}
	return h, true, nil
}

// SetIfAbsent implements [pin.Store].
func (p *Pins) SetIfAbsent(ctx context.Context, key, hash string) (string, error) {
	var h string
	err := p.s.pool.QueryRow(ctx, `INSERT INTO pins (key, hash, updated) VALUES ($1, $2, $3)
		ON CONFLICT (key) DO UPDATE SET key = excluded.key RETURNING hash`, key, hash, p.s.now().UnixNano()).Scan(&h)
	if err != nil {
		return "", fmt.Errorf("pgstore: %w", err)
	}
	return h, nil
}

// Set implements [pin.Store].
func (p *Pins) Set(ctx context.Context, key, hash string) error {
	_, err := p.s.pool.Exec(ctx, `INSERT INTO pins (key, hash, updated) VALUES ($1, $2, $3)
		ON CONFLICT (key) DO UPDATE SET hash = excluded.hash, updated = excluded.updated`, key, hash, p.s.now().UnixNano())
	if err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	return nil
}

// All implements [pin.Store].
func (p *Pins) All(ctx context.Context) iter.Seq2[pin.Pin, error] {
	return func(yield func(pin.Pin, error) bool) {
		rows, err := p.s.pool.Query(ctx, "SELECT key, hash FROM pins ORDER BY key COLLATE \"C\"")
		if err != nil {
			yield(pin.Pin{}, fmt.Errorf("pgstore: %w", err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			var row pin.Pin
			if err := rows.Scan(&row.Key, &row.Hash); err != nil {
				yield(pin.Pin{}, fmt.Errorf("pgstore: %w", err))
				return
			}
			if !yield(row, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(pin.Pin{}, fmt.Errorf("pgstore: %w", err))
		}
	}
}

// Tokens is a [token.Store] in the database: replicas share the
// OAuth grants of their upstream servers, and a restarted process finds
// them. Tokens are secrets stored as they are: restrict who may read the
// tokens table.
type Tokens struct {
	s *Store
}

// Token implements [token.Store].
func (t *Tokens) Token(ctx context.Context, key token.Key) (*token.Token, error) {
	var b []byte
	err := t.s.pool.QueryRow(ctx, "SELECT token FROM tokens WHERE server = $1 AND resource = $2", key.Server, key.Resource).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, token.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	var tok token.Token
	if err := json.Unmarshal(b, &tok); err != nil {
		return nil, fmt.Errorf("pgstore: stored token unreadable: %w", err)
	}
	return &tok, nil
}

// PutToken implements [token.Store].
func (t *Tokens) PutToken(ctx context.Context, key token.Key, tok *token.Token) error {
	b, err := json.Marshal(tok)
	if err != nil {
		return fmt.Errorf("pgstore: encoding token: %w", err)
	}
	_, err = t.s.pool.Exec(ctx, `INSERT INTO tokens (server, resource, token, updated) VALUES ($1, $2, $3, $4)
		ON CONFLICT (server, resource) DO UPDATE SET token = excluded.token, updated = excluded.updated`,
		key.Server, key.Resource, b, t.s.now().UnixNano())
	if err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	return nil
}

// DeleteToken implements [token.Store].
func (t *Tokens) DeleteToken(ctx context.Context, key token.Key) error {
	if _, err := t.s.pool.Exec(ctx, "DELETE FROM tokens WHERE server = $1 AND resource = $2", key.Server, key.Resource); err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	return nil
}
