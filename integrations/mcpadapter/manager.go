package mcpadapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/outbound"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
	"github.com/agentadapter/agentadapter/registry"
)

// Defaults used when the corresponding option is zero.
const (
	DefaultConnectTimeout = 30 * time.Second
	DefaultCallTimeout    = 60 * time.Second
	DefaultMaxPages       = 100
	DefaultMaxResultBytes = 4 << 20
	// DefaultStopGrace is ManagerOptions.StopGrace when it is zero.
	DefaultStopGrace = 2 * time.Second
	// DefaultIdleConnsPerHost is ManagerOptions.IdleConnsPerHost when it
	// is zero.
	DefaultIdleConnsPerHost = 64
)

// Upstream describes one MCP server to import from. Set exactly one of
// Transport, NewTransport, Command or URL.
type Upstream struct {
	// Name identifies the server: 1 to 64 characters from [A-Za-z0-9_-]. It
	// becomes Spec.Source.Server of every imported tool, and the prefix of
	// their names when Prefix is set.
	Name string

	// Transport is any go-sdk client transport (for example one end of
	// mcp.NewInMemoryTransports). A transport connects once: a server given
	// this way is not reconnected; use NewTransport for that.
	Transport mcp.Transport
	// NewTransport, if set, makes a fresh transport for every (re)connection.
	NewTransport func() (mcp.Transport, error)

	// Command, Args, Env and Dir start a child process speaking MCP over
	// stdio. A nil Env inherits the environment. Stderr receives the
	// child's standard error; nil discards it.
	Command string
	Args    []string
	Env     []string
	Dir     string
	Stderr  io.Writer
	// BeforeStart, if set, is called before each start of Command's
	// process, the first and every reconnection; an error refuses that
	// start (the connection fails with it). A launch check goes here: a
	// program changed on disk since it was reviewed must not be restarted.
	BeforeStart func() error

	// URL is a streamable HTTP endpoint, or a legacy SSE endpoint when SSE
	// is set. Headers are added to every request for the URL's origin
	// (scheme, host and port), and to none for another: a redirect
	// elsewhere is followed without them, one from https to http is
	// refused. BearerToken, if set, is sent the same way as
	// "Authorization: Bearer <token>". HTTPClient defaults to a client of
	// the manager's shared transport (see
	// [ManagerOptions.IdleConnsPerHost]), which an HTTPClient without a
	// Transport uses too.
	URL         string
	SSE         bool
	Headers     map[string]string
	BearerToken string
	HTTPClient  *http.Client

	// ConnectTimeout bounds connecting and the initial listing; zero means
	// the manager's, then DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// CallTimeout bounds every forwarded call (a shorter deadline on the
	// call's ctx wins); zero means the manager's, then DefaultCallTimeout.
	CallTimeout time.Duration

	// Trust applies the server's tool annotations as policy. By default a
	// server is untrusted: MCP annotations are hints from whoever runs the
	// server, so its tools count as destructive and open-world, not
	// read-only and not idempotent, for approval, caching and retries,
	// whatever they declare (Spec.Source.Hints keeps the declaration).
	// Trust only servers you run or vouch for.
	Trust bool

	// Prefix names imported tools "<server>_<tool>".
	Prefix bool
	// Allow, if non-empty, imports only the tools of these remote names.
	// Deny never imports tools of these remote names. Filter, if set, must
	// also return true for a tool to be imported.
	Allow  []string
	Deny   []string
	Filter func(*mcp.Tool) bool

	// Targets and Tags are set on every imported spec.
	Targets []string
	Tags    []string

	// RefreshInterval, if positive, re-lists the server's tools that often,
	// in addition to list_changed notifications.
	RefreshInterval time.Duration

	// OAuth, if set, authorizes the requests to URL (streamable HTTP) with
	// OAuth bearer tokens; see [OAuth].
	OAuth *oauth.Config
	// Roots are advertised to this server in addition to
	// ManagerOptions.Roots.
	Roots []*mcp.Root
}

