package mcpadapter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/callers"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/paramheader"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/taskclient"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/transport"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
)

// conn is the manager's link to one server: its session (replaced on
// reconnect), the tools imported from it and its background refresher.
type conn struct {
	m      *Manager
	cfg    Upstream
	client *mcp.Client

	dialMu  sync.Mutex // serialises (re)connection
	mu      sync.Mutex // guards the fields below
	sess    *mcp.ClientSession
	down    error // why the session is gone
	used    bool  // cfg.Transport has been used
	closed  bool
	dials   int       // sessions opened, the first included
	lastErr error     // the last connection failure, kept after recovery
	lastAt  time.Time // when lastErr happened

	// imports, guarded by refreshMu for writers and mu for readers.
	refreshMu sync.Mutex
	tools     map[string]*imported // by remote name
	held      map[string]*Quarantine
	known     map[string]bool // remote names listed so far; nil before the first listing
	skipped   []ImportError   // tools of the last listing not imported

	refreshCh chan struct{}
	bg        context.Context // cancelled when the conn closes
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	progress  sync.Map // progress token → *progress.Sink of the call

	frameTooLarge atomic.Bool      // the stdio child wrote a frame past the size limit
	paramHeaders  sync.Map         // *imported → []paramheader.Binding, see paramheaders.go
	progressTools sync.Map         // remote name → *atomic.Int32, see settleProgress
	tasks         taskclient.Table // the server's task-only tools, see task_import.go

	oauthMu      sync.Mutex
	oauth        *oauth.Handler                       // nil without Server.OAuth; guarded by oauthMu
	callers      callers.Sessions[*mcp.ClientSession] // OAuth.PerCaller's, see callSession
	samplingSpec *adapter.Spec                        // see govern.go
	elicitSpec   *adapter.Spec
	rootsMu      sync.Mutex
	roots        []mcp.Root // advertised, see roots.go
	up           upstream   // resources and prompts, see upstream.go
}

// newConn is called with m.mu held.
func newConn(m *Manager, s Upstream) *conn {
	c := &conn{m: m, cfg: s, tools: map[string]*imported{}, held: map[string]*Quarantine{}, refreshCh: make(chan struct{}, 1)}
	c.bg, c.cancel = context.WithCancel(m.bg)
	c.callers.WG = &c.wg
	impl := m.opts.Client
	if impl == nil {
		impl = &mcp.Implementation{Name: "agentadapter", Version: "v0"}
	}
	copts := &mcp.ClientOptions{
		Logger:                      m.opts.Logger,
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { c.scheduleRefresh() },
		ProgressNotificationHandler: c.onProgress,
		// Input-required results are answered in conn.call, which knows
		// the caller, and in inputMiddleware: see relay.go.
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}
	c.serverRequests(copts)
	c.upstreamHandlers(copts)
	c.client = mcp.NewClient(impl, copts)
	c.client.AddSendingMiddleware(c.inputMiddleware)
	taskclient.Methods(c.client)
	c.setRoots(m.roots) // the caller holds m.mu
	return c
}

// start connects, imports the tools (after the conn before it in the
// Connect call: see firstImport) and starts the refresher.
func (c *conn) start(ctx context.Context, prev <-chan struct{}, done chan<- struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, c.m.connectTimeout(&c.cfg))
	defer cancel()
	if err := c.dial(ctx); err != nil {
		close(done)
		return err
	}
	var err error
	if s := c.session(); s != nil {
		err = c.firstImport(ctx, s, prev, done)
	} else {
		close(done)
		err = fmt.Errorf("connection lost after connecting: %w", c.status().Err)
	}
	c.wg.Add(1)
	go c.refresher()
	return err
}

