package export

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTP defaults.
const (
	// DefaultPath is where ListenAndServe serves streamable HTTP.
	DefaultPath = "/mcp"
	// DefaultSessionTimeout closes sessions idle for that long.
	DefaultSessionTimeout = 30 * time.Minute
	// DefaultMaxRequestBodyBytes bounds a request body (413 beyond).
	DefaultMaxRequestBodyBytes = mcp.DefaultMaxRequestBodyBytes
	// DefaultHost is the host ListenAndServe binds when addr names none.
	DefaultHost = "127.0.0.1"
)

// HTTPOptions configure the HTTP transports. The zero value is the secure
// default: streamable HTTP answering with event streams, 2026-07-28
// requests served statelessly and older clients with sessions
// closed after DefaultSessionTimeout idle, bodies limited to
// DefaultMaxRequestBodyBytes, DNS-rebinding protection on (a request
// reaching a loopback address with a non-loopback Host is refused with 403),
// cross-origin browser requests refused with 403, no authentication, at
// most DefaultMaxSessions sessions, DefaultMaxSessionsPerIdentity per
// client, and the server timeouts DefaultReadTimeout, DefaultWriteTimeout,
// DefaultIdleTimeout.
type HTTPOptions struct {
	// Stateless serves each request on a temporary session, whatever its
	// protocol version: no Mcp-Session-Id, no server-to-client requests (so
	// no elicitation or sampling before protocol 2026-07-28), no session
	// caps (the subscriptions/listen streams are still capped, see
	// MaxSessions). False (the default) serves 2026-07-28 requests statelessly and
	// older clients with sessions, on the same URL (see [Server.Handler]).
	Stateless bool
	// JSONResponse answers with application/json instead of event streams.
	JSONResponse bool
	// SessionTimeout closes sessions idle for that long; zero means
	// DefaultSessionTimeout, negative means never.
	SessionTimeout time.Duration
	// MaxRequestBodyBytes bounds a request body; zero means
	// DefaultMaxRequestBodyBytes, negative means no limit.
	MaxRequestBodyBytes int64
	// DisableLocalhostProtection turns DNS-rebinding protection off. Only
	// for servers behind a proxy that checks Host itself.
	DisableLocalhostProtection bool
	// TrustedOrigins are origins ("https://app.example.com") whose browser
	// pages may call the server cross-origin. Invalid origins panic.
	TrustedOrigins []string
	// Auth, if set, requires a bearer token on every request.
	Auth *AuthOptions
	// EventStore, if set, lets session clients (before 2026-07-28) resume
	// broken event streams.
	EventStore mcp.EventStore
	// Path is where ListenAndServe and ServeListener serve streamable
	// HTTP; empty means DefaultPath. (Handler serves every path it is given.)
	Path string
	// SSEPath, if set, also serves the legacy HTTP+SSE transport (protocol
	// 2024-11-05) there, with the same protections.
	SSEPath string

	// MaxSessions caps the live sessions of the server (streamable HTTP,
	// stateful): a client opening one more gets 503 with Retry-After. Zero
	// means DefaultMaxSessions, negative means no cap. The same numbers cap,
	// apart, the subscriptions/listen streams 2026-07-28 clients hold open
	// on the handler (a 2026-07-28 request opens no session).
	MaxSessions int
	// MaxSessionsPerIdentity caps the live sessions one identity opens (the
	// bearer token's subject with Auth, else the client's IP address; behind
	// a reverse proxy that is the proxy's, which every client then shares):
	// one more gets 429 with Retry-After. Zero means
	// DefaultMaxSessionsPerIdentity, negative means no cap.
	MaxSessionsPerIdentity int
	// Sessions, if set, counts this handler's sessions with those of every
	// other handler given the same limiter, under its caps (see
	// [SessionLimiter]); MaxSessions and MaxSessionsPerIdentity are then
	// ignored. Nil means a limiter of this handler's own.
	Sessions *SessionLimiter

	// ReadTimeout, WriteTimeout and IdleTimeout are those of the
	// http.Server that ListenAndServe and ServeListener run; zero means
	// DefaultReadTimeout, DefaultWriteTimeout and DefaultIdleTimeout,
	// negative means none. WriteTimeout bounds a whole response, event
	// streams included: a call answered later is cut, and a client's
	// standing event stream is closed and reopened by the client.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
}

// Timeouts of the http.Server run by ListenAndServe and ServeListener.
const (
	// DefaultReadHeaderTimeout bounds reading a request's header.
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 10 * time.Minute
	DefaultIdleTimeout       = 2 * time.Minute
)

