package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure Gateway.Handler.
type HTTPOptions struct {
	// Console, if set, is mounted at /console/ (the operator's console).
	Console http.Handler
}

// Handler serves every endpoint and the operational ones:
//
//	/mcp, /mcp/<virtual>         MCP over streamable HTTP
//	/sse, /message[/<virtual>]   MCP over HTTP+SSE (2024-11-05), where
//	                             legacySSE is on; 404 elsewhere (sse.go)
//	/healthz                     the process is alive
//	/readyz                      every enabled server is connected (503
//	                             otherwise, naming those that are not)
//	/metrics                     Prometheus text format
//	/console/                    the console, when mounted
//	/oauth/start, /oauth/callback  per-user sign-in (agentadapter.signIn)
//
// Every route, these and any added later, is behind one Host and Origin
// check (see guard): a DNS-rebinding page or a cross-origin form gets 403.
func (g *Gateway) Handler(opts *HTTPOptions) (http.Handler, error) {
	if opts == nil {
		opts = &HTTPOptions{}
	}
	httpOpts, err := g.mcpHTTPOptions()
	if err != nil {
		return nil, err
	}
	// guard checks Host in front of every route, allowedHosts included;
	// go-sdk's own check behind it would refuse an allowed name.
	httpOpts.DisableLocalhostProtection = true
	// Session streams (before 2026-07-28) are resumable: go-sdk primes each
	// with an event id and a retry field only with a store. One store for
	// every endpoint, bounded by go-sdk (10 MiB, oldest events dropped).
	httpOpts.EventStore = mcp.NewMemoryEventStore(nil)
	r := g.behindProxy(g.mcpRouter(httpOpts))
	mux := http.NewServeMux()
	mux.Handle("/mcp", r)
	mux.Handle("/mcp/", r)
	sse := g.behindProxy(newSSEHub(g))
	for _, p := range [...]string{"/sse", "/sse/", "/message", "/message/"} {
		mux.Handle(p, sse)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", g.ready)
	// With inbound auth, the metrics (tool and server names, counts) need a
	// token too; liveness and readiness stay open for orchestrators.
	mux.Handle("GET /metrics", g.requireClientToken(g.Metrics))
	if opts.Console != nil {
		mux.Handle("/console/", http.StripPrefix("/console", opts.Console))
	}
	g.signInRoutes(mux) // /oauth/start, /oauth/callback (signin.go)
	return g.guard(mux), nil
}

func (g *Gateway) ready(w http.ResponseWriter, _ *http.Request) {
	type srv struct {
		Name      string `json:"name"`
		Connected bool   `json:"connected"`
		Error     string `json:"error,omitempty"`
	}
	status := map[string]*srv{}
	for _, s := range g.Config().Servers {
		if !s.Disabled {
			status[s.Name] = &srv{Name: s.Name, Error: "not connected"}
		}
	}
	// Without inbound auth the gateway is loopback-only by default and an
	// operator reads why a server is down; with it, readiness stays open
	// to orchestrators but says no more than up or down.
	detail := g.Config().Gateway.Auth == nil
	for _, s := range g.mgr.Servers() {
		if x, ok := status[s.Name]; ok {
			x.Connected, x.Error = s.Connected, ""
			if s.Err != nil && detail {
				x.Error = graphic(s.Err.Error(), maxReadyError)
			}
		}
	}
	for _, x := range status {
		if why := g.LaunchStatus(x.Name); why != "" && !x.Connected {
			x.Error = why // not started: an operator has to accept its launch
		} else if _, ok := g.connecting.Load(x.Name); ok && !x.Connected && x.Error == "" {
			x.Error = "connecting"
		}
	}
	if !detail {
		for _, x := range status {
			if !x.Connected {
				x.Error = ""
			}
		}
	}
	list := make([]*srv, 0, len(status))
	notReady := []string{} // names are config names: [A-Za-z0-9_-]{1,64}
	for _, k := range sortedKeys(status) {
		list = append(list, status[k])
		if !status[k].Connected {
			notReady = append(notReady, k)
		}
	}
	ready := len(notReady) == 0
	w.Header().Set("Content-Type", "application/json")
	if !ready {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"ready": ready, "notReady": notReady, "servers": list})
}