// transport returns a transport for a new connection, authorized by h
// (a caller's, see callSession) or, when nil, by the server's own handler.
func (c *conn) transport(h *oauth.Handler) (mcp.Transport, error) {
	s := &c.cfg
	switch {
	case s.NewTransport != nil:
		return s.NewTransport()
	case s.Transport != nil:
		c.mu.Lock()
		used := c.used
		c.used = true
		c.mu.Unlock()
		if used {
			return nil, errors.New("the server's Transport connects once; set Server.NewTransport to allow reconnection")
		}
		return s.Transport, nil
	case s.Command != "":
		if s.BeforeStart != nil {
			if err := s.BeforeStart(); err != nil {
				return nil, err
			}
		}
		cmd := exec.Command(s.Command, s.Args...)
		cmd.Env = s.Env
		cmd.Dir = s.Dir
		if s.Stderr != nil {
			cmd.Stderr = s.Stderr
		}
		c.frameTooLarge.Store(false)
		limit := c.maxResultBytes()
		if limit > 0 {
			limit += transport.EnvelopeSlack
		}
		return &transport.Stdio{Cmd: cmd, Terminate: firstPositive(c.m.opts.StopGrace, DefaultStopGrace), Limit: limit, TooLarge: &c.frameTooLarge}, nil
	default:
		// Configured headers go only to the URL's origin: see outbound.go.
		hc, err := upstreamClient(s, c.m.http)
		if err != nil {
			return nil, err
		}
		// Bound responses while they are read, not once decoded.
		limit := int64(c.maxResultBytes())
		if limit > 0 {
			limit += transport.EnvelopeSlack
		}
		cp := *hc
		base := cp.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		cp.Transport = &transport.Bound{Base: base, Limit: limit}
		cp.Transport = &paramheader.Transport{Base: cp.Transport, Bindings: c.paramBindings}
		hc = &cp
		maxEvent := -1 // the go-sdk's own cap must not cut before ours
		if limit > 0 {
			maxEvent = int(limit) + 4096
		}
		if s.SSE {
			return &mcp.SSEClientTransport{Endpoint: s.URL, HTTPClient: hc, MaxEventSize: maxEvent}, nil
		}
		if s.OAuth == nil {
			return &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, MaxEventSize: maxEvent}, nil
		}
		if h == nil {
			if h, err = c.setupOAuth(); err != nil {
				return nil, err
			}
		}
		// With DPoP, each request to the server carries a proof.
		return &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: h.ResourceClient(hc), MaxEventSize: maxEvent, OAuthHandler: h}, nil
	}
}

// dial opens a new session and installs it.
func (c *conn) dial(ctx context.Context) error {
	t, err := c.transport(nil)
	if err != nil {
		return err
	}
	s, err := c.client.Connect(ctx, wrapTasks(&c.tasks, t, c.m.http), nil)
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		s.Close()
		return ErrClosed
	}
	old := c.sess
	c.sess, c.down = s, nil
	c.dials++
	again := c.dials > 1
	c.mu.Unlock()
	if old != nil {
		old.Close()
	}
	if again {
		c.wg.Add(1)
		go func() { defer c.wg.Done(); c.reconnected(s) }()
	}
	// Notice a session that dies between calls (a killed child process).
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		err := s.Wait()
		if err == nil {
			err = mcp.ErrConnectionClosed
		}
		c.lost(s, err)
	}()
	return nil
}

// session returns the live session, or nil.
func (c *conn) session() *mcp.ClientSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess
}

// lost marks s as gone (if it is still current) and closes it, which reaps
// a child process.
func (c *conn) lost(s *mcp.ClientSession, err error) {
	c.mu.Lock()
	cur := c.sess == s
	if cur {
		c.sess, c.down = nil, err
		c.lastErr, c.lastAt = err, time.Now()
	}
	c.mu.Unlock()
	if cur {
		c.m.logger.Warn("mcpadapter: connection lost", "server", c.cfg.Name, "error", err)
		s.Close()
	} else {
		c.callers.Drop(s) // a caller's session (callSession)
	}
}

