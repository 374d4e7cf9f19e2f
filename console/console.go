package console

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"iter"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
)

// Approvals is where the console reads pending tickets and records
// decisions. *adapter.Deferred satisfies it (with a ticket store that
// implements adapter.TicketEditor, as the in-memory one does).
type Approvals interface {
	// Pending yields the tickets awaiting a decision.
	Pending(ctx context.Context) iter.Seq2[*approval.Ticket, error]
	// Ticket returns one ticket, or an error wrapping adapter.ErrTicketNotFound.
	Ticket(ctx context.Context, id string) (*approval.Ticket, error)
	// Approve, ApproveEdited and Deny decide a pending ticket atomically:
	// of two concurrent decisions, one fails with adapter.ErrTicketState.
	Approve(ctx context.Context, ticket, approver string) error
	ApproveEdited(ctx context.Context, ticket, approver string, args json.RawMessage) error
	Deny(ctx context.Context, ticket, reason, approver string) error
}

// DefaultLedgerLimit is how many records a ledger page shows by default.
const DefaultLedgerLimit = 200

// Servers is where the console reads the state of imported MCP servers and
// their quarantined tools. *mcpadapter.Manager satisfies it.
type Servers interface {
	Servers() []mcpadapter.ServerStatus
	Quarantined() []mcpadapter.Quarantine
	// Accept accepts the quarantined definition whose hash the operator
	// reviewed (mcpadapter.Manager.Accept); it fails if the definition
	// changed since.
	Accept(server, tool, hash string) error
}

// StandingDecisions keep "always approve" and "always deny" decisions for
// a tool and a caller; *approval.Standing does.
type StandingDecisions interface {
	// Allows reports whether the policy permits standing decisions for tool.
	Allows(tool string) bool
	// Put records a decision, replacing any for the same tool and subject.
	Put(ctx context.Context, r approval.StandingRule) error
	// Delete removes the decision for tool and subject, reporting whether
	// there was one; on an error the decision stays in force.
	Delete(ctx context.Context, tool, subject string) (bool, error)
	// Rules lists the decisions in force.
	Rules() []approval.StandingRule
}

// Options configure a [Console]. Approvals, Ledger and Auth with
// Revalidate (or AllowAnonymousLocal) are required; a nil Servers or LedgerReader leaves
// those pages empty with a note saying so.
type Options struct {
	// Approvals is the source of pending tickets.
	Approvals Approvals
	// Tools looks up the spec of a ticket's tool (description, annotations,
	// input schema, the edit form); a *registry.Registry does.
	Tools adapter.Catalog
	// Ledger receives one record per operator decision (approve, deny, edit,
	// pin accepted or kept blocked), with the operator as Approver. Required:
	// a decision nobody can audit is refused.
	Ledger ledger.Ledger
	// LedgerReader serves the ledger page and its export; the in-memory
	// ledger and the durable stores implement it.
	LedgerReader ledger.Reader
	// Servers serves the servers and quarantine pages.
	Servers Servers
	// Connections, if set, serves the connections page: the signed-in
	// user's own sign-ins to per-user servers, and disconnecting them.
	Connections Connections
	// Standing, if set, adds "always approve" and "always deny" (for the
	// ticket's tool and requester) to the tickets whose tool its policy
	// allows.
	Standing StandingDecisions

	// Auth requires every operator to present a token the verifier accepts
	// (the gateway's inbound auth): as "Authorization: Bearer" or once on the
	// login form, which opens a cookie session. The token's UserID is the
	// operator's identity in the ledger.
	Auth *export.AuthOptions
	// Users, if set with Auth, also signs in the people its verifier
	// accepts (the gateway's MCP callers: the login form or a bearer
	// header, after the operators' Auth) as users: a user reaches only the
	// Connections page, their own connections, and nothing an operator
	// decides or reads. A user's session lasts until their token expires
	// (or SessionTTL), as the token itself would.
	Users *export.AuthOptions
	// AllowAnonymousLocal, with Auth nil, serves operators without a token,
	// but only on connections made to and from a loopback address; the
	// operator is then recorded as AnonymousOperator. Without Auth and
	// without it, every request is refused.
	AllowAnonymousLocal bool
	// Revalidate is asked, on every request of a login session opened
	// with Auth, whether the credential the session was opened with is
	// still an operator's: operator is the name Auth's verifier gave at
	// sign-in, token the SHA-256 of the token presented then. An error
	// ends the session (its browser is sent to sign in again). Answer from
	// the credentials in force, so that removing an operator or changing
	// its token ends its sessions on the next request, on every console
	// sharing Sessions. Required with Auth: New refuses a nil Revalidate,
	// since a session would otherwise outlive its credential.
	Revalidate func(ctx context.Context, operator string, token Credential) error
	// SignInFailures is how many wrong tokens (on the login form or as a
	// bearer header) one client address may present before its attempts
	// are refused with 429 and Retry-After; each further wrong token
	// doubles the wait, from SignInDelay up to MaxSignInDelay, and a
	// right one resets it. Zero means DefaultSignInFailures, negative
	// turns throttling off.
	SignInFailures int
	// TrustedProxies are the reverse proxies in front of the console.
	// Only from them are X-Forwarded-For (the client's address, which
	// sign-ins are throttled by) and X-Forwarded-Proto ("https" makes the
	// session cookie Secure) believed. Default: none, so the connection's
	// own peer and TLS state decide.
	TrustedProxies []netip.Prefix
	// SessionTTL bounds a login session (and never outlives the token's
	// expiry); zero means DefaultSessionTTL.
	SessionTTL time.Duration
	// Sessions keeps login sessions; nil keeps them in this process's
	// memory, so a restart signs operators out and a replica knows only
	// its own. KVSessions over a store's sessions table shares them.
	Sessions SessionStore

	// Why, if set, says why a ticket's call was held (which rule or
	// default of the policy matched); its card shows the answer.
	Why func(t *approval.Ticket) string
	// Redact masks secrets in the arguments shown to operators; nil means
	// adapter.RedactKeys(adapter.DefaultSecretKeys()...).
	Redact func(tool string, args json.RawMessage) json.RawMessage
	// PollInterval is how often a live page's event stream checks for new
	// or decided tickets; zero means DefaultPollInterval. [Console.Notify]
	// wakes the streams at once.
	PollInterval time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives operational logs; nil means slog.Default().
	Logger *slog.Logger
}

