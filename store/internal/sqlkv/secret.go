package sqlkv

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"
)

// Secret returns the secret called name, made of size random bytes by the
// first store that asks for it and the same for every store on the
// database after it. A stored secret of another size is an error.
func (t *Tables) Secret(ctx context.Context, name string, size int) ([]byte, error) {
	if size <= 0 {
		return nil, fmt.Errorf("%s: secret %q of size %d", t.d.Name, name, size)
	}
	b := make([]byte, size)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	if _, err := t.db.Exec(ctx, t.q.secretsPut, name, b); err != nil {
		return nil, fmt.Errorf("%s: secret %q: %w", t.d.Name, name, err)
	}
	var v []byte
	if err := t.db.QueryRow(ctx, t.q.secretsGet, name).Scan(&v); err != nil {
		return nil, fmt.Errorf("%s: secret %q: %w", t.d.Name, name, err)
	}
	if len(v) != size {
		return nil, fmt.Errorf("%s: secret %q has %d bytes, want %d", t.d.Name, name, len(v), size)
	}
	return v, nil
}

// SweepEvery calls sweep every interval until ctx ends, logging its
// errors (but those of ctx's end).
func (t *Tables) SweepEvery(ctx context.Context, interval time.Duration, sweep func(context.Context) error) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := sweep(ctx); err != nil && ctx.Err() == nil {
				t.d.Logger.Error(t.d.Name+": sweep failed", "error", err)
			}
		}
	}
}
