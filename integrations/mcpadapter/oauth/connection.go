package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/outbound"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// Connection is what a user may see of their sign-in to a server: never
// the token.
type Connection struct {
	// Server is the server's name, Issuer its authorization server.
	Server string
	Issuer string
	// Expiry is the access token's expiry (zero if the server gave none);
	// Refreshable says whether it is renewed without the user.
	Expiry      time.Time
	Refreshable bool
	// Scopes are the scopes granted, if the authorization server said.
	Scopes []string
}

// Connection returns subject's connection to the server of a
// [Config.PerCaller] handler, or an error wrapping token.ErrNotFound when
// subject has not signed in.
func (h *Handler) Connection(ctx context.Context, subject string) (*Connection, error) {
	key, err := h.callerKey(ctx, subject)
	if err != nil {
		return nil, err
	}
	tok, err := h.store.Token(ctx, key)
	if err != nil {
		return nil, err
	}
	return &Connection{Server: h.server, Issuer: key.Issuer, Expiry: tok.Expiry, Refreshable: tok.RefreshToken != "", Scopes: tok.Scopes}, nil
}

func (h *Handler) callerKey(ctx context.Context, subject string) (token.Key, error) {
	if !h.cfg.PerCaller || h.perCaller {
		return token.Key{}, errors.New("OAuth: needs the handler of a PerCaller configuration")
	}
	if subject == "" {
		return token.Key{}, h.signIn()
	}
	iss, err := h.Issuer(ctx)
	if err != nil {
		return token.Key{}, err
	}
	key := token.Key{Server: h.server, Subject: subject, Issuer: iss, Resource: h.resource}
	return key, key.Check()
}

// Disconnect ends subject's connection to the server of a
// [Config.PerCaller] handler: it revokes the grant at the authorization
// server's revocation endpoint (RFC 7009), when its metadata names one
// (the refresh token, else the access token, authenticated as the client
// the token was issued to), then deletes the token from the store,
// whether or not the revocation succeeded; a failed revocation is
// reported after the deletion. Disconnecting a subject with no token is
// not an error.
func (h *Handler) Disconnect(ctx context.Context, subject string) error {
	key, err := h.callerKey(ctx, subject)
	if err != nil {
		return err
	}
	tok, err := h.store.Token(ctx, key)
	if errors.Is(err, token.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the stored token: %w", err)
	}
	revokeErr := h.revoke(ctx, tok)
	if err := h.store.DeleteToken(ctx, key); err != nil {
		return fmt.Errorf("deleting the token: %w", err)
	}
	if revokeErr != nil {
		return fmt.Errorf("the token is deleted, but revoking it at the authorization server failed: %w", revokeErr)
	}
	return nil
}

func (h *Handler) revoke(ctx context.Context, tok *token.Token) error {
	_, asm, err := h.discover(ctx, h.resource, nil)
	if err != nil {
		return err
	}
	if asm.RevocationEndpoint == "" {
		return nil
	}
	if err := outbound.CheckEndpoint("revocation endpoint", asm.RevocationEndpoint); err != nil {
		return err
	}
	form := url.Values{"token": {tok.RefreshToken}, "token_type_hint": {"refresh_token"}}
	if tok.RefreshToken == "" {
		form = url.Values{"token": {tok.AccessToken}, "token_type_hint": {"access_token"}}
	}
	if tok.ClientSecret == "" {
		form.Set("client_id", tok.ClientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, asm.RevocationEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if tok.ClientSecret != "" {
		req.SetBasicAuth(url.QueryEscape(tok.ClientID), url.QueryEscape(tok.ClientSecret))
	}
	resp, err := h.hc.Do(req)
	if err != nil {
		return err
	}
	drain(resp)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the revocation endpoint answered %s", resp.Status)
	}
	return nil
}

// Connections returns subject's connections to the servers whose
// handlers have s (one a server, the latest NewHandler's), by server name;
// a server whose authorization server cannot be reached now is left out.
// It is what a console shows a user of their own sign-ins.
func (s *SignIns) Connections(ctx context.Context, subject string) ([]Connection, error) {
	if subject == "" {
		return nil, errors.New("OAuth: connections of no subject")
	}
	s.mu.Lock()
	hs := make([]*Handler, 0, len(s.handlers))
	for _, h := range s.handlers {
		hs = append(hs, h)
	}
	s.mu.Unlock()
	slices.SortFunc(hs, func(a, b *Handler) int { return strings.Compare(a.server, b.server) })
	var out []Connection
	for _, h := range hs {
		c, err := h.Connection(ctx, subject)
		if errors.Is(err, token.ErrNotFound) {
			continue
		}
		if err != nil {
			continue // the issuer is not known now: nothing to show
		}
		out = append(out, *c)
	}
	return out, nil
}

// Disconnect ends subject's connection to server ([Handler.Disconnect]).
func (s *SignIns) Disconnect(ctx context.Context, subject, server string) error {
	h := s.handler(server)
	if h == nil {
		return fmt.Errorf("OAuth: no sign-in to %q here", server)
	}
	return h.Disconnect(ctx, subject)
}
