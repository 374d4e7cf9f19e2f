package oauth

import (
	"context"
	"errors"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/outbound"
)

// Enterprise configures enterprise-managed authorization (SEP-990,
// "cross-app access"): the user's ID token from the enterprise identity
// provider is exchanged there for an identity assertion grant (ID-JAG, RFC
// 8693 token exchange), which the MCP server's authorization server takes
// in a JWT-bearer grant (RFC 7523) for an access token. The user signs in
// once, at the IdP; no MCP server sends them anywhere.
type Enterprise struct {
	// IDToken returns the user's OpenID Connect ID token from the IdP (an
	// OIDC login, or a token the application already holds). Required.
	IDToken func(ctx context.Context) (string, error)
	// IdPTokenURL is the IdP's token endpoint, where the ID token is
	// exchanged. Required.
	IdPTokenURL string
	// IdPClientID and IdPClientSecret identify this client at the IdP; the
	// secret is empty for a public client.
	IdPClientID     string
	IdPClientSecret string
	// ClientID and ClientSecret identify this client at the MCP server's
	// authorization server (client_secret_basic).
	ClientID     string
	ClientSecret string
	// Scopes to request; nil means the discovered ones.
	Scopes []string
}

func (e *Enterprise) validate() error {
	if e.IDToken == nil || e.IdPTokenURL == "" || e.IdPClientID == "" || e.ClientID == "" {
		return errors.New("OAuth.Enterprise needs IDToken, IdPTokenURL, IdPClientID and ClientID")
	}
	return nil
}

// enterprise obtains a token by enterprise-managed authorization: go-sdk's
// oauthex.ExchangeToken at the IdP, then the JWT-bearer grant with x/oauth2.
// (go-sdk's extauth.EnterpriseHandler needs the MCP authorization server's
// URL up front and IdP metadata advertising PKCE; this discovers the former
// and is given the IdP's token endpoint.)
func (h *Handler) enterprise(ctx context.Context, mcpURL string, cs []oauthex.Challenge) error {
	prm, asm, err := h.discover(ctx, mcpURL, cs)
	if err != nil {
		return err
	}
	e := h.cfg.Enterprise
	scopes := e.Scopes
	if scopes == nil {
		scopes = scopesFrom(cs, prm.ScopesSupported)
	}
	if err := outbound.CheckEndpoint("identity provider's token endpoint", e.IdPTokenURL); err != nil {
		return err
	}
	idToken, err := e.IDToken(ctx)
	if err != nil {
		return err
	}
	idp := &oauthex.ClientCredentials{ClientID: e.IdPClientID}
	if e.IdPClientSecret != "" {
		idp.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: e.IdPClientSecret}
	}
	jag, err := oauthex.ExchangeToken(ctx, e.IdPTokenURL, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG,
		Audience:           asm.Issuer,
		Resource:           prm.Resource,
		Scope:              scopes,
		SubjectToken:       idToken,
		SubjectTokenType:   oauthex.TokenTypeIDToken,
	}, idp, h.hc)
	if err != nil {
		return safeOAuthError("exchanging the ID token at the identity provider", err)
	}
	// x/oauth2's client-credentials request lets grant_type be replaced:
	// the JWT-bearer grant is otherwise the same request.
	c := &clientcredentials.Config{ClientID: e.ClientID, ClientSecret: e.ClientSecret, TokenURL: asm.TokenEndpoint,
		Scopes: scopes, AuthStyle: oauth2.AuthStyleInHeader, EndpointParams: url.Values{
			"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"},
			"assertion":  {jag.AccessToken},
			"resource":   {prm.Resource},
		}}
	tctx, cancel := context.WithTimeout(context.WithValue(ctx, oauth2.HTTPClient, h.hc), time.Minute)
	defer cancel()
	t, err := c.Token(tctx)
	if err != nil {
		return safeOAuthError("JWT-bearer grant", err)
	}
	ts, err := h.persist(ctx, &oauth2.Config{ClientID: e.ClientID, Endpoint: oauth2.Endpoint{TokenURL: asm.TokenEndpoint}}, t)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.ts = ts
	h.mu.Unlock()
	return nil
}
