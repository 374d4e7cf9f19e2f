// Package config reads the gateway's configuration: the MCP server lists
// users already have (the "mcpServers" object of desktop clients, Cursor
// and Claude Code; VS Code's "servers" and "inputs") plus an optional
// "agentadapter" section that puts policy on top.
//
//	cfg, err := config.Load("mcp.json", nil)
//	if err != nil {
//		var ce *config.Error // names the file, line and JSON path
//		...
//	}
//	for _, s := range cfg.Servers { ... }
//
// Unknown keys, duplicate servers, undefined variables, missing commands and
// bad URLs are errors naming the file, the line and the JSON path.
package config

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Error is a configuration error: one line naming where and what.
type Error struct {
	File string
	Line int
	Path string
	Msg  string
}

// Error returns one line: file:line: path: message.
func (e *Error) Error() string {
	return strings.ReplaceAll(e.line(), "\n", `\n`)
}

func (e *Error) line() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Path != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Path, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// file is the shape of a configuration file, as written.
type file struct {
	// MCPServers are the upstream MCP servers, keyed by name, as Claude
	// Desktop, Cursor, Claude Code and most clients write them.
	MCPServers map[string]*serverEntry `json:"mcpServers"`
	// Servers are the upstream MCP servers in VS Code's format (same entries
	// as mcpServers; a name may appear in only one of the two).
	Servers map[string]*serverEntry `json:"servers"`
	// Inputs are VS Code input variables, referenced as ${input:id} in
	// string values.
	Inputs []*Input `json:"inputs"`
	// Agentadapter is the gateway's own section: what it adds to the
	// client's servers. Only one file (the one given, or the file that
	// includes the client's) may have it.
	Agentadapter *Section `json:"agentadapter"`
	// Schema names the JSON Schema editors validate the file with
	// (docs/agentadapter.schema.json); the gateway ignores it.
	Schema string `json:"$schema"`
}

// serverEntry is one server as the clients write it. Keys some clients add
// that mean nothing to the gateway (autoApprove, alwaysAllow, dev,
// gallery) are accepted and ignored: approval is the gateway's policy.
type serverEntry struct {
	// Type is the transport: "stdio" (the default when command is set),
	// "http" (streamable HTTP, the default when url is set;
	// "streamable-http" and "streamableHttp" are read as http) or "sse".
	Type string `json:"type"`
	// Command starts a stdio server: a name looked up on PATH, or a path
	// (relative paths from cwd). config check refuses one that cannot be
	// found.
	Command string `json:"command"`
	// Args are the command's arguments.
	Args []string `json:"args"`
	// Env adds variables to the server's environment (the gateway's own is
	// inherited); values are masked in config check when their name or
	// content looks secret.
	Env map[string]string `json:"env"`
	// EnvFile reads KEY=VALUE lines (# comments, optional export and quotes)
	// into the environment, relative to this file; env wins over it.
	EnvFile string `json:"envFile"`
	// Cwd is the stdio server's working directory, relative to this file.
	Cwd string `json:"cwd"`
	// URL is a remote server's endpoint: http:// or https:// with a host.
	URL string `json:"url"`
	// Headers are sent with every request to the remote server's origin
	// (scheme, host and port); a redirect to another origin is followed
	// without them, one from https to http is refused.
	Headers map[string]string `json:"headers"`
	// Disabled keeps the server in the file without starting or connecting
	// it.
	Disabled bool `json:"disabled"`
	// Timeout is Cline's per-server call timeout, in seconds.
	Timeout Duration `json:"timeout"`
	// TransportType is Cline's name for type.
	TransportType string `json:"transportType"`
	// AutoApprove is a client's own approval list: accepted and ignored
	// (approval is the gateway's policy).
	AutoApprove json.RawMessage `json:"autoApprove"`
	// AlwaysAllow is a client's own approval list: accepted and ignored.
	AlwaysAllow json.RawMessage `json:"alwaysAllow"`
	// Dev is VS Code's development settings: accepted and ignored.
	Dev json.RawMessage `json:"dev"`
	// Gallery is VS Code's gallery link: accepted and ignored.
	Gallery json.RawMessage `json:"gallery"`
	// Version is a client's note of the server's version: accepted and
	// ignored.
	Version json.RawMessage `json:"version"`
	// Description is a client's note on the server: accepted and ignored.
	Description string `json:"description"`
}

