package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
	oauth0 "github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// storePending is an [oauth0.PendingStore] in the gateway's store's table
// of sign-ins (SQLite, PostgreSQL), shared by every replica on the store:
// a sign-in begun at one completes at the callback reaching another. A row
// is keyed by the SHA-256 of the sign-in's state (the table never holds a
// state a callback could be forged with) and holds the sign-in as JSON
// sealed with the gateway's keyring under that key (the PKCE verifier and
// a client secret are never at rest in the clear, and a row copied under
// another key does not open); the browser that confirmed it is the row's
// claim.
type storePending struct {
	t    state.SignInTable
	keys func() *token.Keyring
}

// pendingKey is the row key of state.
func pendingKey(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:])
}

func (s *storePending) keyring() (*token.Keyring, error) {
	k := s.keys()
	if k == nil {
		return nil, token.ErrNoKey
	}
	return k, nil
}

// PutSignIn implements [oauth0.PendingStore].
func (s *storePending) PutSignIn(ctx context.Context, p *oauth0.PendingSignIn, max int) error {
	keys, err := s.keyring()
	if err != nil {
		return err
	}
	c := *p
	c.Browser = "" // the claim column holds it
	b, err := json.Marshal(&c)
	if err != nil {
		return fmt.Errorf("encoding a sign-in: %w", err)
	}
	k := pendingKey(p.State)
	return s.t.Put(ctx, k, p.Subject, keys.Seal("signin "+k, b), p.Created, p.Expires, max)
}

// open decodes the row of state.
func (s *storePending) open(state string, value []byte, claim string) (*oauth0.PendingSignIn, error) {
	keys, err := s.keyring()
	if err != nil {
		return nil, err
	}
	b, err := keys.Open("signin "+pendingKey(state), value)
	if err != nil {
		return nil, fmt.Errorf("%w: the stored sign-in does not open: %w", oauth0.ErrNoSignIn, err)
	}
	var p oauth0.PendingSignIn
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%w: the stored sign-in is unreadable: %w", oauth0.ErrNoSignIn, err)
	}
	if p.State != state {
		return nil, fmt.Errorf("%w: the stored sign-in is another's", oauth0.ErrNoSignIn)
	}
	p.Browser = claim
	return &p, nil
}

// SignIn implements [oauth0.PendingStore].
func (s *storePending) SignIn(ctx context.Context, state string) (*oauth0.PendingSignIn, error) {
	v, claim, ok, err := s.t.Get(ctx, pendingKey(state))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, oauth0.ErrNoSignIn
	}
	return s.open(state, v, claim)
}

// ClaimSignIn implements [oauth0.PendingStore].
func (s *storePending) ClaimSignIn(ctx context.Context, state, browser string) (*oauth0.PendingSignIn, error) {
	if browser == "" {
		return nil, errors.New("claiming a sign-in for no browser")
	}
	v, ok, err := s.t.Claim(ctx, pendingKey(state), browser)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w (or it was opened in a browser already)", oauth0.ErrNoSignIn)
	}
	return s.open(state, v, browser)
}

// TakeSignIn implements [oauth0.PendingStore].
func (s *storePending) TakeSignIn(ctx context.Context, state string) (*oauth0.PendingSignIn, error) {
	v, claim, ok, err := s.t.Take(ctx, pendingKey(state))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, oauth0.ErrNoSignIn
	}
	return s.open(state, v, claim)
}
