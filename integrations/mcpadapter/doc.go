// Package mcpadapter connects agentadapter to the Model Context Protocol in
// both directions, on the official go-sdk: it imports the tools of MCP
// servers into a registry, and serves a registry as an MCP server.
//
//	reg := registry.New()
//	m := mcpadapter.NewManager(reg, nil)
//	defer m.Close()
//	err := m.Connect(ctx,
//		mcpadapter.Server{Name: "everything", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything", "stdio"}},
//		mcpadapter.Server{Name: "docs", URL: "http://127.0.0.1:9000/mcp", Prefix: true},
//	)
//	exec := adapter.NewExecutor(reg, nil)
//	res, err := exec.Call(ctx, "echo", json.RawMessage(`{"message":"hi"}`))
//
//	exp, err := mcpadapter.NewExporter(reg, exec, nil)
//	err = exp.ListenAndServe(ctx, "127.0.0.1:8931", nil) // or exp.Serve(ctx, &mcp.StdioTransport{})
//
// # Importing tools
//
// [NewManager] then [Manager.Connect] imports the tools of one or more
// servers (stdio child processes, streamable HTTP, legacy SSE, or any go-sdk
// transport), connecting in parallel, each under its own timeout. A server
// that fails is dropped and reported ([Manager.Servers]); with
// ManagerOptions.Strict the first failure fails the call and rolls back.
// Imported tools are ordinary specs: the name, title, description, input
// schema as is ($defs and $ref included), output schema, annotations and
// _meta of the server's definition, and a handler that forwards the call.
// Call them through an [adapter.Executor] like any other tool. Listing is
// paginated with a cap on pages (a repeated cursor is an error), and
// per-server allow and deny lists or a function filter what is imported.
// [Manager.Close] closes every session and reaps every child process.
//
// # Naming
//
// A tool keeps its remote name. Characters outside [A-Za-z0-9_-] (MCP also
// allows '.') become '_', and names over 64 characters are cut and given an
// 8-hex hash suffix. Server.Prefix names tools "<server>_<tool>". The
// original name, kept in Spec.Source.RemoteName, is always the one sent on
// the wire. A name that would collide with another registered tool is an
// error wrapping [ErrCollision] that names both sources; nothing is
// overwritten. Servers of one Connect call are imported in the order given,
// so between two servers offering the same name the first always wins; the
// other's tool is listed in [UpstreamStatus.Skipped].
//
// # Trust
//
// MCP tool annotations come from whoever runs the server. Unless
// Server.Trust is set, they are hints: an imported tool gets the most
// cautious Spec.Annotations (destructive and open-world, neither read-only
// nor idempotent), so the default approval policy holds its calls, no
// cache serves its results and a lost call is not retried, whatever it
// declares. Spec.Source says which applies (Trusted) and keeps the
// declaration (Hints). A trusted server's annotations are policy.
//
// # Errors
//
// A result with isError is a tool_error carrying the server's text in
// adapter.Error.Message and its content blocks in adapter.Error.Content; a
// tool the server does not know is not_found; a transport failure is
// connection (a Go error, never shown to a model), told apart by cause: a
// call that never reached the server, one whose connection broke while it
// was out (it may have run), one the transport refused; the call deadline
// is timeout; a result over ManagerOptions.MaxResultBytes (counting every
// content block's encoded size) is a tool_error. Over HTTP the limit is
// enforced while the response is read, before it is decoded, so a huge
// result costs at most about twice the limit in memory; a
// quarantined tool is guardrail_blocked, wrapping [ErrQuarantined].
// Structured content is validated against the tool's output schema by the
// executor. Every forwarded call gets a deadline (Server.CallTimeout,
// default 60 s): a stalled server can never hang a caller.
//
// # Keeping the registry true
//
// notifications/tools/list_changed, Server.RefreshInterval and
// [Manager.Refresh] re-list a server's tools and apply additions, removals
// and changes atomically with registry.Update, so registry listeners (and
// an [Exporter] serving the same registry) follow.
//
// # Definition pinning
//
// Each imported tool's definition (name, title, description, schemas,
// annotations, icons, _meta) is hashed at import. When a server later
// changes a definition, the tool is quarantined: the old spec stays, its
// calls are refused, until the change is accepted with [Manager.Accept],
// which takes the hash of the definition the operator reviewed
// ([Quarantine.Got]) and fails if the server changed it since. A tool an untrusted server adds after its first listing is quarantined
// too, and reaches the registry only once accepted
// (ManagerOptions.QuarantineNew). This is the defence against
// tool-poisoning and rug-pull changes. Persist
// [Manager.Pins] and pass them back as ManagerOptions.Pins to catch changes
// between runs.
//
// A stdio server's launch is pinned the same way by a program that wants
// it ([NewLaunch], [Launch.Hash] under [LaunchKey] in the [PinStore]; the
// agentadapter gateway does): [Upstream.BeforeStart] refuses a start whose
// launch no operator accepted, on every reconnection too.
//
// # Reconnecting
//
// A lost session (a stdio process that died, an HTTP session gone) is
// redialled with backoff before the next call is sent (DefaultReconnectAttempts
// dials: a server back within 1.5 s is found). A call that never reached the
// server (a refused dial, an unknown session) is sent again on the new
// session, whatever the tool; a call whose connection broke while it was out
// is sent again once only when its trusted annotations say read-only or
// idempotent, and otherwise returns a connection error saying it may have
// run. A server
// given as a ready Transport connects once; give Command, URL or
// NewTransport to be able to reconnect.
//
// # Per call
//
// ManagerOptions.Meta adds _meta to each call (a tenant, a request id), and
// the W3C traceparent of the span on ctx is added. Server progress
// notifications reach the listener set with [adapter.WithProgress];
// cancelling ctx cancels the remote call. Resources and prompts of imported
// servers are reachable through [Manager.Resources], [Manager.ReadResource],
// [Manager.Prompts] and [Manager.GetPrompt].
//
// # Servers that need a sign-in
//
// Server.OAuth authorizes a streamable HTTP server with OAuth bearer tokens,
// on go-sdk's auth and oauthex packages: the manager discovers the
// authorization server, registers or identifies the client, sends the user
// through an [AuthorizationHandler] ([Loopback] for a terminal), exchanges
// the code with PKCE, steps up on 403 insufficient_scope and refreshes,
// keeping tokens in a [TokenStore] keyed by server name and URL.
// ClientCredentials selects the client-credentials grant instead, Enterprise
// enterprise-managed authorization (cross-app access). Tokens go
// only to the server they were issued for and appear in no log, error or
// ledger record.
//
// One outbound policy decides what every request may carry where: a
// server's Headers and BearerToken go only to its URL's origin (a redirect
// elsewhere is followed without them; https to http is refused), and
// client credentials only to the authorization server OAuth.Issuer pins,
// else one on the resource's origin. A refusal wraps [ErrOutbound].
//
// # Requests from servers
//
// Servers may ask the client for a model completion (sampling), for input
// from a person (elicitation) and for its roots. ManagerOptions.Sampler (a
// [Sampler]; einoadapter, genkitadapter and langchaingoadapter each make one
// from their framework's model), ManagerOptions.Elicitation (an
// [ElicitationPort]; [PromptElicitation] for a terminal) and
// ManagerOptions.Roots declare and answer them. Sampling and elicitation
// requests run through ManagerOptions.Executor as calls of [SamplingTool]
// and [ElicitationTool]: an approval rule, a guard or a limit applies to
// them as to any call, and the ledger records each.
//
// A server of 2026-07-28 asks with input-required results instead. When
// an imported tool is called through the export (or `agentadapter serve`),
// its server is told the MCP caller's capabilities and its questions go to
// that caller: an [InputRequired] from 2026-07-28 on (the retry brings the
// answers and the server's requestState back, inside the export's signed
// state), requests during the call before it. The import's own Sampler,
// Elicitation and Roots answer only calls without an MCP caller (a
// framework, `agentadapter call`). A prompts/get through the export's
// [Upstreams] is relayed the same way, its state bound to the prompt's name
// and arguments and signed apart from a tool call's (neither opens as the
// other); [Manager.GetPrompt] keeps the import's own ports. A call asks at
// most 8 rounds of at most 16 questions; a server asking more, or more
// than 256 KiB at once, ends it with a tool error. A relayed question is
// the server's as sent, but a sampling request's includeContext
// "thisServer" or "allServers" is "none" (to the caller the export is one
// server, every upstream: their context would go to this one), and a
// question id with the export's own prefix "agentadapter/" (any case)
// reaches the caller as "agentadapter/relayed/" and that id, never taken
// for one of the export's own: the answer under it goes back under the
// upstream's id, so a gateway fronting another export relays its
// approvals (one prefix per hop).
//
// # Serving a registry
//
// [NewExporter] serves every spec whose targets include "mcp" as an MCP tool
// and sends every call through an executor (Integration "mcp"). It follows
// the registry: register, replace and unregister emit
// notifications/tools/list_changed. Serve over stdio with [Exporter.Serve],
// over streamable HTTP (stateful or stateless) with [Exporter.Handler] or
// [Exporter.ListenAndServe], legacy SSE with [Exporter.SSEHandler].
//
// Results: Content becomes content, every block as it is (MCP carries them
// all; the client decides what its model reads), and Structured becomes
// structuredContent. A structured result of ours with no content gets one
// text block, adapter.Render's text of it (its JSON), as MCP recommends; an
// imported tool's result is relayed as the upstream sent it (content: []
// stays empty), without the upstream's _meta[MetaKeyServerInfo]. Model-facing errors become isError results whose text
// is adapter.ModelPayload and whose _meta["agentadapter/error"] holds the
// kind and ticket, but for an imported tool's isError result, relayed with
// the upstream's content blocks as sent (its kind, tool_error, in _meta);
// connection and internal faults become JSON-RPC errors.
// Progress reported with adapter.ReportProgress goes out as
// notifications/progress when the client sent a token; a client's
// notifications/cancelled cancels the call's ctx.
//
// # Security
//
// On by default: [Listen] binds 127.0.0.1 unless the address names a host;
// DNS-rebinding protection (403); cross-origin browser requests refused
// (403, see HTTPOptions.TrustedOrigins); a 4 MiB request-body limit (413);
// idle sessions closed after 30 minutes; at most 1000 live sessions (503
// with Retry-After past it) and 100 per client (the bearer subject, else the
// IP address; 429 with Retry-After); read, write and idle timeouts on the
// server ListenAndServe runs. HTTPOptions.Auth requires a bearer
// token (401 with WWW-Authenticate). The verified subject and scopes become
// adapter.Call.Identity, visible to hooks and approval policies. Inbound
// tokens and cookies are stripped from what tools see and are never
// forwarded to an upstream server. Without Auth, each session is its own
// anonymous caller (Identity.Anonymous, subject "anonymous:<session id>"):
// ticket caps, tickets, cached results and per-subject limits count per
// session, so that one anonymous client can neither fill another's cap nor
// use its approvals. Session caps count per address then, which behind a
// reverse proxy is the proxy's; HTTPOptions.Sessions shares the caps
// between the handlers of several exporters.
//
// # Approval over MCP
//
// With ExportOptions.Approver nil, a call the executor holds answers an
// isError approval_pending result naming its ticket, to be decided out of
// band. With an Approver (such as the executor's *adapter.Deferred), a
// client that declares elicitation is asked:
//   - protocol 2024-11-05 to 2025-11-25 (stdio, stateful HTTP):
//     elicitation/create, during the call;
//   - protocol 2026-07-28 (the stateless HTTP endpoint, go-sdk's in-memory
//     default): an input_required result (InputRequests and a
//     requestState); the client retries with InputResponses and the state;
//   - stateless HTTP before 2026-07-28, or clients without form elicitation:
//     the ticket result.
//
// The client's user decides then, not an operator: accepting approves the
// ticket in the name "client:" and the caller's subject (ClientApprover).
// Only the requestState minted with the question decides its ticket. It
// is signed (HMAC-SHA256, ExportOptions.RequestStateKey) and binds the
// question to the caller's subject, its session where the session outlives
// a request, the tool, the arguments' canonical hash, the ticket and an
// expiry (10 minutes); an answer without it is ignored, and a tampered,
// expired or foreign state, or an answer for a ticket decided already,
// is refused with invalid params (-32602), deciding nothing. An anonymous
// caller on the stateless endpoint is a new session at each request: the
// state itself is its binding, and the retry continues as the caller it
// was minted for. A session has at most 32 unanswered questions (past them
// its calls answer with their ticket); on the stateless endpoint the 32
// are the caller's, its subject's or else its client address's, and
// expire with their call or after 10 minutes.
//
// Without an Approver, an anonymous caller on the stateless endpoint
// (2026-07-28) could not retry its way to an operator's approval: its
// retry is another caller, held under a new ticket. If it declares form
// elicitation it is asked to wait instead: an input request
// "agentadapter/wait/<ticket>" with an empty form and a requestState that
// binds the ticket and the caller as above but decides nothing. Its answer
// retries the call as that caller with that ticket: approved, it runs
// (once); denied, approval_denied; still pending, it is asked again, at
// most 8 rounds, then the pending payload; declined, the pending payload
// and no run. Without elicitation its pending message says why a retry
// cannot succeed (use a token, a client with elicitation, or a client
// Approver).
//
// A tool of its own can ask the client (elicitation, sampling, roots) by
// returning an [*InputRequired]; its State travels in the same signed
// requestState. When the call asking ran under the user's approval, the
// answer continues it: it is not asked approval again. The state names the
// ticket, is single-use and continues at most 8 rounds, and the continued
// call is approved only while the ticket (consumed, unexpired) binds the
// same tool, arguments and scope; this needs an Approver that reads
// tickets back, as *adapter.Deferred does.
package mcpadapter
