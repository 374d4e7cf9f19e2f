package export

import (
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Session caps of the streamable HTTP export.
const (
	// DefaultMaxSessions caps the sessions of an exporter's server (or of
	// every handler sharing a [SessionLimiter]); a new session past it is
	// refused with 503 and Retry-After.
	DefaultMaxSessions = 1000
	// DefaultMaxSessionsPerIdentity caps the sessions of one identity; a
	// new session past it is refused with 429 and Retry-After.
	DefaultMaxSessionsPerIdentity = 100
	// sessionRetryAfter is the Retry-After of a refused session, in seconds.
	sessionRetryAfter = 30
)

// A SessionLimiter refuses new streamable HTTP sessions past its caps. Give
// one to the handlers of several exporters (HTTPOptions.Sessions) and the
// caps count across them all: one client opening sessions on four
// endpoints of a gateway holds at most its cap in all, not four times it.
// It counts the live sessions of the go-sdk servers it admitted sessions
// to (so sessions closed by DELETE, idle timeout or a dead client free
// their place) plus those being opened, and knows the identity that opened
// each one: the bearer token's subject with Auth, else the client's IP
// address (behind a reverse proxy, the proxy's: every client then shares
// one per-identity cap). It is safe for concurrent use.
type SessionLimiter struct {
	mu               sync.Mutex
	max, perIdentity int
	opening          map[string]int        // identity → new-session requests in flight
	owner            map[sessionKey]string // live session → identity
	servers          map[*mcp.Server]int   // server → sessions of it in owner
}

// sessionKey names a session of one server: ids are only unique per server.
type sessionKey struct {
	srv *mcp.Server
	id  string
}

// NewSessionLimiter returns a limiter allowing maxSessions live sessions
// in all and maxPerIdentity to one identity; zero means
// DefaultMaxSessions and DefaultMaxSessionsPerIdentity, negative means no
// cap.
func NewSessionLimiter(maxSessions, maxPerIdentity int) *SessionLimiter {
	l := &SessionLimiter{opening: map[string]int{}, owner: map[sessionKey]string{}, servers: map[*mcp.Server]int{}}
	l.SetLimits(maxSessions, maxPerIdentity)
	return l
}

// SetLimits changes the caps (as [NewSessionLimiter] reads them) for the
// sessions opened from now on; live sessions past a lowered cap stay.
func (l *SessionLimiter) SetLimits(maxSessions, maxPerIdentity int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.max, l.perIdentity = capOf(maxSessions, DefaultMaxSessions), capOf(maxPerIdentity, DefaultMaxSessionsPerIdentity)
}

func (s *Server) limitSessions(h http.Handler, opts *HTTPOptions) http.Handler {
	if opts.Stateless {
		return h // sessions live for one request
	}
	l := opts.Sessions
	if l == nil {
		l = NewSessionLimiter(opts.MaxSessions, opts.MaxSessionsPerIdentity)
		if l.max == 0 && l.perIdentity == 0 {
			return h
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			h.ServeHTTP(w, r) // not a new session
			return
		}
		id := identityOf(r)
		if code := l.reserve(s.mcp, id); code != 0 {
			w.Header().Set("Retry-After", strconv.Itoa(sessionRetryAfter))
			msg := "too many MCP sessions on this server"
			if code == http.StatusTooManyRequests {
				msg = "too many MCP sessions for this client"
			}
			http.Error(w, msg, code)
			return
		}
		defer func() { l.opened(s.mcp, id, w.Header().Get("Mcp-Session-Id")) }()
		h.ServeHTTP(w, r)
	})
}

// newListenCaps bounds the subscriptions/listen streams of a handler by
// its session caps (see listenCaps).
func newListenCaps(opts *HTTPOptions) *listenCaps {
	total, per := capOf(opts.MaxSessions, DefaultMaxSessions), capOf(opts.MaxSessionsPerIdentity, DefaultMaxSessionsPerIdentity)
	caps := func() (int, int) { return total, per }
	if l := opts.Sessions; l != nil {
		caps = func() (int, int) {
			l.mu.Lock()
			defer l.mu.Unlock()
			return l.max, l.perIdentity
		}
	}
	return &listenCaps{caps: caps, open: map[string]int{}}
}

// capOf reads a cap option: zero means def, negative means none (0).
func capOf(n, def int) int {
	switch {
	case n == 0:
		return def
	case n < 0:
		return 0
	}
	return n
}

// identityOf is who opens a session: the verified token's subject, else
// the client's address.
func identityOf(r *http.Request) string {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil && ti.UserID != "" {
		return "user:" + ti.UserID
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "addr:" + host
}

// reserve returns 0 and counts a session being opened by id on srv, or
// the status that refuses it.
func (l *SessionLimiter) reserve(srv *mcp.Server, id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	total := l.sweep(srv)
	mine := l.opening[id]
	for _, owner := range l.owner {
		if owner == id {
			mine++
		}
	}
	for _, n := range l.opening {
		total += n
	}
	if l.max > 0 && total >= l.max {
		return http.StatusServiceUnavailable
	}
	if l.perIdentity > 0 && mine >= l.perIdentity {
		return http.StatusTooManyRequests
	}
	l.opening[id]++
	return 0
}

// sweep forgets the sessions that ended and returns how many are live on
// srv and on every server the limiter admitted a live session to
// (sessions a server got another way, over stdio say, count too). l.mu is
// held.
func (l *SessionLimiter) sweep(srv *mcp.Server) int {
	total := 0
	live := make(map[sessionKey]bool, len(l.owner))
	count := func(m *mcp.Server) {
		for ss := range m.Sessions() {
			if ephemeral(ss) {
				continue // a 2026-07-28 request's, gone with its request
			}
			total++
			live[sessionKey{m, ss.ID()}] = true
		}
	}
	count(srv)
	for m := range l.servers {
		if m != srv {
			count(m)
		}
	}
	for k := range l.owner {
		if !live[k] {
			delete(l.owner, k) // closed: its place is free
			if l.servers[k.srv]--; l.servers[k.srv] <= 0 {
				delete(l.servers, k.srv)
			}
		}
	}
	return total
}

// ephemeral reports whether ss is the temporary session of one stateless
// request of protocol 2026-07-28 or later: it is not a session a client
// opened, and counts under no cap.
func ephemeral(ss *mcp.ServerSession) bool {
	if ss.ID() != "" {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= protocolStateless
}

// opened records the owner of the session sid of srv (sid is empty when
// none opened).
func (l *SessionLimiter) opened(srv *mcp.Server, id, sid string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.opening[id]--; l.opening[id] <= 0 {
		delete(l.opening, id)
	}
	if sid != "" {
		k := sessionKey{srv, sid}
		if _, ok := l.owner[k]; !ok {
			l.servers[srv]++
		}
		l.owner[k] = id
	}
}
