package sqlitestore

import "context"

// Secret returns the secret called name, made of size random bytes by the
// first process that asks for it and the same for every process on the
// database after it: a key they must share, such as the one that signs
// the requestState of MCP approval questions. A stored secret of another
// size is an error. The database file holds it as it is: keep the file
// private (Open creates it 0600).
func (s *Store) Secret(ctx context.Context, name string, size int) ([]byte, error) {
	return s.kv.Secret(ctx, name, size)
}
