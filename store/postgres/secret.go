package pgstore

import (
	"context"
	"crypto/rand"
	"fmt"
)

// Secret returns the secret called name, made of size random bytes by the
// first replica that asks for it and the same for every replica after it:
// a key they must share, such as the one that signs the requestState of
// MCP approval questions (a retry may reach another replica). A stored
// secret of another size is an error. The database holds it as it is:
// restrict who may read the secrets table.
func (s *Store) Secret(ctx context.Context, name string, size int) ([]byte, error) {
	if size <= 0 {
		return nil, fmt.Errorf("pgstore: secret %q of size %d", name, size)
	}
	b := make([]byte, size)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	if _, err := s.pool.Exec(ctx, "INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", name, b); err != nil {
		return nil, fmt.Errorf("pgstore: secret %q: %w", name, err)
	}
	var v []byte
	if err := s.pool.QueryRow(ctx, "SELECT value FROM secrets WHERE name = $1", name).Scan(&v); err != nil {
		return nil, fmt.Errorf("pgstore: secret %q: %w", name, err)
	}
	if len(v) != size {
		return nil, fmt.Errorf("pgstore: secret %q has %d bytes, want %d", name, len(v), size)
	}
	return v, nil
}
