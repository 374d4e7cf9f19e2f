package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
)

// The legacy HTTP+SSE transport (protocol 2024-11-05), for the endpoints
// that enable it (config legacySSE): GET /sse[/<virtual>] opens a session
// and streams the server's messages; the client POSTs its own to
// /message[/<virtual>]?sessionid=ID.
//
// go-sdk's SSEHandler is not used: the messages it reads carry no request
// extra, so every call would be anonymous whatever token came with it,
// and its sessions have no id (a reload could not end them). Here each
// POST's verified token reaches the call as on /mcp, a session is bound to
// the subject that opened it, has an id (liveSessions, revocation on
// reload) and counts against the session caps.

// sseHub serves the legacy SSE routes of every endpoint.
type sseHub struct {
	g       *Gateway
	checked http.Handler // h.serve behind the clients' token check

	mu       sync.Mutex
	sessions map[string]*sseSession
	perID    map[string]int // identity → its open streams
	opening  int            // streams being opened
}

// sseSession is one open stream.
type sseSession struct {
	endpoint string
	subject  string // the token's subject; "" when opened without auth
	conn     *sseConn
}

// sseQueue bounds the messages a session holds unread; a client posting
// faster waits (its POST does) until the server catches up.
const sseQueue = 100

func newSSEHub(g *Gateway) *sseHub {
	h := &sseHub{g: g, sessions: map[string]*sseSession{}, perID: map[string]int{}}
	h.checked = auth.RequireBearerToken(g.verifyClient, nil)(http.HandlerFunc(h.serve))
	return h
}

// sseEnabled reports whether the endpoint name serves legacy SSE under cfg.
func sseEnabled(cfg *config.Config, name string) bool {
	if cfg.Gateway.LegacySSE {
		return true
	}
	v := cfg.Gateway.Virtual[name]
	return name != "" && v != nil && v.LegacySSE
}

// ssePath splits a legacy SSE path: the route ("sse" or "message") and
// the endpoint name.
func ssePath(p string) (route, name string, ok bool) {
	for _, r := range [...]string{"sse", "message"} {
		rest, found := strings.CutPrefix(p, "/"+r)
		if !found || (rest != "" && rest[0] != '/') {
			continue
		}
		name = strings.Trim(rest, "/")
		return r, name, !strings.Contains(name, "/")
	}
	return "", "", false
}

func (h *sseHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, name, ok := ssePath(r.URL.Path)
	if _, known := h.g.eps()[name]; !ok || !known || !sseEnabled(h.g.Config(), name) {
		// Off (the default) looks like no route at all.
		http.NotFound(w, r)
		return
	}
	if h.g.live.Load().auth.required() {
		h.checked.ServeHTTP(w, r)
		return
	}
	h.serve(w, r)
}