// Input is a VS Code input variable, referenced as ${input:id}.
type Input struct {
	// Type is VS Code's input kind ("promptString", "pickString"); the
	// gateway asks for every kind the same way.
	Type string `json:"type"`
	// ID names the input in ${input:id}; the environment variable
	// AGENTADAPTER_INPUT_<ID> (upper case, other characters as _) gives its
	// value without asking.
	ID string `json:"id"`
	// Description is the question asked on a terminal.
	Description string `json:"description"`
	// Password reads the answer without echo.
	Password bool `json:"password"`
	// Default is the value when the environment gives none and no terminal
	// can be asked.
	Default string `json:"default"`
	// Options are pickString's choices (shown, not enforced).
	Options []string `json:"options"`
}

// Section is the "agentadapter" section: what the gateway adds.
type Section struct {
	// Include names another file (relative to this one) whose servers and
	// inputs are used as if written here: keep the client's file as it is
	// and put the gateway's settings beside it.
	Include string `json:"include,omitempty"`
	// Listen is the HTTP address; default 127.0.0.1:8931. It changes only
	// on restart: a reload that changes it is refused whole.
	Listen string `json:"listen,omitempty"`
	// Store is where approvals, the ledger and pins live: "memory:",
	// "sqlite:PATH"; default sqlite under the user's state directory. It
	// changes only on restart: a reload that changes it is refused whole.
	Store string `json:"store,omitempty"`
	// Auth requires a bearer token of inbound HTTP clients.
	Auth *Auth `json:"auth,omitempty"`
	// Servers are per-server settings, keyed by server name.
	Servers map[string]*ServerPolicy `json:"servers,omitempty"`
	// Policy governs calls of the default endpoint (/mcp) and of virtual
	// servers that set none of their own.
	Policy *Policy `json:"policy,omitempty"`
	// Virtual are further endpoints, /mcp/<name>, each with its own tools
	// and policy.
	Virtual map[string]*Virtual `json:"virtualServers,omitempty"`
	// Console, if set, serves the operator console at /console/.
	Console *Console `json:"console,omitempty"`

	// SignIn lets the users of oauth.perCaller servers sign
	// in through the gateway: its sign-in pages and OAuth callback, at
	// /oauth/start and /oauth/callback.
	SignIn *SignIn `json:"signIn,omitempty"`
	// Approver is who decides the calls the policy holds for approval at
	// /mcp and at the virtual servers that set none: "operator" (the
	// default: the call answers with a ticket an operator decides on the
	// console or with agentadapter approvals) or "client": a client that
	// declares elicitation is asked, and its user's answer decides. The
	// client's user then decides, not an operator: a client, or an agent
	// driving one, can approve its own calls. The ledger records such a
	// decision with the approver "client:<subject>" and the source
	// "client". Clients without elicitation get the ticket as with
	// "operator".
	Approver string `json:"approver,omitempty"`
	// Sessions caps the live MCP sessions (streamable HTTP) across every
	// endpoint of the gateway.
	Sessions *Sessions `json:"sessions,omitempty"`
	// IdleConnsPerHost is how many idle HTTP connections to one upstream
	// host the gateway keeps for reuse, shared by every URL server; default
	// 64 (net/http's own default, 2, opens a connection per call under
	// load). It changes only on restart: a reload that changes it is
	// refused whole.
	IdleConnsPerHost int `json:"idleConnsPerHost,omitempty"`
	// LegacySSE also serves the HTTP+SSE transport of protocol 2024-11-05,
	// for clients that know no other, at every endpoint: GET /sse (or
	// /sse/<virtual>) opens a session, whose messages the client posts to
	// /message (or /message/<virtual>). Off by default; a virtual server's
	// own legacySSE turns it on for that endpoint alone. The same Host and
	// Origin check, tokens, session caps and body limit apply as on /mcp;
	// a session's messages must come with a token of the subject that
	// opened it.
	LegacySSE bool `json:"legacySSE,omitempty"`
	// AllowedHosts are host names ("gateway.internal", no port) that
	// requests may name in their Host header besides loopback ones. By
	// default a request reaching a loopback listener must name localhost,
	// 127.0.0.0/8 or [::1] (anything else is a DNS-rebinding page and gets
	// 403, on every route). When set, the rule holds on every listener:
	// only these names and loopback ones are served.
	AllowedHosts []string `json:"allowedHosts,omitempty"`
	// TrustedProxies are the addresses ("10.0.0.5") or networks
	// ("10.0.0.0/8") of reverse proxies in front of the gateway. Only from
	// them are X-Forwarded-For (the client's address: the last one it
	// names that is not a trusted proxy, for sign-in throttling, the
	// session caps and anonymous task ownership) and X-Forwarded-Proto ("https" makes the console's cookie
	// Secure) believed; from anyone else they are ignored. Default: none.
	TrustedProxies []string `json:"trustedProxies,omitempty"`
}