// maxReadyError bounds the error text of one server in /readyz.
const maxReadyError = 512

// graphic is s cut to at most n bytes (on a character boundary), with
// every character that is neither graphic nor a space (controls, C1,
// bidi overrides) written as a \u escape, so that it is safe on a
// terminal.
func graphic(s string, n int) string {
	var b strings.Builder
	for _, r := range s {
		e := string(r)
		if r != ' ' && !unicode.IsGraphic(r) {
			e = fmt.Sprintf("\\u%04x", r)
		}
		if b.Len()+len(e) > n {
			b.WriteString("…")
			break
		}
		b.WriteString(e)
	}
	return b.String()
}

// router sends each MCP request to its endpoint. A session stays with the
// endpoint that created it: after a reload rebuilds an endpoint, its live
// sessions go on with the one they started with, new sessions get the new
// one.
type router struct {
	g        *Gateway
	opts     *export.HTTPOptions
	mu       sync.Mutex
	sessions map[string]*session
	handlers map[*endpoint]http.Handler
}

type session struct {
	endpoint string
	h        http.Handler
	seen     time.Time
}

// sessionTTL forgets routes of sessions idle longer than the export's
// own idle timeout.
const sessionTTL = export.DefaultSessionTimeout + time.Minute

func (r *router) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	name := strings.Trim(strings.TrimPrefix(req.URL.Path, "/mcp"), "/")
	if strings.Contains(name, "/") {
		http.NotFound(w, req)
		return
	}
	id := req.Header.Get("Mcp-Session-Id")
	r.mu.Lock()
	var h http.Handler
	if s, ok := r.sessions[id]; ok && id != "" && s.endpoint == name {
		s.seen = time.Now()
		h = s.h
	}
	if h == nil {
		ep, ok := r.g.eps()[name]
		if !ok {
			r.mu.Unlock()
			http.Error(w, fmt.Sprintf("no MCP endpoint %q (endpoints: %s)", req.URL.Path, strings.Join(r.g.paths(), ", ")), http.StatusNotFound)
			return
		}
		h = r.handlers[ep]
		if h == nil {
			h = ep.handler(r.g, r.opts)
			r.handlers[ep] = h
		}
	}
	r.mu.Unlock()
	if req.Method == http.MethodPost {
		r.g.inflight.Add(1)
		defer r.g.inflight.Add(-1)
	}
	h.ServeHTTP(w, req)
	if nid := w.Header().Get("Mcp-Session-Id"); nid != "" && id == "" {
		r.mu.Lock()
		now := time.Now()
		for k, s := range r.sessions {
			if now.Sub(s.seen) > sessionTTL {
				delete(r.sessions, k)
			}
		}
		r.sessions[nid] = &session{endpoint: name, h: h, seen: now}
		r.mu.Unlock()
	}
	if req.Method == http.MethodDelete && id != "" {
		r.mu.Lock()
		delete(r.sessions, id)
		r.mu.Unlock()
	}
}

func (g *Gateway) paths() []string {
	var out []string
	for _, n := range g.Endpoints() {
		out = append(out, strings.TrimSuffix("/mcp/"+n, "/"))
	}
	sort.Strings(out)
	return out
}

// Serve serves h on ln until ctx is done, then shuts down: the listener
// closes, calls in flight get up to drain to finish, then the remaining
// connections (idle event streams) are closed.
func (g *Gateway) Serve(ctx context.Context, ln net.Listener, h http.Handler, drain time.Duration) error {
	srv := newServer(h)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	go func() { _ = srv.Shutdown(sctx) }()
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for g.inflight.Load() > 0 && sctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
		}
	}()
	select {
	case <-drained:
	case <-sctx.Done():
		g.log.Warn("shutdown: calls still running after the drain time; closing")
	}
	err := srv.Close()
	if e := <-done; !errors.Is(e, http.ErrServerClosed) {
		err = errors.Join(err, e)
	}
	return err
}
