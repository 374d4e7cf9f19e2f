package pgstore

import "context"

// Secret returns the secret called name, made of size random bytes by the
// first replica that asks for it and the same for every replica after it:
// a key they must share, such as the one that signs the requestState of
// MCP approval questions (a retry may reach another replica). A stored
// secret of another size is an error. The database holds it as it is:
// restrict who may read the secrets table.
func (s *Store) Secret(ctx context.Context, name string, size int) ([]byte, error) {
	return s.kv.Secret(ctx, name, size)
}
