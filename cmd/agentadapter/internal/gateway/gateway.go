// Package gateway runs the configured MCP servers behind one governed
// executor per endpoint: it imports their tools with mcpadapter.Manager,
// reshapes them (trust, rename, overrides), and serves them again with
// mcpadapter.Exporter, at /mcp and at /mcp/<virtual server>.
package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
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
}

// Gateway is the running set of upstream servers and endpoints.
type Gateway struct {
	opts    Options
	log     *slog.Logger
	up      *registry.Registry // what the manager imports
	reg     *registry.Registry // what clients see
	mgr     *mcpadapter.Manager
	appr    *adapter.Deferred
	stand   *adapter.Standing
	standAt int64 // the last standing record applied (ledger Seq)
	ledger  adapter.Ledger
	Metrics *Metrics

	cfg       atomic.Pointer[config.Config]
	reloadMu  sync.Mutex
	servers   map[string]*config.Server // connected (or attempted) servers, by name
	endpoints atomic.Pointer[map[string]*endpoint]
	retired   []*endpoint // replaced endpoints still serving their sessions
	unsub     func()
	stop      context.CancelFunc
	wg        sync.WaitGroup
	inflight  atomic.Int64 // MCP POST requests being served
	closeOnce sync.Once
}

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
	g.ledger = &meteredLedger{next: opts.Store.Ledger(), m: g.Metrics}
	g.appr = &adapter.Deferred{Store: opts.Store.Tickets()}
	g.stand = &adapter.Standing{Port: g.appr, Allowed: g.standingAllowed}
	g.cfg.Store(cfg)
	g.mgr = mcpadapter.NewManager(g.up, &mcpadapter.ManagerOptions{
		Client:   &mcp.Implementation{Name: "agentadapter", Version: opts.Version},
		PinStore: opts.Store.Pins(),
		Logger:   g.log,
		OnQuarantine: func(q mcpadapter.Quarantine) {
			g.log.Warn("tool quarantined: its definition changed; review it with agentadapter pins diff", "server", q.Server, "tool", q.Tool)
			g.saveQuarantines()
		},
	})
	g.unsub = g.up.Subscribe(g.mirror)
	eps, err := g.buildEndpoints(cfg, nil)
	if err != nil {
		return nil, err
	}
	g.endpoints.Store(&eps)
	return g, nil
}

// Registry is the registry clients see.
func (g *Gateway) Registry() *registry.Registry { return g.reg }

// Manager is the import manager.
func (g *Gateway) Manager() *mcpadapter.Manager { return g.mgr }

// Approvals is the approval port shared by every endpoint.
func (g *Gateway) Approvals() *adapter.Deferred { return g.appr }

// Standing holds the operators' standing decisions; every endpoint asks
// it before the ticket store.
func (g *Gateway) Standing() *adapter.Standing { return g.stand }

// Config is the configuration in force.
func (g *Gateway) Config() *config.Config { return g.cfg.Load() }

// Executor returns the executor of an endpoint ("" for /mcp).
func (g *Gateway) Executor(name string) (*adapter.Executor, bool) {
	ep, ok := (*g.endpoints.Load())[name]
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
	err := g.connect(ctx, g.cfg.Load().Servers)
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
	start := time.Now()
	g.progress(s.Name, "connecting", 0, 0)
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
func (g *Gateway) mcpServer(s *config.Server) mcpadapter.Server {
	p := s.Policy
	ms := mcpadapter.Server{
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
		ms.Stderr = &lineLogger{log: g.log, server: s.Name}
	default:
		ms.URL, ms.Headers, ms.SSE = s.URL, s.Headers, s.Kind == "sse"
		if o := p.OAuth; o != nil {
			ms.OAuth = oauth(o)
			if ms.ConnectTimeout == 0 && o.ClientCredentials == nil {
				// A person signs in while Connect waits.
				ms.ConnectTimeout = 5 * time.Minute
			}
		}
	}
	return ms
}

// Reload applies a new configuration: removed servers close, new ones
// connect, changed ones reconnect; endpoints whose settings changed are
// rebuilt while their live sessions stay on the ones they started with.
func (g *Gateway) Reload(ctx context.Context, cfg *config.Config) error {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	old := g.cfg.Load()
	if old.Gateway.Store != cfg.Gateway.Store || old.Gateway.Listen != cfg.Gateway.Listen {
		g.log.Warn("reload: the store and the listen address change only on restart")
	}
	oldEps := *g.endpoints.Load()
	eps, err := g.buildEndpoints(cfg, oldEps)
	if err != nil {
		return err
	}
	want := map[string]*config.Server{}
	for _, s := range cfg.Servers {
		if !s.Disabled {
			want[s.Name] = s
		}
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
	g.cfg.Store(cfg)
	g.endpoints.Store(&eps)
	for name, ep := range oldEps {
		if eps[name] != ep {
			g.retired = append(g.retired, ep)
		}
	}
	err = g.connect(ctx, add)
	g.log.Info("configuration reloaded", "servers", len(want), "endpoints", len(eps))
	return err
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
		for _, ep := range *g.endpoints.Load() {
			ep.close()
		}
		for _, ep := range g.retired {
			ep.close()
		}
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

func pinKey(server, remote string) string { return mcpadapter.PinKey(server, remote) }

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func oauth(o *config.OAuth) *mcpadapter.OAuth {
	out := &mcpadapter.OAuth{
		ClientID: o.ClientID, ClientSecret: o.ClientSecret, ClientName: o.ClientName,
		ClientMetadataURL: o.ClientMetadataURL, RedirectURL: o.RedirectURL,
		NoDynamicRegistration: o.NoDynamicRegistration, NoOfflineAccess: o.NoOfflineAccess,
		Tokens: mcpadapter.NewFileTokenStore(o.Tokens),
	}
	if len(o.Scopes) > 0 {
		scopes := o.Scopes
		out.Scopes = func([]string) []string { return scopes }
	}
	if cc := o.ClientCredentials; cc != nil {
		out.ClientCredentials = &mcpadapter.ClientCredentials{ClientID: cc.ClientID, ClientSecret: cc.ClientSecret, Scopes: cc.Scopes}
	}
	return out
}