// Console configures the operator console. Operators are not the
// gateway's MCP clients: they approve calls, so they have tokens of their
// own (a client able to approve would approve its own calls).
type Console struct {
	// Operators are the people who may sign in to the console and decide: a
	// subject and a token of their own each (at least 32 characters, none
	// also a client's).
	Operators []Token `json:"operators,omitempty"`
	// AnonymousLocal serves loopback connections without a token. Any
	// local process, an agent with a shell included, can then approve.
	AnonymousLocal bool `json:"anonymousLocal,omitempty"`
}

// Auth configures inbound bearer tokens: static tokens, and/or JWTs.
type Auth struct {
	// Tokens are the accepted bearer tokens, each with the subject it names
	// (at least 32 characters each).
	Tokens []Token `json:"tokens,omitempty"`
	// TokensFile holds one "subject token [scope...]" line per token.
	TokensFile string `json:"tokensFile,omitempty"`
	// JWT accepts signed JSON Web Tokens.
	JWT *JWT `json:"jwt,omitempty"`
}

// JWT verifies signed tokens: HS256/384/512 with Secret, or RS*/ES*/EdDSA
// with the PEM public key in PublicKeyFile. The subject is the "sub"
// claim; scopes come from "scope" (space-separated) or "scp".
type JWT struct {
	// Secret is the HMAC key of HS256/384/512 tokens (at least 32
	// characters); use ${VAR} to keep it out of the file.
	Secret string `json:"secret,omitempty"`
	// PublicKeyFile is the PEM public key of RS*, ES* or EdDSA tokens,
	// relative to this file; it must be writable by its owner only.
	PublicKeyFile string `json:"publicKeyFile,omitempty"`
	// Issuer and Audience, if set, must match the token's iss and aud.
	// At least one is required (audience is the one that tells tokens
	// minted for this gateway from those for another service of the same
	// identity provider), unless AnyAudience is set.
	Issuer   string `json:"issuer,omitempty"`
	Audience string `json:"audience,omitempty"`
	// AnyAudience accepts tokens whatever their iss and aud, when neither
	// is set: any token the key signed opens a session, whichever service
	// it was minted for. Off by default.
	AnyAudience bool `json:"anyAudience,omitempty"`
}

// Token is one accepted bearer token and who presents it.
type Token struct {
	// Subject names who presents the token: the caller's identity in
	// tickets, caps, limits and the ledger.
	Subject string `json:"subject"`
	// Token is the secret itself: at least 32 characters and 8 distinct ones
	// (openssl rand -hex 32 makes one).
	Token string `json:"token"`
	// Scopes are the token's scopes, as an OAuth token's would be.
	Scopes []string `json:"scopes,omitempty"`
}