func timeoutOf(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// Handler returns an http.Handler serving the server over streamable HTTP,
// wrapped in the protections of opts (nil means the defaults).
//
// It serves both eras of the protocol on one URL, choosing per request by
// its protocol version (the Mcp-Protocol-Version header, else a body's
// _meta["io.modelcontextprotocol/protocolVersion"]): a 2026-07-28 request
// is served statelessly (no Mcp-Session-Id; one sent is ignored; list
// changes reach a client through subscriptions/listen), an older client
// gets a session (initialize, Mcp-Session-Id, server-to-client requests,
// the session caps). With HTTPOptions.Stateless every request is served
// statelessly.
//
// Without Auth, a session is its own anonymous caller ("anonymous:<session
// id>"); a 2026-07-28 request has no session, so each request is its own
// anonymous caller: what counts per subject or per run (ticket caps,
// tickets, cached results, rate and run limits) counts per request. An
// Mcp-Session-Id sent with it does not make it the session's caller. Use
// Auth where such limits must hold across a 2026-07-28 client's requests.
func (s *Server) Handler(opts *HTTPOptions) http.Handler {
	if opts == nil {
		opts = &HTTPOptions{}
	}
	timeout := opts.SessionTimeout
	switch {
	case timeout == 0:
		timeout = DefaultSessionTimeout
	case timeout < 0:
		timeout = 0
	}
	get := func(*http.Request) *mcp.Server { return s.mcp }
	sopts := &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		JSONResponse:               opts.JSONResponse,
		Logger:                     s.opts.Logger,
		DisableLocalhostProtection: opts.DisableLocalhostProtection,
		MaxRequestBodyBytes:        bodyLimit(opts.MaxRequestBodyBytes),
	}
	if opts.Stateless {
		// Every era is served statelessly; eras still caps the
		// subscriptions/listen streams, which outlive their request.
		sopts.EventStore = opts.EventStore
		h := allVersions(mcp.NewStreamableHTTPHandler(get, sopts))
		return protect(&eras{stateless: h, stateful: h,
			maxBody: bodyLimit(opts.MaxRequestBodyBytes), listens: newListenCaps(opts)}, opts)
	}
	stateless := allVersions(mcp.NewStreamableHTTPHandler(get, sopts))
	stateful := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		JSONResponse:               opts.JSONResponse,
		Logger:                     s.opts.Logger,
		EventStore:                 opts.EventStore,
		SessionTimeout:             timeout,
		DisableLocalhostProtection: opts.DisableLocalhostProtection,
		MaxRequestBodyBytes:        bodyLimit(opts.MaxRequestBodyBytes),
	})
	return protect(&eras{stateless: stateless, stateful: s.limitSessions(stateful, opts),
		maxBody: bodyLimit(opts.MaxRequestBodyBytes), listens: newListenCaps(opts)}, opts)
}

// SSEHandler returns an http.Handler serving the legacy HTTP+SSE transport,
// with the same protections as [Server.Handler].
func (s *Server) SSEHandler(opts *HTTPOptions) http.Handler {
	if opts == nil {
		opts = &HTTPOptions{}
	}
	h := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.SSEOptions{
		DisableLocalhostProtection: opts.DisableLocalhostProtection,
		MaxRequestBodyBytes:        bodyLimit(opts.MaxRequestBodyBytes),
	})
	return protect(h, opts)
}

func bodyLimit(n int64) int64 {
	if n == 0 {
		return DefaultMaxRequestBodyBytes
	}
	return n
}

// protect wraps h: cross-origin protection outermost (the cheapest
// refusal), then bearer authentication. go-sdk itself checks Host and the
// body size.
func protect(h http.Handler, opts *HTTPOptions) http.Handler {
	h = withClientAddr(h) // an anonymous caller's tasks are its address's (taskOwner)
	if opts.Auth != nil {
		h = requireBearer(h, opts.Auth)
	}
	cop := http.NewCrossOriginProtection()
	for _, o := range opts.TrustedOrigins {
		if err := cop.AddTrustedOrigin(o); err != nil {
			panic(fmt.Sprintf("mcpadapter: trusted origin: %v", err))
		}
	}
	return cop.Handler(h)
}

// Listen listens on a TCP address, binding DefaultHost when addr names no
// host (":8080", "" for any free port). Binding every interface takes an
// explicit "0.0.0.0:port".
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if addr == "" {
		host, port, err = "", "0", nil
	}
	if err != nil {
		return nil, fmt.Errorf("mcpadapter: listen address %q: %w", addr, err)
	}
	if host == "" {
		host = DefaultHost
	}
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

// ListenAndServe listens on addr (see [Listen]: 127.0.0.1 unless addr says
// otherwise) and serves the server over HTTP until ctx is done; it then
// shuts down and returns nil.
func (s *Server) ListenAndServe(ctx context.Context, addr string, opts *HTTPOptions) error {
	ln, err := Listen(addr)
	if err != nil {
		return err
	}
	return s.ServeListener(ctx, ln, opts)
}

// ServeListener serves the server over HTTP on ln (streamable HTTP at
// opts.Path, legacy SSE at opts.SSEPath if set) until ctx is done; it then
// shuts down, closes ln and returns nil.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, opts *HTTPOptions) error {
	if opts == nil {
		opts = &HTTPOptions{}
	}
	path := opts.Path
	if path == "" {
		path = DefaultPath
	}
	mux := http.NewServeMux()
	mux.Handle(path, s.Handler(opts))
	if opts.SSEPath != "" {
		mux.Handle(opts.SSEPath, s.SSEHandler(opts))
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: DefaultReadHeaderTimeout,
		ReadTimeout:  timeoutOf(opts.ReadTimeout, DefaultReadTimeout),
		WriteTimeout: timeoutOf(opts.WriteTimeout, DefaultWriteTimeout),
		IdleTimeout:  timeoutOf(opts.IdleTimeout, DefaultIdleTimeout),
		BaseContext:  func(net.Listener) context.Context { return ctx }}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		// Open event streams never go idle: close what Shutdown cannot.
		if srv.Shutdown(sctx) != nil {
			srv.Close()
		}
	}()
	err := srv.Serve(ln)
	close(done)
	<-stopped
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
