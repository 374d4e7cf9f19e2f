package sqlitestore

import (
	"context"
	"iter"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
	"github.com/agentadapter/agentadapter/store/internal/sqlkv"
)

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
