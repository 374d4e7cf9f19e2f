package mcpadapter

import (
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

// upstreamClient returns the client the transports use for s, on shared
// unless s.HTTPClient has a transport: see outbound.Client.
func upstreamClient(s *Upstream, shared http.RoundTripper) (*http.Client, error) {
	var wrap func(http.RoundTripper) http.RoundTripper
	if s.SSE {
		wrap = func(rt http.RoundTripper) http.RoundTripper { return &transport.SSEStream{Base: rt} }
	}
	return outbound.Client(s.HTTPClient, shared, s.URL, s.Headers, s.BearerToken, wrap)
}