// transportName names how s is reached, for status displays.
func (s *Upstream) transportName() string {
	switch {
	case s.Command != "":
		return "stdio"
	case s.URL != "" && s.SSE:
		return "sse"
	case s.URL != "":
		return "http"
	}
	return "custom"
}

// DefaultReconnectAttempts is how many times a lost server is dialled
// before a call fails: with the default backoff, a server back within 1.5 s
// is found again.
const DefaultReconnectAttempts = 5

// ReconnectOptions configure how a manager re-establishes a lost
// connection. The zero value dials up to DefaultReconnectAttempts times,
// waiting 100 ms, then doubling up to 5 s.
type ReconnectOptions struct {
	// Disabled turns reconnection off: a lost server stays down until
	// [Manager.Reconnect] is called.
	Disabled    bool
	MaxAttempts int
	MinBackoff  time.Duration
	MaxBackoff  time.Duration
}

// ManagerOptions configure a [Manager]. The zero value is valid.
type ManagerOptions struct {
	// Strict makes Connect fail fast: the first failure (connection,
	// listing, or any tool that cannot be imported) cancels the other
	// connections of the call and rolls all of them back. Strict also
	// compiles every tool's schemas at import, so that a schema that does
	// not compile fails Connect; otherwise schemas are compiled on a tool's
	// first call, and a tool whose schema does not compile is imported but
	// fails every call with a [adapter.KindToolError].
	Strict bool
	// Client is the implementation announced to servers; nil means
	// {Name: "agentadapter", Version: "v0"}.
	Client *mcp.Implementation
	// ConnectTimeout and CallTimeout are the defaults for servers that set
	// none (see Server).
	ConnectTimeout time.Duration
	CallTimeout    time.Duration
	// MaxPages caps the pages of a tools/list; zero means DefaultMaxPages.
	MaxPages int
	// ListRetries is how many times a failed listing is retried; zero means
	// none.
	ListRetries int
	// MaxResultBytes bounds the size of a call's result (content and
	// structured content); larger results are a tool error. Zero means
	// DefaultMaxResultBytes; negative means no limit.
	MaxResultBytes int
	Reconnect      ReconnectOptions
	// Meta, if set, returns the _meta to send with a call of tool (its
	// remote name) on server: a tenant, a request id. The W3C traceparent
	// of the span on ctx is added unless NoTraceContext is set.
	Meta           func(ctx context.Context, server, tool string) map[string]any
	NoTraceContext bool
	// Pins are definition hashes from an earlier run, keyed by
	// PinKey(server, remoteName); see [Manager.Pins]. A tool whose
	// definition differs from its pin is quarantined on import. They seed
	// PinStore.
	Pins map[string]string
	// QuarantineNew says what happens to a tool a server adds after its
	// first listing (announced by list_changed or found by a refresh): the
	// zero value, QuarantineUntrusted, holds the new tools of untrusted
	// servers for [Manager.Accept] like changed ones.
	QuarantineNew NewToolPolicy
	// PinStore keeps the pins; nil means a new MemoryPinStore. Managers
	// sharing one store (replicas) share their pins and quarantines.
	PinStore pin.Store
	// OnQuarantine, if set, is called when a tool is quarantined.
	OnQuarantine func(Quarantine)
	// Logger receives operational logs; nil means slog.Default().
	Logger *slog.Logger

	// Sampler, if set, answers the servers' sampling/createMessage requests
	// with the application's model (the sampling capability is declared
	// only then). Elicitation, if set, puts their elicitation/create
	// requests to a person (form and URL modes are declared only then).
	// Each request runs through Executor as a call of SamplingTool or
	// ElicitationTool, under SamplingTimeout (zero: DefaultSamplingTimeout)
	// or ElicitationTimeout (zero: DefaultElicitationTimeout); a request the
	// executor refuses is refused to the server (an elicitation is
	// declined), one that times out is cancelled. Neither answers a
	// server's input-required result to a call through the export: that
	// goes to the export's MCP caller (see the package doc).
	Sampler            Sampler
	SamplingTimeout    time.Duration
	Elicitation        ElicitationPort
	ElicitationTimeout time.Duration
	// Executor governs the servers' sampling and elicitation requests.
	// It is required with a Sampler or an Elicitation: without it Connect
	// fails (an error wrapping kit.ErrNilExecutor), so that no request
	// runs under no policy.
	Executor *adapter.Executor
	// Roots are advertised to every server; see [Manager.SetRoots].
	Roots []*mcp.Root
	// StopGrace is how long closing a stdio server waits for it to exit
	// once its stdin is closed before sending SIGTERM, and as long again
	// before SIGKILL (the MCP stdio shutdown). Zero means DefaultStopGrace.
	// A one-shot program that has its answer can pass a short grace: a
	// server that ignores the end of its input is then terminated, not
	// waited for.
	StopGrace time.Duration
	// IdleConnsPerHost is how many idle connections to one host the
	// manager's shared HTTP transport keeps for reuse; zero means
	// DefaultIdleConnsPerHost. Every URL server without an HTTPClient of
	// its own (or with one without a Transport) shares that transport, so
	// that calls in flight at once, up to this many per host, reuse their
	// connections instead of opening new ones (net/http's default keeps 2).
	IdleConnsPerHost int
}

