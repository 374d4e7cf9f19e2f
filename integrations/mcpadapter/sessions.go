package mcpadapter

import (
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Session caps of the streamable HTTP export.
const (
	// DefaultMaxSessions caps the sessions of an exporter's server; a new
	// session past it is refused with 503 and Retry-After.
	DefaultMaxSessions = 1000
	// DefaultMaxSessionsPerIdentity caps the sessions of one identity; a
	// new session past it is refused with 429 and Retry-After.
	DefaultMaxSessionsPerIdentity = 100
	// sessionRetryAfter is the Retry-After of a refused session, in seconds.
	sessionRetryAfter = 30
)

// sessionLimiter refuses new sessions past the caps. It counts the live
// sessions of the go-sdk server (so sessions closed by DELETE, idle timeout
// or a dead client free their place) plus those being opened, and knows
// the identity that opened each one.
type sessionLimiter struct {
	s                *Exporter
	max, perIdentity int

	mu      sync.Mutex
	opening map[string]int    // identity → new-session requests in flight
	owner   map[string]string // session id → identity
}

func (s *Exporter) limitSessions(h http.Handler, opts *HTTPOptions) http.Handler {
	if opts.Stateless {
		return h // sessions live for one request
	}
	l := &sessionLimiter{s: s, max: capOf(opts.MaxSessions, DefaultMaxSessions),
		perIdentity: capOf(opts.MaxSessionsPerIdentity, DefaultMaxSessionsPerIdentity),
		opening:     map[string]int{}, owner: map[string]string{}}
	if l.max == 0 && l.perIdentity == 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			h.ServeHTTP(w, r) // not a new session
			return
		}
		id := identityOf(r)
		if code := l.reserve(id); code != 0 {
			w.Header().Set("Retry-After", strconv.Itoa(sessionRetryAfter))
			msg := "too many MCP sessions on this server"
			if code == http.StatusTooManyRequests {
				msg = "too many MCP sessions for this client"
			}
			http.Error(w, msg, code)
			return
		}
		defer func() { l.opened(id, w.Header().Get("Mcp-Session-Id")) }()
		h.ServeHTTP(w, r)
	})
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

// reserve returns 0 and counts a session being opened by id, or the status
// that refuses it.
func (l *sessionLimiter) reserve(id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	total, mine := 0, l.opening[id]
	live := make(map[string]bool, len(l.owner))
	for ss := range l.s.mcp.Sessions() {
		total++
		sid := ss.ID()
		live[sid] = true
		if l.owner[sid] == id {
			mine++
		}
	}
	for sid := range l.owner {
		if !live[sid] {
			delete(l.owner, sid) // closed: its place is free
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

// opened records the session id's owner (sid is empty when none opened).
func (l *sessionLimiter) opened(id, sid string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.opening[id]--; l.opening[id] <= 0 {
		delete(l.opening, id)
	}
	if sid != "" {
		l.owner[sid] = id
	}
}
