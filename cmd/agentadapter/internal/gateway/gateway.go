// Package gateway runs the configured MCP servers behind one governed
// executor per endpoint: it imports their tools with mcpadapter.Manager,
// reshapes them (trust, rename, overrides), and serves them again with
// export.Server, at /mcp and at /mcp/<virtual server>.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/toolsearch"

	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
	oauth0 "github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// Options configure a Gateway.
type Options struct {
	Logger *slog.Logger
	// Store keeps tickets, the ledger and pins (required).
	Store state.Store
	// Progress, if set, is told of each server's connection: status is
	// "connecting", "connected" or the error.
	Progress func(server, status string, tools int, took time.Duration)
	// Version is reported to MCP clients.
	Version string
	// Supervise restarts servers that are down, with backoff.
	Supervise bool
	// AcceptLaunches accepts (pins, with a ledger record) the launch of
	// every stdio server Start connects; without it a launch no operator
	// accepted is not started (see launch.go). Reloads never accept.
	AcceptLaunches bool
	// StopGrace is mcpadapter.ManagerOptions.StopGrace: how long closing
	// waits for a stdio server to exit before terminating it.
	StopGrace time.Duration
	// Check, if set, vets each configuration Reload is given, after the
	// gateway's own checks and before anything is in force (serve builds
	// the console of it): an error refuses the reload. A *ReloadError is
	// returned as it is; another error is wrapped in one naming section
	// "agentadapter".
	Check func(*config.Config) error
}

// Gateway is the running set of upstream servers and endpoints.
type Gateway struct {
	opts    Options
	log     *slog.Logger
	up      *registry.Registry // what the manager imports
	reg     *registry.Registry // what clients see
	mgr     *mcpadapter.Manager
	appr    *approval.Deferred
	stand   *approval.Standing
	standAt int64 // the last standing record applied (ledger Seq)
	ledger  ledger.Ledger
	Metrics *Metrics
	// index is the search index over reg that every search virtual server
	// queries (search.go), each with its own policy.
	index *toolsearch.Index
	// quar is the set of quarantined tools, by pin key (isQuarantined).
	quar atomic.Pointer[map[string]bool]

	live      atomic.Pointer[live] // the configuration in force, with what is built from it
	reloadMu  sync.Mutex
	servers   map[string]*config.Server // connected (or attempted) servers, by name
	retiredMu sync.Mutex
	retired   []*endpoint // replaced endpoints still serving their sessions
	// sessionCreds are the credentials MCP sessions were opened with.
	sessionCreds sessionCreds
	unsub        func()
	stop         context.CancelFunc
	wg           sync.WaitGroup
	inflight     atomic.Int64 // MCP POST requests being served
	closeOnce    sync.Once
	signInOnce   sync.Once       // signIns, #27
	signIn       *oauth0.SignIns // agentadapter.signIn's pages (signin.go)

	// sessionCaps counts the MCP sessions of every endpoint (see
	// applySessionCaps).
	sessionCaps *export.SessionLimiter

	launches    launches    // stdio launches waiting for review
	acceptStart atomic.Bool // Start is connecting with Options.AcceptLaunches
	connecting  sync.Map    // server name → struct{}: being connected (for /readyz)

	// stateKey signs the requestState of every endpoint's questions to
	// MCP clients (ExportOptions.RequestStateKey).
	stateKey []byte

	// tokenKeys seals per-user upstream tokens (oauth.perCaller), loaded
	// from AGENTADAPTER_TOKEN_KEY(_FILE) by a build with a perCaller
	// server (exchange.go).
	tokenKeys atomic.Pointer[token.Keyring]
}

// The store's secret that signs the requestStates of MCP questions.
const (
	requestStateSecret  = "mcp-request-state"
	requestStateKeySize = 32
)