// Manager imports the tools of MCP servers into a registry and keeps them
// true to the servers: it re-lists on notifications/tools/list_changed, pins
// definitions, and reconnects lost servers. It is safe for concurrent use.
type Manager struct {
	reg    *registry.Registry
	opts   ManagerOptions
	logger *slog.Logger
	bg     context.Context // cancelled by Close; background refreshes run under it
	stop   context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[string]*conn
	closed bool
	pins   pin.Store
	roots  []*mcp.Root
	relay  relay           // upstream notifications for exports, see upstream.go
	http   *http.Transport // shared by the URL servers, see IdleConnsPerHost
}

// NewManager returns a manager that imports into reg. opts may be nil.
func NewManager(reg *registry.Registry, opts *ManagerOptions) *Manager {
	if reg == nil {
		panic("mcpadapter: NewManager with a nil registry")
	}
	m := &Manager{reg: reg, conns: map[string]*conn{}}
	if opts != nil {
		m.opts = *opts
	}
	m.roots = slices.Clone(m.opts.Roots)
	m.http = outbound.NewTransport(firstPositive(m.opts.IdleConnsPerHost, DefaultIdleConnsPerHost))
	m.logger = m.opts.Logger
	if m.logger == nil {
		m.logger = slog.Default()
	}
	m.pins = m.opts.PinStore
	if m.pins == nil {
		m.pins = pin.NewMemoryStore(m.opts.Pins)
	} else {
		for k, v := range m.opts.Pins {
			if _, err := m.pins.SetIfAbsent(context.Background(), k, v); err != nil {
				m.logger.Error("mcpadapter: seeding a pin failed", "key", k, "error", err)
			}
		}
	}
	m.bg, m.stop = context.WithCancel(context.Background())
	return m
}

// errNoExecutor is Connect's error for a Sampler or Elicitation with no
// Executor to govern their requests.
var errNoExecutor = fmt.Errorf("mcpadapter: ManagerOptions.Sampler and Elicitation need ManagerOptions.Executor: %w", kit.ErrNilExecutor)

// ErrClosed is returned by a manager after Close.
var ErrClosed = errors.New("mcpadapter: manager closed")

// UpstreamError reports why a server could not be connected or imported.
type UpstreamError struct {
	Server string
	Err    error
}

func (e *UpstreamError) Error() string {
	return fmt.Sprintf("mcpadapter: server %q: %v", e.Server, e.Err)
}
func (e *UpstreamError) Unwrap() error { return e.Err }

