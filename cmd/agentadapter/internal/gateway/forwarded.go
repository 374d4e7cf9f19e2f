package gateway

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// behindProxy gives the MCP routes the client's address when a trusted
// reverse proxy (trustedProxies) forwarded the request: r.RemoteAddr
// becomes the last address X-Forwarded-For names that is not itself a
// trusted proxy, as the console counts sign-ins. Everything keyed by the
// client's address then sees the client, not the proxy: the session caps
// (sessions.perIdentity) and who owns an anonymous client's tasks. From anyone else the header is ignored, so a
// client cannot pose as another address; a header that does not parse
// stops the walk at the last good hop.
func (g *Gateway) behindProxy(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if proxies := g.live.Load().proxies; len(proxies) > 0 {
			if addr, ok := forwardedClient(r, proxies); ok {
				r2 := *r // a shallow copy: the handler chain owns r
				r2.RemoteAddr = net.JoinHostPort(addr.String(), "0")
				r = &r2
			}
		}
		next.ServeHTTP(w, r)
	})
}

// forwardedClient is the client's address X-Forwarded-For names when the
// peer is one of proxies; ok is false when the peer is not, or the header
// names no address.
func forwardedClient(r *http.Request, proxies []netip.Prefix) (netip.Addr, bool) {
	trusted := func(ip netip.Addr) bool {
		for _, p := range proxies {
			if p.Contains(ip) {
				return true
			}
		}
		return false
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !trusted(peer.Unmap()) {
		return netip.Addr{}, false
	}
	var client netip.Addr
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		ip, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		client = ip.Unmap()
		if !trusted(client) {
			break
		}
	}
	return client, client.IsValid()
}