// ServerPolicy is the gateway's view of one upstream server.
type ServerPolicy struct {
	// Trust is "untrusted" (the default: the server's annotations are
	// ignored, so a tool claiming to be read-only is treated as
	// destructive and open-world) or "trusted". "trusted" also accepts
	// the server's stdio launch (command, args, env, cwd) without an
	// operator's review, new or changed: honoured only in the gateway's
	// own file, never from a file it includes.
	Trust string `json:"trust,omitempty"`
	// Prefix names the server's tools (and prompts) <server>_<tool>, so
	// that two servers' tools of one name do not collide.
	Prefix bool `json:"prefix,omitempty"`
	// Allow, if set, serves only the tools and prompts of these remote
	// names (default: all).
	Allow []string `json:"allow,omitempty"`
	// Deny never serves the tools or prompts of these remote names.
	Deny []string `json:"deny,omitempty"`
	// Rename maps remote tool and prompt names to the names clients see.
	Rename map[string]string `json:"rename,omitempty"`
	// Tools override what the server says of its tools, by remote name.
	Tools map[string]*ToolOverride `json:"tools,omitempty"`
	// ConnectTimeout bounds starting or connecting to the server and its
	// first listing.
	ConnectTimeout Duration `json:"connectTimeout,omitempty"`
	// CallTimeout bounds each call of the server's tools (default: the
	// client entry's timeout).
	CallTimeout Duration `json:"callTimeout,omitempty"`
	// OAuth signs the gateway in to a remote (http) server.
	OAuth *OAuth `json:"oauth,omitempty"`
}

// OAuth configures how the gateway gets tokens for a remote server: a
// user signing in through a loopback redirect (the default, with dynamic
// client registration), a pre-registered client, a client ID metadata
// document, or the client-credentials grant for machine-to-machine servers.
type OAuth struct {
	// ClientID is a pre-registered client's id (no dynamic registration
	// then).
	ClientID string `json:"clientId,omitempty"`
	// ClientSecret is the pre-registered client's secret, sent only to the
	// authorization server.
	ClientSecret string `json:"clientSecret,omitempty"`
	// ClientName is the name dynamic client registration registers.
	ClientName string `json:"clientName,omitempty"`
	// ClientMetadataURL is the https URL of a client ID metadata document,
	// used as the client id.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// RedirectURL is the loopback redirect URI the sign-in returns to
	// (default http://127.0.0.1:8976/callback).
	RedirectURL string `json:"redirectUrl,omitempty"`
	// Scopes, if set, are the scopes requested instead of those the server
	// advertises.
	Scopes []string `json:"scopes,omitempty"`
	// NoDynamicRegistration refuses to register a client dynamically.
	NoDynamicRegistration bool `json:"noDynamicRegistration,omitempty"`
	// NoOfflineAccess does not ask for a refresh token (offline_access).
	NoOfflineAccess bool `json:"noOfflineAccess,omitempty"`
	// Issuer pins the authorization server (its issuer URL): the server's
	// metadata must name it, or the gateway stops before sending anything
	// there. Without it, a client secret or client credentials go only to
	// an authorization server on the server's own origin.
	Issuer string `json:"issuer,omitempty"`
	// ClientCredentials switches to the client-credentials grant.
	ClientCredentials *ClientCredentials `json:"clientCredentials,omitempty"`
	// PerCaller reaches the server with each caller's own token (the
	// caller as agentadapter.auth verified it), never another's nor a
	// shared one: a token of the caller's sign-in (agentadapter.signIn
	// sends a caller without one to sign in), kept encrypted in Tokens
	// (serve needs AGENTADAPTER_TOKEN_KEY or AGENTADAPTER_TOKEN_KEY_FILE),
	// or with TokenExchange one exchanged for the caller's inbound token. Tools are listed with the shared
	// identity (a sign-in, or clientCredentials with tokenExchange).
	PerCaller bool `json:"perCaller,omitempty"`
	// TokenExchange exchanges each caller's verified inbound JWT for a
	// token for the server (RFC 8693); needs perCaller and auth.jwt.
	TokenExchange *TokenExchange `json:"tokenExchange,omitempty"`
	// Tokens is the file tokens are kept in (0600); default tokens.json in
	// the user's state directory.
	Tokens string `json:"tokens,omitempty"`
}

// SignIn configures the gateway's per-user sign-in pages.
type SignIn struct {
	// BaseURL is the gateway's public URL as users' browsers reach it
	// (https://gw.example; http only on a loopback address). The callback,
	// BaseURL/oauth/callback, is the redirect URI of every perCaller
	// server without a redirectUrl of its own. It changes only on restart.
	BaseURL string `json:"baseUrl"`
}

