package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/console"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/gateway"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
)

// newConsole returns what serve mounts at /console/: the console of the
// configuration in force. It is built again when a reload changes what it
// is built from (a console section added or removed, anonymous access,
// operators or none, trusted proxies), answers 404 while the configuration
// has no console section, and keeps its login sessions in the store across
// rebuilds. The
// console's checks (operator tokens, whether a session's credential is
// still an operator's) read gw.Config() on every request, never a copy
// taken at start. cfg is the configuration serve starts with: a console
// section New refuses fails the start.
func newConsole(cfg *config.Config, gw *gateway.Gateway, st state.Store, log *slog.Logger) (*consoleMount, error) {
	m := &consoleMount{gw: gw, st: st, log: log, sessions: sessions(st)}
	if m.sessions == nil {
		m.sessions = console.MemorySessions()
	}
	if cfg.Gateway.Console != nil {
		c, err := m.build(cfg)
		if err != nil {
			return nil, err
		}
		m.built, m.shape, m.cur = cfg, shapeOf(cfg), c
	}
	gw.Approvals().OnPending = func(*approval.Ticket) { m.notify() }
	return m, nil
}

// consoleMount serves the console of the configuration in force.
type consoleMount struct {
	gw       *gateway.Gateway
	st       state.Store
	log      *slog.Logger
	sessions console.SessionStore

	mu     sync.Mutex
	built  *config.Config   // the configuration cur was built for
	shape  consoleShape     // what of it cur was built from
	cur    *console.Console // nil when built has no console section
	closed bool
}

// consoleShape is what of a configuration a console is built from; the
// rest (which operators, with which tokens) its checks read from the
// configuration in force on every request. A reload that leaves the shape
// alone keeps the console, its open event streams and its sign-in
// throttle.
type consoleShape struct {
	on, anonymous, operators bool
	proxies                  string
}

func shapeOf(cfg *config.Config) consoleShape {
	cc := cfg.Gateway.Console
	if cc == nil {
		return consoleShape{}
	}
	return consoleShape{on: true, anonymous: cc.AnonymousLocal, operators: len(cc.Operators) > 0,
		proxies: strings.Join(cfg.Gateway.TrustedProxies, " ")}
}

func (m *consoleMount) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, err := m.current()
	switch {
	case err != nil:
		m.log.Error("console: the configuration in force has a console the gateway cannot serve", "err", err)
		http.Error(w, "console: unavailable; see the server log", http.StatusServiceUnavailable)
	case c == nil:
		http.NotFound(w, r)
	default:
		c.ServeHTTP(w, r)
	}
}

// current returns the console of gw.Config(), building it on the first
// request after a reload; the one it replaces is closed (its event
// streams end and the pages reconnect to the new one).
func (m *consoleMount) current() (*console.Console, error) {
	cfg := m.gw.Config()
	m.mu.Lock()
	defer m.mu.Unlock()
	if cfg == m.built || m.closed {
		return m.cur, nil
	}
	if shapeOf(cfg) == m.shape {
		m.built = cfg
		return m.cur, nil
	}
	var c *console.Console
	if cfg.Gateway.Console != nil {
		var err error
		if c, err = m.build(cfg); err != nil {
			return nil, err
		}
	}
	if m.cur != nil {
		m.cur.Close()
	}
	m.built, m.shape, m.cur = cfg, shapeOf(cfg), c
	return c, nil
}

func (m *consoleMount) notify() {
	m.mu.Lock()
	c := m.cur
	m.mu.Unlock()
	if c != nil {
		c.Notify()
	}
}

// Close ends the event streams of the console in force; call it before
// the HTTP server shuts down.
func (m *consoleMount) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	if m.cur != nil {
		return m.cur.Close()
	}
	return nil
}

func (m *consoleMount) build(cfg *config.Config) (*console.Console, error) {
	cc := cfg.Gateway.Console
	var proxies []netip.Prefix
	for _, p := range cfg.Gateway.TrustedProxies {
		pfx, err := config.ProxyPrefix(p)
		if err != nil {
			return nil, fmt.Errorf("trustedProxies: %w", err)
		}
		proxies = append(proxies, pfx)
	}
	opts := &console.Options{
		Approvals:           m.gw.Approvals(),
		Tools:               m.gw.Registry(),
		Ledger:              m.st.Ledger(),
		LedgerReader:        ledgerReader{m.st},
		Servers:             m.gw, // the manager's servers, with the launches waiting for review
		Standing:            m.gw.Standing(),
		Sessions:            m.sessions,
		AllowAnonymousLocal: cc.AnonymousLocal,
		TrustedProxies:      proxies,
		Why:                 func(t *approval.Ticket) string { return m.gw.WhyHeld(t.Tool, t.Args) },
		Logger:              m.log,
	}
	si := m.gw.SignIns()
	if si != nil {
		opts.Connections = si // each console user's own sign-ins (#27)
	}
	if len(cc.Operators) > 0 {
		opts.Auth = &export.AuthOptions{Verifier: func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
			sum := sha256.Sum256([]byte(token))
			for _, t := range m.operators() {
				if sha256.Sum256([]byte(t.Token)) == sum {
					return &auth.TokenInfo{UserID: t.Subject, Scopes: t.Scopes, Expiration: time.Now().Add(time.Hour)}, nil
				}
			}
			return nil, fmt.Errorf("%w: not an operator token", auth.ErrInvalidToken)
		}}
		// A session lasts while the operator it names still has the token
		// it signed in with, in the configuration in force: a reload that
		// removes the operator or rotates its token, or a replica started
		// with the new file, ends it on the next request.
		opts.Revalidate = func(_ context.Context, operator string, cred console.Credential) error {
			for _, t := range m.operators() {
				if t.Subject == operator && sha256.Sum256([]byte(t.Token)) == [32]byte(cred) {
					return nil
				}
			}
			return errors.New("the operator or its token is no longer configured")
		}
		if si != nil {
			// The gateway's callers sign in with their MCP token to see
			// and disconnect their own connections, and nothing else.
			opts.Users = &export.AuthOptions{Verifier: m.gw.VerifyClient}
		}
	}
	return console.New(opts)
}

// operators are the operator tokens of the configuration in force.
func (m *consoleMount) operators() []config.Token {
	if cc := m.gw.Config().Gateway.Console; cc != nil {
		return cc.Operators
	}
	return nil
}

// sessions keeps login sessions in the store's sessions table when it
// has one (SQLite, PostgreSQL): they outlive restarts, reach every
// replica, and survive clearing the result cache. For one release, the
// sessions an older gateway kept in the cache still hold.
func sessions(st state.Store) console.SessionStore {
	if kv := st.Sessions(); kv != nil {
		return console.UpgradeSessions(kv, st.Cache())
	}
	return nil
}

// ledgerReader reads the store's ledger for the console.
type ledgerReader struct{ st state.Store }

func (l ledgerReader) Query(ctx context.Context, q ledger.Query) iter.Seq2[ledger.Record, error] {
	return l.st.Records(ctx, q)
}
