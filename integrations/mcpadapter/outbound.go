package mcpadapter

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// The outbound policy: what the manager's HTTP requests may carry where.
// net/http drops the Authorization header of a redirected request when the
// host changes, but only for headers set on the request itself; headers a
// RoundTripper adds on every hop follow any redirect. So both rules are
// decided here, per request, and nowhere else:
//
//   - A server's configured Headers and BearerToken go only to the origin
//     (scheme, host and port) of its URL. A redirect to another origin is
//     followed without them (as net/http does for its own headers), and
//     without any Authorization header; a redirect from https to http is
//     refused.
//   - OAuth client credentials (a client secret, a signed assertion, an
//     enterprise grant) go only to the authorization server of
//     OAuth.Issuer when it is set, else only to one on the resource's own
//     origin. An OAuth request with a body (token, registration) never
//     follows a redirect to another origin, and no OAuth endpoint is called
//     over plain HTTP unless it is on a loopback address.

// ErrOutbound reports a request the outbound policy refused; the error
// wrapping it says which rule.
var ErrOutbound = errors.New("refused by the outbound HTTP policy")

// maxRedirects is net/http's own limit, kept when CheckRedirect is ours.
const maxRedirects = 10

// originOf is the scheme, host and port of u, with the scheme's default
// port made explicit, so that https://h and https://h:443 are one origin.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

func originOfString(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%q is not an absolute URL", truncate(raw, 200))
	}
	return originOf(u), nil
}

// IsLoopback reports whether addr ("host", "host:port", "[::1]:port")
// names a loopback host: localhost, an address in 127.0.0.0/8 or ::1
// (also as an IPv4-mapped address). It is the one loopback rule of the
// module and of the gateway: go-sdk's rule for the Host of requests to a
// loopback listener, and where plain HTTP and OAuth secrets may go.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// checkEndpoint refuses an OAuth endpoint that is not https, unless it is
// plain http on a loopback address (a local development server).
func checkEndpoint(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%w: the %s %q is not an absolute URL", ErrOutbound, what, truncate(raw, 200))
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && IsLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%w: the %s %q is neither https nor on a loopback address", ErrOutbound, what, truncate(raw, 200))
}

// upstreamClient returns the client the transports use for s: s's client
// (or http.DefaultClient) with its configured headers added only to
// requests for the origin of s.URL, and redirects checked.
func upstreamClient(s *Server) (*http.Client, error) {
	base := s.HTTPClient
	if base == nil {
		base = http.DefaultClient
	}
	origin, err := originOfString(s.URL)
	if err != nil {
		return nil, err
	}
	h := make(http.Header, len(s.Headers)+1)
	for k, v := range s.Headers {
		h.Set(k, v)
	}
	if s.BearerToken != "" {
		h.Set("Authorization", "Bearer "+s.BearerToken)
	}
	cp := *base
	rt := cp.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if s.SSE {
		rt = &sseStreamTransport{base: rt}
	}
	cp.Transport = &headerTransport{base: rt, origin: origin, h: h}
	cp.CheckRedirect = checkUpstreamRedirect(base.CheckRedirect)
	return &cp, nil
}

// headerTransport adds the configured headers to requests for origin and
// strips them, and any Authorization, from requests for any other.
type headerTransport struct {
	base   http.RoundTripper
	origin string
	h      http.Header
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if originOf(r.URL) == t.origin {
		if len(t.h) == 0 {
			return t.base.RoundTrip(r)
		}
		r = r.Clone(r.Context())
		for k, v := range t.h {
			r.Header[k] = v
		}
		return t.base.RoundTrip(r)
	}
	if r.Header.Get("Authorization") != "" || t.carries(r.Header) {
		r = r.Clone(r.Context())
		r.Header.Del("Authorization")
		for k := range t.h {
			r.Header.Del(k)
		}
	}
	return t.base.RoundTrip(r)
}

func (t *headerTransport) carries(h http.Header) bool {
	for k := range t.h {
		if _, ok := h[k]; ok {
			return true
		}
	}
	return false
}

// checkUpstreamRedirect refuses a downgrade from https to http (the
// request would go out in clear, whatever it carries), then asks next.
func checkUpstreamRedirect(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		if prev := via[len(via)-1]; prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("%w: a redirect from %s to %s would downgrade to plain HTTP", ErrOutbound, originOf(prev.URL), originOf(req.URL))
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
}

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
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		prev := via[len(via)-1]
		if prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("%w: a redirect from %s to %s would downgrade to plain HTTP", ErrOutbound, originOf(prev.URL), originOf(req.URL))
		}
		if originOf(req.URL) != originOf(prev.URL) {
			if first := via[0]; first.Method != http.MethodGet && first.Method != http.MethodHead {
				return fmt.Errorf("%w: the authorization server redirected a %s request from %s to another origin, %s", ErrOutbound, first.Method, originOf(prev.URL), originOf(req.URL))
			}
			if !IsLoopback(prev.URL.Hostname()) {
				if err := refuseInternal(req.Context(), req.URL.Hostname()); err != nil {
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

// refuseInternal refuses host if it is or resolves to a loopback, private,
// link-local or unspecified address.
func refuseInternal(ctx context.Context, host string) error {
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		ips = []netip.Addr{ip}
	} else if host == "localhost" {
		return fmt.Errorf("%w: redirect from a public address into %q", ErrOutbound, host)
	} else {
		ips, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return fmt.Errorf("resolving the redirect's host %q: %w", truncate(host, 200), err)
		}
	}
	for _, ip := range ips {
		ip = ip.Unmap()
		if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() {
			return fmt.Errorf("%w: redirect from a public address into %s", ErrOutbound, ip)
		}
	}
	return nil
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
			return fmt.Errorf("%w: the server names the authorization server %q, not the configured issuer %q", ErrOutbound, truncate(as, 200), p.pin)
		}
		return nil
	}
	if !p.credentials {
		return nil // a public client may sign in wherever the resource says
	}
	ao, err := originOfString(as)
	if err != nil {
		return err
	}
	ro, err := originOfString(p.resource)
	if err != nil {
		return err
	}
	if ao != ro {
		return fmt.Errorf("%w: the server names the authorization server %q on another origin; client credentials go only to the server's own origin unless the issuer pin (OAuth.Issuer, oauth.issuer in the gateway's file) names the one they were issued by", ErrOutbound, truncate(as, 200))
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
		return fmt.Errorf("%w: invalid authorization URL", ErrOutbound)
	}
	w, err := url.Parse(want)
	if err != nil || originOf(u) != originOf(w) || u.Path != w.Path {
		return fmt.Errorf("%w: the authorization URL is not at the accepted issuer's endpoint %q", ErrOutbound, want)
	}
	return nil
}
