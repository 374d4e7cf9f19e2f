package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// Tokens is a [token.Store] in the database: replicas share the
// OAuth grants of their upstream servers, and a restarted process finds
// them. Tokens are secrets stored as they are: keep the database file
// private (Open creates it readable by its owner only).
type Tokens struct {
	s *Store
}

// Token implements [token.Store].
func (t *Tokens) Token(ctx context.Context, key token.Key) (*token.Token, error) {
	var b []byte
	err := t.s.db.QueryRowContext(ctx, "SELECT token FROM tokens WHERE server = ? AND resource = ?", key.Server, key.Resource).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, token.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: %w", err)
	}
	var tok token.Token
	if err := json.Unmarshal(b, &tok); err != nil {
		// The error of encoding/json never quotes the token's text.
		return nil, fmt.Errorf("sqlitestore: stored token unreadable: %w", err)
	}
	return &tok, nil
}

// PutToken implements [token.Store].
func (t *Tokens) PutToken(ctx context.Context, key token.Key, tok *token.Token) error {
	b, err := json.Marshal(tok)
	if err != nil {
		return fmt.Errorf("sqlitestore: encoding token: %w", err)
	}
	_, err = t.s.db.ExecContext(ctx, `INSERT INTO tokens (server, resource, token, updated) VALUES (?, ?, ?, ?)
		ON CONFLICT (server, resource) DO UPDATE SET token = excluded.token, updated = excluded.updated`,
		key.Server, key.Resource, b, t.s.now().UnixNano())
	if err != nil {
		return fmt.Errorf("sqlitestore: %w", err)
	}
	return nil
}

// DeleteToken implements [token.Store].
func (t *Tokens) DeleteToken(ctx context.Context, key token.Key) error {
	if _, err := t.s.db.ExecContext(ctx, "DELETE FROM tokens WHERE server = ? AND resource = ?", key.Server, key.Resource); err != nil {
		return fmt.Errorf("sqlitestore: %w", err)
	}
	return nil
}
