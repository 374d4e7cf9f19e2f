package mcpadapter

import (
	"fmt"
	"net/http"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/outbound"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/transport"
)

// ErrOutbound reports a request the outbound policy refused; the error
// wrapping it says which rule. The import's transports and the OAuth client
// ([oauth.Handler]) share the policy.
var ErrOutbound = outbound.ErrOutbound

// IsLoopback reports whether addr ("host", "host:port", "[::1]:port")
// names a loopback host: localhost, an address in 127.0.0.0/8 or ::1
// (also as an IPv4-mapped address). It is the one loopback rule of the
// module and of the gateway: go-sdk's rule for the Host of requests to a
// loopback listener, and where plain HTTP and OAuth secrets may go.
func IsLoopback(addr string) bool { return outbound.IsLoopback(addr) }

// truncate bounds s, text from a peer quoted in an error, to n bytes and
// an ellipsis, cut on a character boundary (a rune cut in two is left out).
func truncate(s string, n int) string { return outbound.Truncate(s, n) }

// upstreamClient returns the client the transports use for s: s's client
// (or http.DefaultClient) with its configured headers added only to
// requests for the origin of s.URL, and redirects checked.
func upstreamClient(s *Upstream) (*http.Client, error) {
	base := s.HTTPClient
	if base == nil {
		base = http.DefaultClient
	}
	origin, err := outbound.OriginOfString(s.URL)
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
		rt = &transport.SSEStream{Base: rt}
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
	if outbound.OriginOf(r.URL) == t.origin {
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
		if len(via) >= outbound.MaxRedirects {
			return fmt.Errorf("stopped after %d redirects", outbound.MaxRedirects)
		}
		if prev := via[len(via)-1]; prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("%w: a redirect from %s to %s would downgrade to plain HTTP", ErrOutbound, outbound.OriginOf(prev.URL), outbound.OriginOf(req.URL))
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
}
