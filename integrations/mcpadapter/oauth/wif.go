package oauth

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// grantJWTBearer is the JWT-bearer authorization grant (RFC 7523 §2.1).
const grantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// WorkloadIdentity configures workload identity federation (SEP-1933): a
// JWT the workload's platform issues it (a Kubernetes service account
// token, a cloud's identity token, a CI job's OIDC token) is presented to
// the MCP server's authorization server in a JWT-bearer grant (RFC 7523
// §2.1) for an access token. No user, no redirect, no client secret.
type WorkloadIdentity struct {
	// Assertion returns the workload's JWT for the authorization server
	// whose issuer is audience (the JWT's aud must name it). It is called
	// for every grant, so a token the platform rotates is read fresh.
	// Required.
	Assertion func(ctx context.Context, audience string) (string, error)
	// ClientID, if set, is sent as client_id (a public client: the
	// assertion authenticates the workload).
	ClientID string
	// Scopes to request; nil means the discovered ones.
	Scopes []string
}

func (w *WorkloadIdentity) validate() error {
	if w.Assertion == nil {
		return errors.New("OAuth.WorkloadIdentity needs an Assertion")
	}
	return nil
}

// workload obtains a token with the JWT-bearer grant. A refused grant is
// not retried with another grant type: the error names the server's code.
func (h *Handler) workload(ctx context.Context, mcpURL string, cs []oauthex.Challenge) error {
	prm, asm, err := h.discover(ctx, mcpURL, cs)
	if err != nil {
		return err
	}
	w := h.cfg.WorkloadIdentity
	scopes := w.Scopes
	if scopes == nil {
		scopes = scopesFrom(cs, prm.ScopesSupported)
	}
	src := &wifSource{w: w, asm: asm, scopes: scopes, resource: prm.Resource, h: h}
	// The first grant runs under the request's ctx, so that its failure
	// is the request's.
	if src.first, err = src.grant(ctx); err != nil {
		return err
	}
	h.mu.Lock()
	h.refusedAssertion = ""
	h.mu.Unlock()
	ts := &persistingSource{h: h, base: oauth2.ReuseTokenSource(nil, src), meta: token.Token{TokenURL: asm.TokenEndpoint}}
	if _, err := ts.Token(); err != nil {
		return err
	}
	h.mu.Lock()
	h.ts = ts
	h.mu.Unlock()
	return nil
}

// wifSource makes a new JWT-bearer grant, with a fresh assertion, each
// time its token expires.
type wifSource struct {
	w        *WorkloadIdentity
	asm      *oauthex.AuthServerMeta
	scopes   []string
	resource string
	h        *Handler

	first *oauth2.Token // the token of the grant workload made, handed out once
}

func (s *wifSource) Token() (*oauth2.Token, error) {
	if t := s.first; t != nil {
		s.first = nil // ReuseTokenSource serialises calls
		return t, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return s.grant(ctx)
}

func (s *wifSource) grant(ctx context.Context) (*oauth2.Token, error) {
	aud := cmp.Or(s.asm.Issuer, s.asm.TokenEndpoint)
	assertion, err := s.w.Assertion(ctx, aud)
	if err != nil {
		return nil, fmt.Errorf("workload identity assertion: %w", err)
	}
	if assertion == "" {
		return nil, errors.New("workload identity assertion: empty")
	}
	// An assertion the server refused is not presented again (go-sdk
	// authorizes once per request it retries): the refusal stands until
	// the platform issues another.
	sum := sha256.Sum256([]byte(assertion))
	key := hex.EncodeToString(sum[:])
	s.h.mu.Lock()
	refused, why := s.h.refusedAssertion == key, s.h.refusedWhy
	s.h.mu.Unlock()
	if refused {
		return nil, why
	}
	// x/oauth2's client-credentials request lets grant_type be replaced:
	// the JWT-bearer grant is otherwise the same request.
	c := &clientcredentials.Config{ClientID: s.w.ClientID, TokenURL: s.asm.TokenEndpoint, Scopes: s.scopes,
		AuthStyle: oauth2.AuthStyleInParams, EndpointParams: url.Values{
			"grant_type": {grantJWTBearer},
			"assertion":  {assertion},
		}}
	if s.resource != "" {
		c.EndpointParams.Set("resource", s.resource)
	}
	t, err := c.Token(context.WithValue(ctx, oauth2.HTTPClient, s.h.hc))
	if err != nil {
		var re *oauth2.RetrieveError
		refusal := errors.As(err, &re) // the server's answer, not a network failure
		err = safeOAuthError("JWT-bearer grant", err)
		if refusal {
			s.h.mu.Lock()
			s.h.refusedAssertion, s.h.refusedWhy = key, err
			s.h.mu.Unlock()
		}
		return nil, err
	}
	return t, nil
}