// New builds a gateway for cfg; Start connects it.
func New(cfg *config.Config, opts Options) (*Gateway, error) {
	if opts.Store == nil {
		return nil, errors.New("gateway: no store")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	g := &Gateway{opts: opts, log: opts.Logger, up: registry.New(), reg: registry.New(), servers: map[string]*config.Server{}}
	g.Metrics = newMetrics(g)
	g.ledger = &meteredLedger{next: &paramLedger{next: opts.Store.Ledger(), reg: g.reg}, m: g.Metrics}
	g.appr = &approval.Deferred{Store: opts.Store.Tickets()}
	// One key for every endpoint, kept in the store: a 2026-07-28 client
	// answers an approval question in a request of its own, which may
	// reach another endpoint after a reload, another replica or this
	// gateway restarted.
	key, err := opts.Store.Secret(context.Background(), requestStateSecret, requestStateKeySize)
	if err != nil {
		return nil, fmt.Errorf("gateway: the request state key: %w", err)
	}
	g.stateKey = key
	g.stand = &approval.Standing{Port: g.appr, Allowed: g.standingAllowed}
	if ss, ok := opts.Store.(state.StandingStorer); ok {
		g.stand.Store = ss.Standing()
	}
	g.mgr = mcpadapter.NewManager(g.up, &mcpadapter.ManagerOptions{
		Client:    &mcp.Implementation{Name: "agentadapter", Version: opts.Version},
		PinStore:  opts.Store.Pins(),
		Logger:    g.log,
		StopGrace: opts.StopGrace,
		// The manager's shared transport keeps this many idle connections
		// per upstream host (config check refuses a negative value).
		IdleConnsPerHost: cfg.Gateway.IdleConnsPerHost,
		OnQuarantine: func(q mcpadapter.Quarantine) {
			g.log.Warn("tool quarantined: its definition changed; review it with agentadapter pins diff", "server", q.Server, "tool", q.Tool)
			g.noteQuarantines()
			g.saveQuarantines()
		},
	})
	g.unsub = g.up.Subscribe(g.mirror)
	if g.index, err = toolsearch.New(g.reg, nil); err != nil {
		g.unsub()
		return nil, err
	}
	in, err := g.build(cfg, nil)
	if err != nil {
		g.index.Close()
		g.unsub()
		return nil, err
	}
	g.swap(in)
	return g, nil
}

// live is one configuration in force and everything built from it, swapped
// in whole: no request sees one configuration's tokens with another's
// endpoints.
type live struct {
	cfg     *config.Config
	eps     map[string]*endpoint
	auth    *authState
	proxies []netip.Prefix // trustedProxies, parsed
}

// build makes everything fallible from cfg, reusing the endpoints of old
// whose definition is unchanged; nothing is in force yet.
func (g *Gateway) build(cfg *config.Config, old *live) (*live, error) {
	a, err := buildAuth(cfg)
	if err != nil {
		return nil, &ReloadError{Section: "agentadapter.auth", Err: err}
	}
	var oldEps map[string]*endpoint
	if old != nil {
		oldEps = old.eps
	}
	if g.opts.Check != nil {
		if err := g.opts.Check(cfg); err != nil {
			var re *ReloadError
			if !errors.As(err, &re) {
				err = &ReloadError{Section: "agentadapter", Err: err}
			}
			return nil, err
		}
	}
	if err := g.loadTokenKeys(cfg); err != nil {
		return nil, err
	}
	var proxies []netip.Prefix
	for _, p := range cfg.Gateway.TrustedProxies {
		pfx, err := config.ProxyPrefix(p)
		if err != nil {
			return nil, &ReloadError{Section: "agentadapter.trustedProxies", Err: err}
		}
		proxies = append(proxies, pfx)
	}
	eps, err := g.buildEndpoints(cfg, oldEps)
	if err != nil {
		return nil, &ReloadError{Section: "agentadapter.virtualServers", Err: err}
	}
	return &live{cfg: cfg, eps: eps, auth: a, proxies: proxies}, nil
}

// swap puts in in force in one step.
func (g *Gateway) swap(in *live) {
	g.applySessionCaps(in.cfg)
	g.live.Store(in)
	for _, ep := range in.eps {
		ep.inForce.Store(true)
	}
}

func (g *Gateway) eps() map[string]*endpoint { return g.live.Load().eps }

// Registry is the registry clients see.
func (g *Gateway) Registry() *registry.Registry { return g.reg }

// Manager is the import manager.
func (g *Gateway) Manager() *mcpadapter.Manager { return g.mgr }

// Approvals is the approval port shared by every endpoint.
func (g *Gateway) Approvals() *approval.Deferred { return g.appr }

// Standing holds the operators' standing decisions; every endpoint asks
// it before the ticket store.
func (g *Gateway) Standing() *approval.Standing { return g.stand }

// Config is the configuration in force.
func (g *Gateway) Config() *config.Config { return g.live.Load().cfg }

// Executor returns the executor of an endpoint ("" for /mcp).
func (g *Gateway) Executor(name string) (*adapter.Executor, bool) {
	ep, ok := g.eps()[name]
	if !ok {
		return nil, false
	}
	return ep.exec, true
}

// Start connects every enabled server in parallel and, with
// Options.Supervise, keeps reconnecting those that are down. It returns
// the join of the servers' errors; the gateway serves what connected.
func (g *Gateway) Start(ctx context.Context) error {
	sctx, cancel := context.WithCancel(context.Background())
	g.stop = cancel
	g.reloadMu.Lock()
	g.acceptStart.Store(g.opts.AcceptLaunches)
	err := g.connect(ctx, g.Config().Servers)
	g.acceptStart.Store(false)
	g.reloadMu.Unlock()
	if serr := g.syncStanding(ctx); serr != nil {
		err = errors.Join(err, serr)
	}
	if g.opts.Supervise {
		g.wg.Add(3)
		go func() { defer g.wg.Done(); g.supervise(sctx) }()
		go func() { defer g.wg.Done(); g.watchPins(sctx) }()
		go func() { defer g.wg.Done(); g.followStanding(sctx) }()
	}
	return err
}

// connect connects servers in parallel, one Manager.Connect each, so that
// each reports its own status and time.
func (g *Gateway) connect(ctx context.Context, servers []*config.Server) error {
	var wg sync.WaitGroup
	errs := make([]error, len(servers))
	for i, s := range servers {
		if s.Disabled {
			continue
		}
		g.servers[s.Name] = s
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = g.connectOne(ctx, s)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (g *Gateway) connectOne(ctx context.Context, s *config.Server) error {
	g.connecting.Store(s.Name, struct{}{})
	defer g.connecting.Delete(s.Name)
	start := time.Now()
	g.progress(s.Name, "connecting", 0, 0)
	if err := g.gateLaunch(ctx, s); err != nil {
		g.progress(s.Name, err.Error(), 0, time.Since(start))
		return err
	}
	err := g.mgr.Connect(ctx, g.mcpServer(s))
	if err != nil {
		g.progress(s.Name, err.Error(), 0, time.Since(start))
		g.log.Error("server failed to connect", "server", s.Name, "err", err)
		return err
	}
	n := 0
	for _, st := range g.mgr.Servers() {
		if st.Name == s.Name {
			n = len(st.Tools)
		}
	}
	g.progress(s.Name, "connected", n, time.Since(start))
	g.log.Info("server connected", "server", s.Name, "tools", n, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

func (g *Gateway) progress(server, status string, tools int, took time.Duration) {
	if g.opts.Progress != nil {
		g.opts.Progress(server, status, tools, took)
	}
}

// mcpServer turns a configured server into the manager's description.
func (g *Gateway) mcpServer(s *config.Server) mcpadapter.Upstream {
	p := s.Policy
	ms := mcpadapter.Upstream{
		Name:           s.Name,
		Prefix:         p.Prefix,
		Trust:          p.Trust == "trusted",
		Allow:          p.Allow,
		Deny:           p.Deny,
		ConnectTimeout: time.Duration(p.ConnectTimeout),
		CallTimeout:    time.Duration(p.CallTimeout),
	}
	switch s.Kind {
	case "stdio":
		ms.Command, ms.Args, ms.Dir = s.Command, s.Args, s.Dir
		ms.Env = environ(s.Env)
		// Every restart too is of the accepted launch: a file changed on
		// disk since waits for review like a config edit.
		ms.BeforeStart = func() error { return g.gateLaunch(context.Background(), s) }
		ms.Stderr = &lineLogger{log: g.log, server: s.Name}
	default:
		ms.URL, ms.Headers, ms.SSE = s.URL, s.Headers, s.Kind == "sse"
		if o := p.OAuth; o != nil {
			ms.OAuth = oauth(o)
			g.perCallerOAuth(ms.OAuth, o)
			g.withSignIn(ms.OAuth, o)
			if ms.ConnectTimeout == 0 && o.ClientCredentials == nil {
				// A person signs in while Connect waits.
				ms.ConnectTimeout = 5 * time.Minute
			}
		}
	}
	return ms
}

// ReloadError refuses a reload: the configuration in force stays, whole.
// Section names the part of the configuration that refused it
// ("agentadapter.store", "agentadapter.listen", "agentadapter.auth", ...).
type ReloadError struct {
	Section string
	Err     error
}

func (e *ReloadError) Error() string { return e.Section + ": " + e.Err.Error() }
func (e *ReloadError) Unwrap() error { return e.Err }

// ErrNeedsRestart is the cause of a *ReloadError for a section that only
// a restart applies (the store, the listen address, idleConnsPerHost).
var ErrNeedsRestart = errors.New("changes only on restart; the whole reload is refused")

// Reload applies a new configuration whole, or refuses it and changes
// nothing. Everything fallible is built from cfg first: the inbound tokens
// (auth.tokensFile and the JWT key are read again), the console's
// operators, the endpoints of the virtual servers and their policies. Then
// it is swapped in at once: the next request, the console's included, runs
// under cfg. A change of the store or the listen address is refused with a
// *ReloadError wrapping ErrNeedsRestart; a bad section with a *ReloadError
// naming it.
//
// Once cfg is in force, removed servers close, new ones connect, changed
// ones reconnect; endpoints whose settings changed are rebuilt while their
// live sessions stay on the ones they started with. Sessions opened
// without a token are closed when auth is turned on, and so are sessions
// whose token the new configuration no longer accepts (event streams
// included). A server failing to
// connect does not undo the reload: the returned error, not a
// *ReloadError, joins those failures, and supervision retries them.
func (g *Gateway) Reload(ctx context.Context, cfg *config.Config) error {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	old := g.live.Load()
	// The values are not logged: a store string may hold a password.
	if old.cfg.Gateway.Store != cfg.Gateway.Store {
		return &ReloadError{Section: "agentadapter.store", Err: ErrNeedsRestart}
	}
	if old.cfg.Gateway.Listen != cfg.Gateway.Listen {
		return &ReloadError{Section: "agentadapter.listen", Err: ErrNeedsRestart}
	}
	if old.cfg.Gateway.IdleConnsPerHost != cfg.Gateway.IdleConnsPerHost {
		return &ReloadError{Section: "agentadapter.idleConnsPerHost", Err: ErrNeedsRestart}
	}
	if signInBase(old.cfg) != signInBase(cfg) { // the pages are mounted at start
		return &ReloadError{Section: "agentadapter.signIn", Err: ErrNeedsRestart}
	}
	in, err := g.build(cfg, old)
	if err != nil {
		return err
	}
	want := map[string]*config.Server{}
	for _, s := range cfg.Servers {
		if !s.Disabled {
			want[s.Name] = s
		}
	}
	g.swap(in)
	g.retiredMu.Lock()
	for name, ep := range old.eps {
		if in.eps[name] != ep {
			g.retired = append(g.retired, ep)
		}
	}
	g.retiredMu.Unlock()
	switch {
	case !old.auth.required() && in.auth.required():
		// Their clients never showed a token: they start again with one.
		for _, ss := range g.liveSessions() {
			_ = ss.Close()
		}
	case in.auth.required():
		// A session whose token was revoked ends now, its event stream
		// with it, not only its next request.
		g.sessionCreds.revoke(ctx, g, in.auth)
	}
	var add []*config.Server
	for name, s := range g.servers {
		if n, ok := want[name]; !ok || !sameServer(s, n) {
			_ = g.mgr.Remove(name) // it may have failed to connect
			delete(g.servers, name)
			g.log.Info("server removed", "server", name)
		}
	}
	for _, s := range cfg.Servers {
		if _, ok := g.servers[s.Name]; !ok && !s.Disabled {
			add = append(add, s)
		}
	}
	return g.connect(ctx, add)
}

func sameServer(a, b *config.Server) bool {
	a2, b2 := *a, *b
	a2.Origin, b2.Origin = "", ""
	return reflect.DeepEqual(&a2, &b2)
}

// supervise reconnects servers that are down, with backoff per server.
func (g *Gateway) supervise(ctx context.Context) {
	type state struct {
		next    time.Time
		backoff time.Duration
	}
	st := map[string]*state{}
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			g.reloadMu.Lock()
			up := map[string]bool{}
			for _, s := range g.mgr.Servers() {
				up[s.Name] = s.Connected
			}
			for name, s := range g.servers {
				connected, known := up[name]
				if g.pending(name) != nil {
					// Not started until accepted; then at once.
					if g.launchReleased(ctx, name) {
						if known {
							_ = g.mgr.Reconnect(ctx, name)
						} else {
							_ = g.connectOne(ctx, s)
						}
					}
					continue
				}
				if connected {
					delete(st, name)
					continue
				}
				x := st[name]
				if x == nil {
					x = &state{next: now, backoff: time.Second}
					st[name] = x
				}
				if now.Before(x.next) {
					continue
				}
				x.next, x.backoff = now.Add(x.backoff), min(2*x.backoff, time.Minute)
				g.log.Info("restarting server", "server", name, "next_backoff", x.backoff)
				if known {
					_ = g.mgr.Reconnect(ctx, name)
				} else {
					_ = g.connectOne(ctx, s)
				}
			}
			g.reloadMu.Unlock()
		}
	}
}

// Close drains and stops everything: endpoints (flushing the ledger), the
// manager (reaping every child process).
func (g *Gateway) Close() error {
	var err error
	g.closeOnce.Do(func() {
		if g.stop != nil {
			g.stop()
		}
		g.wg.Wait()
		g.unsub()
		for _, ep := range g.eps() {
			ep.close()
		}
		for _, ep := range g.retired {
			ep.close()
		}
		g.index.Close()
		err = g.mgr.Close()
	})
	return err
}

func environ(env map[string]string) []string {
	if len(env) == 0 {
		return nil
	}
	out := osEnviron()
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

func pinKey(server, remote string) string { return pin.Key(server, remote) }

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func oauth(o *config.OAuth) *oauth0.Config {
	out := &oauth0.Config{
		ClientID: o.ClientID, ClientSecret: o.ClientSecret, ClientName: o.ClientName,
		ClientMetadataURL: o.ClientMetadataURL, RedirectURL: o.RedirectURL,
		NoDynamicRegistration: o.NoDynamicRegistration, NoOfflineAccess: o.NoOfflineAccess,
		Issuer: o.Issuer, Tokens: token.NewFileStore(o.Tokens),
	}
	if len(o.Scopes) > 0 {
		scopes := o.Scopes
		out.Scopes = func([]string) []string { return scopes }
	}
	if cc := o.ClientCredentials; cc != nil {
		out.ClientCredentials = &oauth0.ClientCredentials{ClientID: cc.ClientID, ClientSecret: cc.ClientSecret, Scopes: cc.Scopes}
	}
	return out
}