// ensure returns a live session, reconnecting with backoff when the
// server is down and reconnection is on.
func (c *conn) ensure(ctx context.Context) (*mcp.ClientSession, error) {
	if s := c.session(); s != nil {
		return s, nil
	}
	c.dialMu.Lock()
	defer c.dialMu.Unlock()
	if s := c.session(); s != nil {
		return s, nil
	}
	c.mu.Lock()
	closed, down := c.closed, c.down
	c.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	ro := c.m.opts.Reconnect
	if ro.Disabled {
		return nil, fmt.Errorf("server %q is down (reconnection is disabled): %w", c.cfg.Name, down)
	}
	attempts := ro.MaxAttempts
	if attempts <= 0 {
		attempts = DefaultReconnectAttempts
	}
	wait := firstPositive(ro.MinBackoff, 100*time.Millisecond)
	maxWait := firstPositive(ro.MaxBackoff, 5*time.Second)
	var err error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, fmt.Errorf("reconnecting to %q: %w (last error: %v)", c.cfg.Name, ctx.Err(), err)
			case <-t.C:
			}
			wait = min(2*wait, maxWait)
		}
		// Dialled under the conn's context, ended with the call's: the
		// call's context carries its caller's request values, go-sdk's
		// protocol version among them, and a session dialled under a
		// 2026-07-28 caller's went out at 2026-07-28 to an older server.
		dctx, cancel := context.WithTimeout(c.bg, c.m.connectTimeout(&c.cfg))
		stop := context.AfterFunc(ctx, cancel)
		err = c.dial(dctx)
		stop()
		cancel()
		if err == nil {
			c.m.logger.Info("mcpadapter: reconnected", "server", c.cfg.Name)
			c.scheduleRefresh() // the server may have changed while we were away
			return c.session(), nil
		}
		if errors.Is(err, ErrClosed) {
			return nil, err
		}
	}
	err = fmt.Errorf("reconnecting to %q failed %d times: %w", c.cfg.Name, attempts, err)
	c.setDown(err)
	return nil, err
}

// setDown records why the server is down, unless it is back.
func (c *conn) setDown(err error) {
	c.mu.Lock()
	if c.sess == nil {
		c.down = err
	}
	c.lastErr, c.lastAt = err, time.Now()
	c.mu.Unlock()
}

// reconnect dials a new session (whatever the reconnect options say) and re-lists.
func (c *conn) reconnect(ctx context.Context) error {
	c.dialMu.Lock()
	dctx, cancel := context.WithTimeout(ctx, c.m.connectTimeout(&c.cfg))
	err := c.dial(dctx)
	cancel()
	c.dialMu.Unlock()
	if err != nil {
		c.setDown(err)
		return err
	}
	return c.refresh(ctx)
}

func (c *conn) scheduleRefresh() {
	select {
	case c.refreshCh <- struct{}{}:
	default: // one is pending already
	}
}

// refresher re-lists on list_changed and every RefreshInterval.
func (c *conn) refresher() {
	defer c.wg.Done()
	var tick <-chan time.Time
	if d := c.cfg.RefreshInterval; d > 0 {
		t := time.NewTicker(d)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-c.bg.Done():
			return
		case <-c.refreshCh:
		case <-tick:
		}
		ctx, cancel := context.WithTimeout(c.bg, c.m.connectTimeout(&c.cfg))
		if err := c.refresh(ctx); err != nil && c.bg.Err() == nil {
			c.m.logger.Warn("mcpadapter: refreshing tools failed", "server", c.cfg.Name, "error", err)
		}
		cancel()
	}
}

// close ends the session (reaping a child process), stops the refresher
// and unregisters the tools imported from the server.
func (c *conn) close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	s := c.sess
	c.sess = nil
	c.mu.Unlock()
	if s != nil {
		s.Close()
	}
	c.callers.CloseAll()
	c.unregisterAll()
	c.stopRefresher()
}

func (c *conn) stopRefresher() {
	c.cancel()
	c.wg.Wait()
}

func (c *conn) status() UpstreamStatus {
	c.mu.Lock()
	st := UpstreamStatus{Name: c.cfg.Name, Connected: c.sess != nil, Err: c.down, Skipped: slices.Clone(c.skipped),
		Transport: c.cfg.transportName(), Reconnects: max(c.dials-1, 0), Trusted: c.cfg.Trust, LastError: c.lastErr, LastErrorAt: c.lastAt}
	for _, imp := range c.tools {
		st.Tools = append(st.Tools, imp.spec.Name)
		if imp.quarantine.Load() != nil {
			st.Quarantined = append(st.Quarantined, imp.spec.Name)
		}
	}
	for _, q := range c.held {
		st.Quarantined = append(st.Quarantined, q.Tool)
	}
	c.mu.Unlock()
	sortStrings(st.Tools)
	sortStrings(st.Quarantined)
	return st
}

// setupOAuth makes the connection's OAuth handler once and returns it.
func (c *conn) setupOAuth() (*oauth.Handler, error) {
	c.oauthMu.Lock()
	defer c.oauthMu.Unlock()
	if c.oauth != nil {
		return c.oauth, nil
	}
	h, err := oauth.NewHandler(c.cfg.Name, c.cfg.URL, c.cfg.OAuth, c.cfg.HTTPClient)
	if err != nil {
		return nil, err
	}
	c.oauth = h
	return h, nil
}