// ClientCredentials are a machine client's id and secret.
type ClientCredentials struct {
	// ClientID is the machine client's id.
	ClientID string `json:"clientId"`
	// ClientSecret is the machine client's secret; use ${VAR} to keep it out
	// of the file.
	ClientSecret string `json:"clientSecret"`
	// Scopes are requested with the token.
	Scopes []string `json:"scopes,omitempty"`
}

// TokenExchange configures OAuth 2.0 token exchange (RFC 8693) for a
// perCaller server: the caller's inbound JWT is the subject_token.
type TokenExchange struct {
	// ClientID and ClientSecret authenticate the gateway to the token
	// endpoint; use ${VAR} for the secret.
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// AuthMethod is client_secret_basic (the default) or
	// client_secret_post.
	AuthMethod string `json:"authMethod,omitempty"`
	// TokenURL is the token endpoint; default the one the server's
	// authorization server metadata names.
	TokenURL string `json:"tokenUrl,omitempty"`
	// Resource is the resource asked for; default the server's URL.
	Resource string `json:"resource,omitempty"`
	// Audience, if set, is sent as the audience.
	Audience string `json:"audience,omitempty"`
	// Scopes, if set, are requested.
	Scopes []string `json:"scopes,omitempty"`
	// SubjectTokenType is access_token (the default) or jwt.
	SubjectTokenType string `json:"subjectTokenType,omitempty"`
	// RequestedTokenType is the token type asked for; default
	// urn:ietf:params:oauth:token-type:access_token.
	RequestedTokenType string `json:"requestedTokenType,omitempty"`
	// Skew is how long before its expiry an exchanged token is exchanged
	// anew (default 30s, at most half its lifetime).
	Skew Duration `json:"skew,omitempty"`
}

// ToolOverride replaces parts of an upstream tool's definition.
type ToolOverride struct {
	// Title replaces the tool's title.
	Title *string `json:"title,omitempty"`
	// Description replaces the tool's description (what the model reads).
	Description *string `json:"description,omitempty"`
	// Annotations replace some of the tool's annotations.
	Annotations *Annotations `json:"annotations,omitempty"`
}

// Annotations override MCP tool annotations; unset fields keep theirs.
type Annotations struct {
	// ReadOnly is the readOnlyHint: the tool changes nothing.
	ReadOnly *bool `json:"readOnly,omitempty"`
	// Destructive is the destructiveHint: the tool may destroy data.
	Destructive *bool `json:"destructive,omitempty"`
	// Idempotent is the idempotentHint: calling twice does no more than
	// once.
	Idempotent *bool `json:"idempotent,omitempty"`
	// OpenWorld is the openWorldHint: the tool reaches beyond the gateway
	// (the web, other people).
	OpenWorld *bool `json:"openWorld,omitempty"`
}

// Policy governs calls.
type Policy struct {
	// Approval decides which calls wait for an operator.
	Approval *Approval `json:"approval,omitempty"`
	// Cache maps tool names (as clients see them) to how long a result is
	// reused for the same arguments.
	Cache map[string]Duration `json:"cache,omitempty"`
	// Limits bound how many calls are made.
	Limits *Limits `json:"limits,omitempty"`
	// Timeout bounds every call.
	Timeout Duration `json:"timeout,omitempty"`
}

// Approval decides which calls wait for an operator.
type Approval struct {
	// Default applies when no rule matches: "annotations" (destructive or
	// open-world tools; the default), "always" or "never".
	Default string `json:"default,omitempty"`
	// Rules are tried in order; the first that matches decides.
	Rules []Rule `json:"rules,omitempty"`
	// Standing are glob patterns on tool names for which operators may take
	// standing decisions on the console ("always approve" or "always deny"
	// this tool for this requester); none by default. Only the top-level
	// policy may set it: a standing decision applies at every endpoint.
	// Decisions are kept in the ledger and outlive restarts; taking a tool
	// off this list suspends its decisions at once, and a restart then
	// drops them.
	Standing []string `json:"standing,omitempty"`
}