func (h *sseHub) serve(w http.ResponseWriter, r *http.Request) {
	route, name, _ := ssePath(r.URL.Path)
	switch {
	case route == "sse" && r.Method == http.MethodGet:
		h.open(w, r, name)
	case route == "message" && r.Method == http.MethodPost:
		h.message(w, r, name)
	default:
		allow := http.MethodGet
		if route == "message" {
			allow = http.MethodPost
		}
		w.Header().Set("Allow", allow)
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// subjectOf is the verified subject of r, "" without auth.
func subjectOf(r *http.Request) string {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		return ti.UserID
	}
	return ""
}

// identityOf is who a stream counts against: the subject, else the
// client's address (as mcpadapter's session caps count).
func identityOf(r *http.Request) string {
	if s := subjectOf(r); s != "" {
		return "user:" + s
	}
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i > 0 {
		host = host[:i]
	}
	return "addr:" + host
}

// capOf reads a session cap as mcpadapter does: zero means def, negative
// none.
func capOf(n, def int) int {
	switch {
	case n == 0:
		return def
	case n < 0:
		return 0
	}
	return n
}

// reserve counts a stream being opened by id (for subject, "" without
// auth), or returns the status that refuses it. Every live session of the
// gateway (streamable HTTP and SSE, of every endpoint) counts against the
// total; against one identity's cap, its SSE streams and, with auth, its
// streamable sessions too.
func (h *sseHub) reserve(id, subject string) int {
	maxSessions, perIdentity := sessionLimits(h.g.Config())
	maxSessions = capOf(maxSessions, export.DefaultMaxSessions)
	perIdentity = capOf(perIdentity, export.DefaultMaxSessionsPerIdentity)
	live := h.g.liveSessions()
	h.mu.Lock()
	defer h.mu.Unlock()
	if maxSessions > 0 && len(live)+h.opening >= maxSessions {
		return http.StatusServiceUnavailable
	}
	mine := h.perID[id]
	if subject != "" {
		mine += h.g.sessionCreds.held(subject, live, h.sessions)
	}
	if perIdentity > 0 && mine >= perIdentity {
		return http.StatusTooManyRequests
	}
	h.opening++
	h.perID[id]++
	return 0
}

func (h *sseHub) release(id, sid string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.perID[id]--; h.perID[id] <= 0 {
		delete(h.perID, id)
	}
	delete(h.sessions, sid)
}

// open serves GET /sse[/<name>]: a session for as long as the request
// lasts.
func (h *sseHub) open(w http.ResponseWriter, r *http.Request, name string) {
	ep, ok := h.g.eps()[name]
	if !ok { // a reload removed it since ServeHTTP looked
		http.NotFound(w, r)
		return
	}
	id := identityOf(r)
	if code := h.reserve(id, subjectOf(r)); code != 0 {
		w.Header().Set("Retry-After", strconv.Itoa(sessionRetryAfter))
		msg := "too many MCP sessions on this server"
		if code == http.StatusTooManyRequests {
			msg = "too many MCP sessions for this client"
		}
		http.Error(w, msg, code)
		return
	}
	sid := rand.Text()
	endpoint := "/message"
	if name != "" {
		endpoint += "/" + name
	}
	c := &sseConn{id: sid, w: w, endpoint: endpoint + "?sessionid=" + sid,
		incoming: make(chan jsonrpc.Message, sseQueue), done: make(chan struct{})}
	h.mu.Lock()
	h.sessions[sid] = &sseSession{endpoint: name, subject: subjectOf(r), conn: c}
	h.mu.Unlock()
	defer h.release(id, sid)
	defer c.finish()
	opened := func() {
		h.mu.Lock()
		h.opening-- // counted by liveSessions from Connect on
		h.mu.Unlock()
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	ss, err := ep.exp.MCPServer().Connect(r.Context(), sseTransport{c}, nil)
	opened()
	if err != nil {
		http.Error(w, "connection failed", http.StatusInternalServerError)
		return
	}
	defer ss.Close()
	if a := h.g.live.Load().auth; a.required() {
		// A reload that revokes the token ends the stream.
		h.g.sessionCreds.opened(r.Context(), h.g, a, sid, r)
	}
	// A reload that turns legacySSE off ends the stream (one that revokes
	// the token or turns auth on closes the session itself).
	tick := time.NewTicker(sseRecheck)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-c.done:
			return
		case <-tick.C:
			if !sseEnabled(h.g.Config(), name) {
				return
			}
		}
	}
}

// sseRecheck is how often an open stream checks that its endpoint still
// serves legacy SSE.
const sseRecheck = 2 * time.Second

// held counts the live sessions opened with subject's token, those in
// skip (SSE streams, counted by the hub) aside.
func (c *sessionCreds) held(subject string, live map[string]*mcp.ServerSession, skip map[string]*sseSession) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for id, cred := range c.m {
		if _, ok := live[id]; ok && cred.subject == subject && skip[id] == nil {
			n++
		}
	}
	return n
}

// sessionRetryAfter is the Retry-After of a refused stream, in seconds
// (mcpadapter's for a refused session).
const sessionRetryAfter = 30

