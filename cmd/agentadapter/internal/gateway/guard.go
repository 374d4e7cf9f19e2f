package gateway

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
)

// guard is the one defence in front of every route of serve's handler
// (MCP, console, operational endpoints, and whatever is added later), so
// that a route is protected by construction rather than by remembering:
//
//   - DNS rebinding: a request that reached a loopback address must name a
//     loopback host (localhost, 127.0.0.0/8, [::1]) in Host, go-sdk's rule
//     for its own handlers, or one of the configured allowedHosts. A page
//     on rebind.example that resolves to 127.0.0.1 sends its own name and
//     gets 403. With allowedHosts set, the rule holds on every listener.
//   - Cross-origin browser requests (Sec-Fetch-Site, Origin) that change
//     state get 403: http.CrossOriginProtection. So does one that opens
//     an event stream (Accept: text/event-stream), GET included, and
//     every GET of a legacy SSE stream route whatever its Accept: such a
//     GET opens a session, which a page's EventSource, <img> or no-cors
//     fetch must not do (nor hold the gateway's session slots).
//
// The allowed names are read from the configuration in force on every
// request, so a reload changes them at once.
func (g *Gateway) guard(h http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hostAllowed(r) {
			http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", truncateHost(r.Host)), http.StatusForbidden)
			return
		}
		if err := cop.Check(stateChanging(r)); err != nil {
			http.Error(w, "Forbidden: "+err.Error(), http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// stateChanging returns r, or for a safe request that opens an event
// stream (by its Accept, or by its path: the legacy SSE stream route,
// which opens one whatever the Accept) a shallow copy of it as a POST,
// which CrossOriginProtection then checks like any request that changes
// state.
func stateChanging(r *http.Request) *http.Request {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		return r
	}
	route, _, _ := ssePath(r.URL.Path)
	if route != "sse" && !strings.Contains(strings.ToLower(r.Header.Get("Accept")), "text/event-stream") {
		return r
	}
	c := *r
	c.Method = http.MethodPost
	return &c
}

// hostAllowed applies the Host rule of guard.
func (g *Gateway) hostAllowed(r *http.Request) bool {
	allowed := g.Config().Gateway.AllowedHosts
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if len(allowed) == 0 && (local == nil || !loopbackAddr(local)) {
		return true
	}
	if mcpadapter.IsLoopback(r.Host) {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, a := range allowed {
		if strings.EqualFold(host, a) {
			return true
		}
	}
	return false
}

// loopbackAddr is mcpadapter.IsLoopback(a.String()) without formatting a
// TCP address (the listener's, checked on every request).
func loopbackAddr(a net.Addr) bool {
	if t, ok := a.(*net.TCPAddr); ok {
		ip, ok := netip.AddrFromSlice(t.IP)
		return ok && ip.Unmap().IsLoopback()
	}
	return mcpadapter.IsLoopback(a.String())
}

// truncateHost bounds the Host quoted back in a refusal.
func truncateHost(h string) string {
	if len(h) > 100 {
		return h[:100] + "…"
	}
	return h
}

// Timeouts of serve's http.Server: the library's (mcpadapter.ServeListener
// runs the same), so a client trickling a request body is cut after
// DefaultReadTimeout and an idle keep-alive connection after
// DefaultIdleTimeout. A response, event streams included, is bounded by
// DefaultWriteTimeout; clients reopen a closed stream.
const (
	ReadHeaderTimeout = export.DefaultReadHeaderTimeout
	ReadTimeout       = export.DefaultReadTimeout
	WriteTimeout      = export.DefaultWriteTimeout
	IdleTimeout       = export.DefaultIdleTimeout
)

// newServer is the http.Server that Serve runs.
func newServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout: ReadTimeout, WriteTimeout: WriteTimeout, IdleTimeout: IdleTimeout}
}
