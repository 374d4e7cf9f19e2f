package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
)

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
	err := p.s.db.QueryRowContext(ctx, "SELECT hash FROM pins WHERE key = ?", key).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("sqlitestore: %w", err)
	}
	return h, true, nil
}

// SetIfAbsent implements [pin.Store].
func (p *Pins) SetIfAbsent(ctx context.Context, key, hash string) (string, error) {
	var h string
	err := p.s.db.QueryRowContext(ctx, `INSERT INTO pins (key, hash, updated) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET key = excluded.key RETURNING hash`, key, hash, p.s.now().UnixNano()).Scan(&h)
	if err != nil {
		return "", fmt.Errorf("sqlitestore: %w", err)
	}
	return h, nil
}

// Set implements [pin.Store].
func (p *Pins) Set(ctx context.Context, key, hash string) error {
	_, err := p.s.db.ExecContext(ctx, `INSERT INTO pins (key, hash, updated) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET hash = excluded.hash, updated = excluded.updated`, key, hash, p.s.now().UnixNano())
	if err != nil {
		return fmt.Errorf("sqlitestore: %w", err)
	}
	return nil
}

// All implements [pin.Store].
func (p *Pins) All(ctx context.Context) iter.Seq2[pin.Pin, error] {
	return func(yield func(pin.Pin, error) bool) {
		rows, err := p.s.db.QueryContext(ctx, "SELECT key, hash FROM pins ORDER BY key")
		if err != nil {
			yield(pin.Pin{}, fmt.Errorf("sqlitestore: %w", err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			var row pin.Pin
			if err := rows.Scan(&row.Key, &row.Hash); err != nil {
				yield(pin.Pin{}, fmt.Errorf("sqlitestore: %w", err))
				return
			}
			if !yield(row, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(pin.Pin{}, fmt.Errorf("sqlitestore: %w", err))
		}
	}
}