// Defaults of [Options].
const (
	DefaultSessionTTL   = 8 * time.Hour
	DefaultPollInterval = 250 * time.Millisecond
	// AnonymousOperator is the operator recorded for decisions taken
	// without authentication (Options.AllowAnonymousLocal).
	AnonymousOperator = "anonymous@localhost"
)

// Ledger record outcomes of operator decisions.
const (
	OutcomeDecision    = "decision"
	OutcomePinAccepted = "pin_accepted"
	OutcomePinKept     = "pin_kept"
	// OutcomeStanding records a standing decision taken or revoked: Tool
	// and Subject say what it covers (Subject is the requester, "" the
	// unauthenticated caller), Approval is "approved" or "denied" for a
	// decision taken (Message its reason, Ticket the ticket it was taken
	// on) and "revoked" for one revoked; Approver is the operator. The
	// ledger is thus the durable home of standing decisions: a program
	// replays these records, oldest first, to restore them after a
	// restart or to follow another replica's console.
	OutcomeStanding = "standing"
	// Source is Record.Source and Record.Integration of the console's records.
	Source = "console"
)

// Console is the operator's web page: an http.Handler. Mount it under a
// path prefix with http.StripPrefix; every link it writes is relative.
type Console struct {
	opts     Options
	redact   func(string, json.RawMessage) json.RawMessage
	logger   *slog.Logger
	pages    map[string]*template.Template
	mux      *http.ServeMux
	handler  http.Handler
	sessions SessionStore
	throttle *throttle

	mu     sync.Mutex
	wake   chan struct{} // closed and replaced by Notify
	done   chan struct{} // closed by Close
	closed bool
}