// Connect connects to servers in parallel, each under its connect timeout,
// and imports their tools into the registry in the order given: when two
// servers offer the same (unprefixed) name, the first wins and the other's
// tool is reported, in the returned error and in [UpstreamStatus.Skipped].
//
// Without Strict, a server that fails to connect is dropped, a tool that
// cannot be imported (a schema not of type object, a name collision) is
// skipped, and the rest is imported; the returned error (a join of
// [*ServerError]) says what failed. Schemas are compiled on each tool's
// first call (see [ManagerOptions.Strict]). With Strict, the first failure
// cancels the others, nothing of this call stays connected or registered,
// and that failure is returned.
func (m *Manager) Connect(ctx context.Context, servers ...Upstream) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	if m.opts.Executor == nil && (m.opts.Sampler != nil || m.opts.Elicitation != nil) {
		m.mu.Unlock()
		return errNoExecutor
	}
	seen := map[string]bool{}
	for _, s := range servers {
		if err := validateServer(&s); err != nil {
			m.mu.Unlock()
			return &UpstreamError{Server: s.Name, Err: err}
		}
		if seen[s.Name] || m.conns[s.Name] != nil {
			m.mu.Unlock()
			return &UpstreamError{Server: s.Name, Err: errors.New("a server of this name is already connected")}
		}
		seen[s.Name] = true
	}
	conns := make([]*conn, len(servers))
	for i, s := range servers {
		conns[i] = newConn(m, s)
		m.conns[s.Name] = conns[i] // reserve the name
	}
	m.mu.Unlock()

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	var prev chan struct{}
	for i, c := range conns {
		wg.Add(1)
		done := make(chan struct{})
		go func(prev <-chan struct{}) {
			defer wg.Done()
			if err := c.start(cctx, prev, done); err != nil {
				errs[i] = &UpstreamError{Server: c.cfg.Name, Err: err}
				if m.opts.Strict {
					cancel()
				}
			}
		}(prev)
		prev = done
	}
	wg.Wait()

	var failed []error
	for i, c := range conns {
		if errs[i] == nil {
			continue
		}
		failed = append(failed, errs[i])
		if c.session() == nil { // dropped: it never connected
			m.drop(c)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	if m.opts.Strict {
		for _, c := range conns {
			m.drop(c)
		}
		for _, err := range failed {
			if !errors.Is(err, context.Canceled) || ctx.Err() != nil {
				return err
			}
		}
		return failed[0]
	}
	return errors.Join(failed...)
}

// drop disconnects c and unregisters what it imported.
func (m *Manager) drop(c *conn) {
	m.mu.Lock()
	if m.conns[c.cfg.Name] == c {
		delete(m.conns, c.cfg.Name)
	}
	m.mu.Unlock()
	c.close()
}

// Remove disconnects the named server and unregisters its tools.
func (m *Manager) Remove(name string) error {
	c, err := m.conn(name)
	if err != nil {
		return err
	}
	m.drop(c)
	return nil
}

// Reconnect opens new sessions to the named servers (connected or not) and
// re-lists their tools; with no names it does so for every server that is
// down. It works with ReconnectOptions.Disabled too.
func (m *Manager) Reconnect(ctx context.Context, names ...string) error {
	var conns []*conn
	if len(names) == 0 {
		for _, c := range m.all() {
			if c.session() == nil {
				conns = append(conns, c)
			}
		}
	} else {
		for _, n := range names {
			c, err := m.conn(n)
			if err != nil {
				return err
			}
			conns = append(conns, c)
		}
	}
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.reconnect(ctx); err != nil {
				errs[i] = &UpstreamError{Server: c.cfg.Name, Err: err}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Refresh re-lists the tools of the named servers (all when none are
// named) and applies additions, removals and changes to the registry.
func (m *Manager) Refresh(ctx context.Context, names ...string) error {
	var conns []*conn
	if len(names) == 0 {
		conns = m.all()
	} else {
		for _, n := range names {
			c, err := m.conn(n)
			if err != nil {
				return err
			}
			conns = append(conns, c)
		}
	}
	var errs []error
	for _, c := range conns {
		if err := c.refresh(ctx); err != nil {
			errs = append(errs, &UpstreamError{Server: c.cfg.Name, Err: err})
		}
	}
	return errors.Join(errs...)
}

// UpstreamStatus describes one server of a manager.
type UpstreamStatus struct {
	Name      string
	Connected bool
	// Err is why the server is down, if it is.
	Err error
	// Transport is how the server is reached: "stdio", "http", "sse" or
	// "custom" (a Transport or NewTransport of the caller's).
	Transport string
	// Reconnects counts the sessions opened after the first.
	Reconnects int
	// Trusted reports Server.Trust: whether the server's annotations are
	// policy.
	Trusted bool
	// LastError is the last time the connection was lost or a reconnection
	// failed, and why; it is kept after the server recovers.
	LastError   error
	LastErrorAt time.Time
	// Tools are the registry names of the tools imported from it.
	Tools []string
	// Quarantined are the registry names of its quarantined tools.
	Quarantined []string
	// Skipped are the tools of its last listing that were not imported,
	// with why: a name another server took first, a schema not of type
	// object.
	Skipped []ImportError
}

// Servers reports the state of every server, ordered by name.
func (m *Manager) Servers() []UpstreamStatus {
	var out []UpstreamStatus
	for _, c := range m.all() {
		out = append(out, c.status())
	}
	return out
}

// Session returns the live session to the named server, for what this
// package does not cover. It is nil while the server is down.
func (m *Manager) Session(name string) *mcp.ClientSession {
	c, err := m.conn(name)
	if err != nil {
		return nil
	}
	return c.session()
}

// Close disconnects every server, reaps child processes, stops background
// refreshes and unregisters the tools the manager imported.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	conns := make([]*conn, 0, len(m.conns))
	for _, c := range m.conns {
		conns = append(conns, c)
	}
	m.conns = map[string]*conn{}
	m.mu.Unlock()
	m.stop()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.close()
		}()
	}
	wg.Wait()
	m.wg.Wait()
	m.http.CloseIdleConnections()
	return nil
}

func (m *Manager) conn(name string) (*conn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	c := m.conns[name]
	if c == nil {
		return nil, fmt.Errorf("mcpadapter: no server %q", name)
	}
	return c, nil
}

func (m *Manager) all() []*conn {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*conn, 0, len(m.conns))
	for _, c := range m.conns {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].cfg.Name < out[j].cfg.Name })
	return out
}

func validateServer(s *Upstream) error {
	if err := adapter.ValidateName(s.Name); err != nil {
		return fmt.Errorf("invalid server name: %w", err)
	}
	n := 0
	for _, set := range []bool{s.Transport != nil, s.NewTransport != nil, s.Command != "", s.URL != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return errors.New("set exactly one of Transport, NewTransport, Command or URL")
	}
	if s.OAuth != nil && (s.URL == "" || s.SSE) {
		return errors.New("OAuth needs a streamable HTTP URL")
	}
	if slices.ContainsFunc(s.Allow, func(a string) bool { return slices.Contains(s.Deny, a) }) {
		return errors.New("a tool is both allowed and denied")
	}
	return nil
}

func (m *Manager) connectTimeout(s *Upstream) time.Duration {
	return firstPositive(s.ConnectTimeout, m.opts.ConnectTimeout, DefaultConnectTimeout)
}

func (m *Manager) callTimeout(s *Upstream) time.Duration {
	return firstPositive(s.CallTimeout, m.opts.CallTimeout, DefaultCallTimeout)
}

func firstPositive[T int | time.Duration](ds ...T) T {
	for _, d := range ds {
		if d > 0 {
			return d
		}
	}
	return 0
}
