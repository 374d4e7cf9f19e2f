package sqlkv

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
)

// Get implements [pin.Store].
func (p Pins) Get(ctx context.Context, key string) (string, bool, error) {
	var h string
	err := p.t.db.QueryRow(ctx, p.t.q.pinsGet, key).Scan(&h)
	if errors.Is(err, p.t.d.NoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", p.t.d.Name, err)
	}
	return h, true, nil
}

// SetIfAbsent implements [pin.Store].
func (p Pins) SetIfAbsent(ctx context.Context, key, hash string) (string, error) {
	var h string
	if err := p.t.db.QueryRow(ctx, p.t.q.pinsSetIfAbsent, key, hash, p.t.d.Now().UnixNano()).Scan(&h); err != nil {
		return "", fmt.Errorf("%s: %w", p.t.d.Name, err)
	}
	return h, nil
}

// Set implements [pin.Store].
func (p Pins) Set(ctx context.Context, key, hash string) error {
	if _, err := p.t.db.Exec(ctx, p.t.q.pinsSet, key, hash, p.t.d.Now().UnixNano()); err != nil {
		return fmt.Errorf("%s: %w", p.t.d.Name, err)
	}
	return nil
}

// All implements [pin.Store], in the byte order of the keys.
func (p Pins) All(ctx context.Context) iter.Seq2[pin.Pin, error] {
	return all(ctx, p.t, "", p.t.q.pinsAll, scanPin)
}

func scanPin(rows Row) (pin.Pin, error) {
	var row pin.Pin
	if err := rows.Scan(&row.Key, &row.Hash); err != nil {
		return pin.Pin{}, err
	}
	return row, nil
}