// message serves POST /message[/<name>]?sessionid=ID: one JSON-RPC
// message for the session, answered on its stream.
func (h *sseHub) message(w http.ResponseWriter, r *http.Request, name string) {
	sid := r.URL.Query().Get("sessionid")
	h.mu.Lock()
	s := h.sessions[sid]
	h.mu.Unlock()
	// Another endpoint's session, or another subject's (a stolen session
	// id with the thief's own token), is not found either: nothing says
	// that it exists.
	if s == nil || s.endpoint != name || s.subject != subjectOf(r) {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, "Content-Type must be 'application/json'", http.StatusUnsupportedMediaType)
		return
	}
	limit := int64(export.DefaultMaxRequestBodyBytes)
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "failed to read body", http.StatusBadRequest)
		return
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		http.Error(w, "failed to parse body", http.StatusBadRequest)
		return
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		// What /mcp gives a call: the verified token (the caller's
		// identity, this POST's scopes) and the header, credentials
		// dropped.
		req.Extra = &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: withoutCredentials(r.Header)}
	}
	full := time.NewTimer(sseQueueWait)
	defer full.Stop()
	select {
	case s.conn.incoming <- msg:
		w.WriteHeader(http.StatusAccepted)
	case <-s.conn.done:
		http.Error(w, "session closed", http.StatusNotFound)
	case <-full.C:
		// A client flooding a session it does not read holds no more
		// than this of the gateway's goroutines and connections.
		w.Header().Set("Retry-After", "1")
		http.Error(w, "the session is not keeping up; retry", http.StatusServiceUnavailable)
	case <-r.Context().Done():
	}
}

// sseQueueWait is how long a message waits for room in its session's
// queue before it is refused.
const sseQueueWait = 5 * time.Second

// credentialHeaders never reach a call's request extra.
var credentialHeaders = [...]string{"Authorization", "Proxy-Authorization", "Cookie"}

func withoutCredentials(h http.Header) http.Header {
	h = h.Clone()
	for _, k := range credentialHeaders {
		h.Del(k)
	}
	return h
}

// sseTransport connects a server to one stream.
type sseTransport struct{ c *sseConn }

// Connect sends the endpoint event.
func (t sseTransport) Connect(context.Context) (mcp.Connection, error) {
	if err := t.c.event("endpoint", []byte(t.c.endpoint)); err != nil {
		return nil, err
	}
	return t.c, nil
}

// SupportsProtocolVersion: 2026-07-28 has no HTTP+SSE binding.
func (sseTransport) SupportsProtocolVersion(v string) bool { return v < "2026-07-28" }

// sseConn is the server's side of one stream: writes are events on the
// GET's response, reads the messages POSTed for it.
type sseConn struct {
	id, endpoint string
	incoming     chan jsonrpc.Message

	mu     sync.Mutex // held while writing to w
	w      http.ResponseWriter
	closed atomic.Bool
	once   sync.Once
	done   chan struct{}
}

func (c *sseConn) event(name string, data []byte) error {
	if c.closed.Load() {
		return io.EOF // without waiting behind a blocked write
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Load() {
		return io.EOF // the GET is returning: its writer is going
	}
	if _, err := fmt.Fprintf(c.w, "event: %s\ndata: %s\n\n", name, data); err != nil {
		return err
	}
	_ = http.NewResponseController(c.w).Flush() // best effort, as go-sdk's
	return nil
}

func (c *sseConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m, nil
	case <-c.done:
		return nil, io.EOF
	}
}

func (c *sseConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(m) // one line: JSON escapes newlines
	if err != nil {
		return err
	}
	return c.event("message", data)
}

// Close ends the stream. It never waits for a write: a client that stops
// reading blocks the one in progress (until the server's write timeout),
// and a reload closing its session must not wait with it.
func (c *sseConn) Close() error {
	c.once.Do(func() {
		c.closed.Store(true)
		close(c.done)
	})
	return nil
}

// finish is the GET's last act: no write may touch w once it returns, so
// it closes, cuts a write in progress short and waits for it to end.
func (c *sseConn) finish() {
	c.Close()
	_ = http.NewResponseController(c.w).SetWriteDeadline(time.Now())
	c.mu.Lock()
	c.mu.Unlock() //nolint:staticcheck // an empty critical section: the wait is the point
}

func (c *sseConn) SessionID() string { return c.id }
