package outbound

import (
	"fmt"
	"net/http"
)

// Client returns the client an upstream's transports use: base (or a
// client of shared) with the configured headers and bearer token added
// only to requests for the origin of rawURL, and redirects checked. A base
// without a Transport uses shared too (http.DefaultTransport if nil). A
// response may be read for DrainGrace past its request's context, so that
// its connection is reused. wrap, when set, wraps the base client's
// transport first.
func Client(base *http.Client, shared http.RoundTripper, rawURL string, headers map[string]string, bearer string, wrap func(http.RoundTripper) http.RoundTripper) (*http.Client, error) {
	if base == nil {
		base = &http.Client{}
	}
	origin, err := OriginOfString(rawURL)
	if err != nil {
		return nil, err
	}
	h := make(http.Header, len(headers)+1)
	for k, v := range headers {
		h.Set(k, v)
	}
	if bearer != "" {
		h.Set("Authorization", "Bearer "+bearer)
	}
	cp := *base
	rt := cp.Transport
	if rt == nil {
		rt = shared
	}
	if rt == nil {
		rt = http.DefaultTransport
	}
	rt = &drainTransport{base: rt}
	if wrap != nil {
		rt = wrap(rt)
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
	if SameOrigin(r.URL, t.origin) {
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
		if len(via) >= MaxRedirects {
			return fmt.Errorf("stopped after %d redirects", MaxRedirects)
		}
		if prev := via[len(via)-1]; prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("%w: a redirect from %s to %s would downgrade to plain HTTP", ErrOutbound, OriginOf(prev.URL), OriginOf(req.URL))
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
}
