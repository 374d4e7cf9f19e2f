package sqlkv

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// Token implements [token.Store].
func (s Tokens) Token(ctx context.Context, key token.Key) (*token.Token, error) {
	var b []byte
	err := s.t.db.QueryRow(ctx, s.t.q.tokensGet, key.Server, key.Subject, key.Issuer, key.Resource).Scan(&b)
	if errors.Is(err, s.t.d.NoRows) {
		return nil, token.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.t.d.Name, err)
	}
	tok, err := token.Decode(s.t.d.TokenKeys, key, b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.t.d.Name, err)
	}
	return tok, nil
}

// PutToken implements [token.Store].
func (s Tokens) PutToken(ctx context.Context, key token.Key, tok *token.Token) error {
	b, err := token.Encode(s.t.d.TokenKeys, key, tok)
	if err != nil {
		return fmt.Errorf("%s: %w", s.t.d.Name, err)
	}
	if _, err := s.t.db.Exec(ctx, s.t.q.tokensPut, key.Server, key.Subject, key.Issuer, key.Resource, b, s.t.d.Now().UnixNano()); err != nil {
		return fmt.Errorf("%s: %w", s.t.d.Name, err)
	}
	return nil
}

// DeleteToken implements [token.Store].
func (s Tokens) DeleteToken(ctx context.Context, key token.Key) error {
	if _, err := s.t.db.Exec(ctx, s.t.q.tokensDelete, key.Server, key.Subject, key.Issuer, key.Resource); err != nil {
		return fmt.Errorf("%s: %w", s.t.d.Name, err)
	}
	return nil
}
