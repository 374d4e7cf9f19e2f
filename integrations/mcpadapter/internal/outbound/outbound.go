// Package outbound is the outbound HTTP policy the MCP client's requests
// share: the import's upstream transports and the OAuth client.
//
//	if err := outbound.CheckEndpoint("token endpoint", raw); err != nil {
//		return err // wraps ErrOutbound
//	}
//
// The policy: what the manager's HTTP requests may carry where.
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
package outbound

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// ErrOutbound reports a request the outbound policy refused; the error
// wrapping it says which rule.
var ErrOutbound = errors.New("refused by the outbound HTTP policy")

// MaxRedirects is net/http's own limit, kept when CheckRedirect is ours.
const MaxRedirects = 10

// OriginOf is the scheme, host and port of u, with the scheme's default
// port made explicit, so that https://h and https://h:443 are one origin.
func OriginOf(u *url.URL) string { return string(appendOrigin(make([]byte, 0, 64), u)) }

// SameOrigin reports whether OriginOf(u) is origin, without allocating
// for an origin of up to 128 bytes (the check of every upstream request).
func SameOrigin(u *url.URL, origin string) bool {
	var buf [128]byte
	return string(appendOrigin(buf[:0], u)) == origin
}

func appendOrigin(b []byte, u *url.URL) []byte {
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
	b = append(append(b, scheme...), "://"...)
	if strings.IndexByte(host, ':') >= 0 { // as net.JoinHostPort
		b = append(append(append(b, '['), host...), ']')
	} else {
		b = append(b, host...)
	}
	return append(append(b, ':'), port...)
}

// OriginOfString is [OriginOf] of the absolute URL raw.
func OriginOfString(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%q is not an absolute URL", Truncate(raw, 200))
	}
	return OriginOf(u), nil
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

// CheckEndpoint refuses an OAuth endpoint that is not https, unless it is
// plain http on a loopback address (a local development server).
func CheckEndpoint(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%w: the %s %q is not an absolute URL", ErrOutbound, what, Truncate(raw, 200))
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && IsLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%w: the %s %q is neither https nor on a loopback address", ErrOutbound, what, Truncate(raw, 200))
}

// RefuseInternal refuses host if it is or resolves to a loopback, private,
// link-local or unspecified address.
func RefuseInternal(ctx context.Context, host string) error {
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		ips = []netip.Addr{ip}
	} else if host == "localhost" {
		return fmt.Errorf("%w: redirect from a public address into %q", ErrOutbound, host)
	} else {
		ips, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return fmt.Errorf("resolving the redirect's host %q: %w", Truncate(host, 200), err)
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

// Truncate bounds s, text from a peer quoted in an error, to n bytes and
// an ellipsis, cut on a character boundary (a rune cut in two is left out).
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
