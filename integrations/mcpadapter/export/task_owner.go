package export

import (
	"context"
	"net"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
)

// taskOwner is the caller a task is bound to and counted against: the
// verified subject; for a caller that proved none, its session where the
// session outlives a request (stdio, in-memory, a 2025-11-25 HTTP
// session: the anonymous identity "anonymous:<session id>" of
// sessionScope), else (the stateless endpoint, where each request is a
// session of its own) the client's address, as the session caps count it
// (identityOf). Behind a reverse proxy that address is the proxy's.
func (s *Server) taskOwner(ctx context.Context, req mcp.Request) string {
	extra := req.GetExtra()
	if extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
		return "sub:" + extra.TokenInfo.UserID
	}
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if ss == nil {
		return "anon"
	}
	if ss.ID() == "" && extra != nil && extra.Header != nil {
		if addr, ok := ctx.Value(clientAddrKey{}).(string); ok {
			return "anon:addr:" + addr
		}
		return "anon"
	}
	id := adapter.IdentityFromContext(s.sessionScope(ctx, ss))
	switch {
	case id == nil || id.Subject == "":
		return "anon"
	case id.Anonymous:
		return "anon:" + id.Subject
	}
	return "sub:" + id.Subject
}

// clientAddrKey carries the client's IP address from the HTTP request to
// the MCP handlers (go-sdk's RequestExtra has none).
type clientAddrKey struct{}

// withClientAddr puts the client's address of each request in its
// context (see taskOwner).
func withClientAddr(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), clientAddrKey{}, host)))
	})
}
