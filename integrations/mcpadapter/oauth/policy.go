package oauth

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/outbound"
)

// oauthClient returns base with the OAuth redirect rules: no downgrade to
// plain HTTP, no request with a body (token, registration, token
// exchange: what carries a client secret or a grant) redirected to another
// origin, and no redirect from a public address into a loopback or private
// one (go-sdk's discovery refuses those too; its check gives way to a
// client's own CheckRedirect, so it is kept here).
func oauthClient(base *http.Client) *http.Client {
	cp := *base
	next := base.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= outbound.MaxRedirects {
			return fmt.Errorf("stopped after %d redirects", outbound.MaxRedirects)
		}
		prev := via[len(via)-1]
		if prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("%w: a redirect from %s to %s would downgrade to plain HTTP", outbound.ErrOutbound, outbound.OriginOf(prev.URL), outbound.OriginOf(req.URL))
		}
		if outbound.OriginOf(req.URL) != outbound.OriginOf(prev.URL) {
			if first := via[0]; first.Method != http.MethodGet && first.Method != http.MethodHead {
				return fmt.Errorf("%w: the authorization server redirected a %s request from %s to another origin, %s", outbound.ErrOutbound, first.Method, outbound.OriginOf(prev.URL), outbound.OriginOf(req.URL))
			}
			if !outbound.IsLoopback(prev.URL.Hostname()) {
				if err := outbound.RefuseInternal(req.Context(), req.URL.Hostname()); err != nil {
					return err
				}
			}
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return &cp
}

// issuerPolicy decides which authorization server a resource may send the
// client to, before anything is sent there.
type issuerPolicy struct {
	resource string // the MCP endpoint's URL
	pin      string // OAuth.Issuer; empty when not pinned
	// credentials is set when the flow sends a client credential (a
	// secret, a signed assertion, an enterprise grant) to the server, and
	// OAuth.AnyIssuer does not waive the origin rule.
	credentials bool
}

// check is called with the authorization server the resource's metadata
// names (or the 2025-03-26 fallback's, the resource's origin).
func (p *issuerPolicy) check(as string) error {
	if p.pin != "" {
		if !issuersEqual(as, p.pin) {
			return fmt.Errorf("%w: the server names the authorization server %q, not the configured issuer %q", outbound.ErrOutbound, outbound.Truncate(as, 200), p.pin)
		}
		return nil
	}
	if !p.credentials {
		return nil // a public client may sign in wherever the resource says
	}
	ao, err := outbound.OriginOfString(as)
	if err != nil {
		return err
	}
	ro, err := outbound.OriginOfString(p.resource)
	if err != nil {
		return err
	}
	if ao != ro {
		return fmt.Errorf("%w: the server names the authorization server %q on another origin; client credentials go only to the server's own origin unless the issuer pin (OAuth.Issuer, oauth.issuer in the gateway's file) names the one they were issued by", outbound.ErrOutbound, outbound.Truncate(as, 200))
	}
	return nil
}

// issuersEqual compares issuer identifiers as RFC 8414 §3.3 does, allowing
// only a trailing slash to differ.
func issuersEqual(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// sameEndpoint refuses an authorization URL that is not at the endpoint
// the accepted issuer's metadata names (go-sdk's second discovery found
// another server).
func sameEndpoint(authURL, want string) error {
	u, err := url.Parse(authURL)
	if err != nil {
		return fmt.Errorf("%w: invalid authorization URL", outbound.ErrOutbound)
	}
	w, err := url.Parse(want)
	if err != nil || outbound.OriginOf(u) != outbound.OriginOf(w) || u.Path != w.Path {
		return fmt.Errorf("%w: the authorization URL is not at the accepted issuer's endpoint %q", outbound.ErrOutbound, want)
	}
	return nil
}