// ErrConfig is wrapped by the errors of [New] for an unusable configuration.
var ErrConfig = errors.New("console: invalid configuration")

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// New returns a console. It fails with [ErrConfig] when no operator could
// be authenticated (neither Auth nor AllowAnonymousLocal) or when decisions
// could not be recorded (Approvals without Ledger).
func New(opts *Options) (*Console, error) {
	if opts == nil {
		opts = &Options{}
	}
	c := &Console{opts: *opts, wake: make(chan struct{}), done: make(chan struct{})}
	switch {
	case c.opts.Auth == nil && !c.opts.AllowAnonymousLocal:
		return nil, errors.Join(ErrConfig, errors.New("console: set Auth, or AllowAnonymousLocal to serve loopback connections without a token"))
	case c.opts.Auth != nil && c.opts.Auth.Verifier == nil:
		return nil, errors.Join(ErrConfig, errors.New("console: Auth.Verifier is nil"))
	case c.opts.Users != nil && (c.opts.Auth == nil || c.opts.Users.Verifier == nil):
		return nil, errors.Join(ErrConfig, errors.New("console: Users needs Auth and a Users.Verifier"))
	case c.opts.Auth != nil && c.opts.Revalidate == nil:
		return nil, errors.Join(ErrConfig, errors.New("console: Auth without Revalidate: a login session would outlive its operator's credential"))
	case (c.opts.Approvals != nil || c.opts.Servers != nil) && c.opts.Ledger == nil:
		return nil, errors.Join(ErrConfig, errors.New("console: decisions must be recorded: set Ledger"))
	}
	c.redact = c.opts.Redact
	if c.redact == nil {
		c.redact = ledger.RedactKeys(ledger.DefaultSecretKeys()...)
	}
	c.logger = c.opts.Logger
	if c.logger == nil {
		c.logger = slog.Default()
	}
	if c.opts.PollInterval <= 0 {
		c.opts.PollInterval = DefaultPollInterval
	}
	if c.opts.SessionTTL <= 0 {
		c.opts.SessionTTL = DefaultSessionTTL
	}
	c.throttle = newThrottle(c.opts.SignInFailures)
	c.sessions = c.opts.Sessions
	if c.sessions == nil {
		c.sessions = &memorySessions{m: map[string]Session{}, now: c.now}
	}
	if err := c.parseTemplates(); err != nil {
		return nil, err
	}
	c.routes()
	return c, nil
}

func (c *Console) now() time.Time {
	if c.opts.Now != nil {
		return c.opts.Now()
	}
	return time.Now()
}

// ServeHTTP implements http.Handler.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.handler.ServeHTTP(w, r)
}

// Notify wakes the live pages at once (they also poll; see
// Options.PollInterval). Set it as adapter.Deferred.OnPending to show new
// tickets without delay.
func (c *Console) Notify() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	close(c.wake)
	c.wake = make(chan struct{})
}

func (c *Console) wakeCh() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wake
}

// Close ends the open event streams; the console keeps serving pages.
// Call it before http.Server.Shutdown, which waits for streams to end.
func (c *Console) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		close(c.done)
	}
	return nil
}

func (c *Console) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { seeOther(w, "approvals") })
	m.HandleFunc("GET /login", c.loginPage)
	m.HandleFunc("POST /login", c.login)
	m.HandleFunc("POST /logout", c.operator(c.action(c.logout)))
	m.HandleFunc("GET /approvals", c.operator(c.approvalsPage))
	m.HandleFunc("GET /pending", c.operator(c.pendingFragment))
	m.HandleFunc("GET /events", c.operator(c.events))
	m.HandleFunc("POST /decide", c.operator(c.action(c.decide)))
	m.HandleFunc("POST /standing", c.operator(c.action(c.revokeStanding)))
	m.HandleFunc("GET /edit", c.operator(c.editPage))
	m.HandleFunc("POST /edit", c.operator(c.action(c.edit)))
	m.HandleFunc("GET /ledger", c.operator(c.ledgerPage))
	m.HandleFunc("GET /export", c.operator(c.export))
	m.HandleFunc("GET /servers", c.operator(c.serversPage))
	m.HandleFunc("POST /servers", c.operator(c.action(c.launchDecide)))
	m.HandleFunc("GET /quarantine", c.operator(c.quarantinePage))
	m.HandleFunc("POST /quarantine", c.operator(c.action(c.pinDecide)))
	m.HandleFunc("GET /connections", c.operator(c.connectionsPage))
	m.HandleFunc("POST /connections", c.operator(c.action(c.disconnect)))
	m.HandleFunc("GET /static/", c.static)
	c.mux = m
	// Cross-origin refusal first (Sec-Fetch-Site / Origin), then the
	// security headers every answer carries.
	c.handler = http.NewCrossOriginProtection().Handler(headers(m))
}

// csp forbids inline script and style, plugins, framing and foreign
// connections: the page runs only the console's own script.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func headers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", csp)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-store")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.ServeHTTP(w, r)
	})
}

// seeOther redirects to a path relative to the request, which keeps the
// console working under any mount prefix (http.Redirect would make it
// absolute from the stripped path).
func seeOther(w http.ResponseWriter, rel string) {
	w.Header().Set("Location", rel)
	w.WriteHeader(http.StatusSeeOther)
}

func (c *Console) static(w http.ResponseWriter, r *http.Request) {
	http.FileServerFS(staticFS).ServeHTTP(w, r)
}
