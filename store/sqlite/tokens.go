package sqlitestore

import (
	"context"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
	"github.com/agentadapter/agentadapter/store/internal/sqlkv"
)

// Tokens is a [token.Store] in the database: replicas share the
// OAuth grants of their upstream servers, and a restarted process finds
// them. Tokens are secrets: with Options.Tokens.Keys they are stored
// encrypted, and per-user tokens only so; keep the database file private
// all the same (Open creates it readable by its owner only).
type Tokens struct {
	t sqlkv.Tokens
}

// Token implements [token.Store].
func (t *Tokens) Token(ctx context.Context, key token.Key) (*token.Token, error) {
	return t.t.Token(ctx, key)
}

// PutToken implements [token.Store].
func (t *Tokens) PutToken(ctx context.Context, key token.Key, tok *token.Token) error {
	return t.t.PutToken(ctx, key, tok)
}

// DeleteToken implements [token.Store].
func (t *Tokens) DeleteToken(ctx context.Context, key token.Key) error {
	return t.t.DeleteToken(ctx, key)
}