// Rule matches calls; every condition set must hold.
type Rule struct {
	// Tool and Server are glob patterns (path.Match) on the tool's name as
	// clients see it and on its server's name.
	Tool   string `json:"tool,omitempty"`
	Server string `json:"server,omitempty"`
	// Annotation is "readOnly", "destructive", "idempotent" or "openWorld":
	// the tool must have it (after overrides and trust).
	Annotation string `json:"annotation,omitempty"`
	// Args maps top-level argument names to glob patterns their values
	// (as text) must match.
	Args map[string]string `json:"args,omitempty"`
	// Approve is "required" or "none".
	Approve string `json:"approve"`
}

// Limits bound calls in sliding windows.
type Limits struct {
	// PerIdentity bounds the calls of each caller (bearer subject, or
	// "anonymous").
	PerIdentity *Rate `json:"perIdentity,omitempty"`
	// Tools bound the calls of each tool, across callers.
	Tools map[string]*Rate `json:"tools,omitempty"`
}

// Rate is at most Calls calls per Window.
type Rate struct {
	// Calls is the most calls in a window (> 0).
	Calls int `json:"calls"`
	// Window is the sliding window ("1m").
	Window Duration `json:"window"`
}

// Sessions caps the live MCP sessions of the gateway, counted across
// /mcp and every virtual server; a zero field means its default, a
// negative one no cap.
type Sessions struct {
	// Max caps the sessions in all (503 with Retry-After past it); default
	// 1000.
	Max int `json:"max,omitempty"`
	// PerIdentity caps one client's sessions (429 with Retry-After past
	// it): a bearer token's subject, or without auth the client's address.
	// Behind a reverse proxy every client has the proxy's address and so
	// shares this cap, unless trustedProxies names the proxy. Default 100.
	PerIdentity int `json:"perIdentity,omitempty"`
}

// Virtual is one more endpoint with its own tool selection and policy.
type Virtual struct {
	// Tools are glob patterns on the names of tools and prompts; empty
	// means every tool and prompt of Servers (or every one). Resources are
	// selected by Servers alone.
	Tools []string `json:"tools,omitempty"`
	// Servers restricts the selection to these servers' tools, prompts and
	// resources.
	Servers []string `json:"servers,omitempty"`
	// Policy, if set, replaces the top-level policy for this endpoint.
	Policy *Policy `json:"policy,omitempty"`
	// Approver, if set, replaces the top-level approver for this
	// endpoint: "operator" or "client" (see Section.Approver).
	Approver string `json:"approver,omitempty"`
	// LegacySSE serves this endpoint over the HTTP+SSE transport of
	// protocol 2024-11-05 too, at /sse/<name> and /message/<name> (see
	// the top-level legacySSE, which turns it on for every endpoint).
	LegacySSE bool `json:"legacySSE,omitempty"`
	// Search serves the endpoint's tools through two meta-tools in place
	// of the full list: its clients list search_tools ({"query": string,
	// "limit": integer}, which answers with the best matches' names,
	// descriptions and input schemas) and call_tool ({"name": string,
	// "arguments": object}, which runs the named tool under this endpoint's
	// policy, approval, limits and ledger as a direct call of it), plus
	// the alwaysLoaded tools. What search finds and call_tool runs is what
	// the endpoint selects (tools, servers), less the quarantined tools.
	Search bool `json:"search,omitempty"`
	// AlwaysLoaded are glob patterns on tool names, with search: the tools
	// of the endpoint's selection they match are listed beside
	// search_tools and call_tool, and called directly. A pattern selects
	// nothing outside the endpoint's own selection. Without search it is
	// an error.
	AlwaysLoaded []string `json:"alwaysLoaded,omitempty"`
}

// Duration reads "30s", "2m" or a number of seconds.
type Duration time.Duration

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if n, err := strconv.ParseFloat(s, 64); err == nil {
			*d = Duration(n * float64(time.Second))
			return nil
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("not a duration: %q (write \"30s\", \"2m\")", s)
		}
		*d = Duration(v)
		return nil
	}
	var n float64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("not a duration: %s", b)
	}
	*d = Duration(n * float64(time.Second))
	return nil
}

// MarshalJSON implements json.Marshaler.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}
