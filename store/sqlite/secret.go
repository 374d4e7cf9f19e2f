package sqlitestore

import (
	"context"
	"crypto/rand"
	"fmt"
)

// Secret returns the secret called name, made of size random bytes by the
// first process that asks for it and the same for every process on the
// database after it: a key they must share, such as the one that signs
// the requestState of MCP approval questions. A stored secret of another
// size is an error. The database file holds it as it is: keep the file
// private (Open creates it 0600).
func (s *Store) Secret(ctx context.Context, name string, size int) ([]byte, error) {
	if size <= 0 {
		return nil, fmt.Errorf("sqlitestore: secret %q of size %d", name, size)
	}
	b := make([]byte, size)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	if _, err := s.db.ExecContext(ctx, "INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", name, b); err != nil {
		return nil, fmt.Errorf("sqlitestore: secret %q: %w", name, err)
	}
	var v []byte
	if err := s.db.QueryRowContext(ctx, "SELECT value FROM secrets WHERE name = ?", name).Scan(&v); err != nil {
		return nil, fmt.Errorf("sqlitestore: secret %q: %w", name, err)
	}
	if len(v) != size {
		return nil, fmt.Errorf("sqlitestore: secret %q has %d bytes, want %d", name, len(v), size)
	}
	return v, nil
}
