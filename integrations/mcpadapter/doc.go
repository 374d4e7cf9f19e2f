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
//	exp, err := export.NewServer(reg, exec, nil) // package export
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
// nor idempotent), so the default approval policy holds its calls, no cache
// serves its results and a lost call is not retried, whatever it declares.
// Spec.Source says which applies (Trusted) and keeps the declaration
// (Hints). A trusted server's annotations are policy.
//
// # Errors
//
// A result with isError is a tool_error carrying the server's text in
// adapter.Error.Message and its content blocks in adapter.Error.Content; a
// tool the server does not know is not_found; a transport failure is
// connection (a Go error, never shown to a model), told apart by cause: a
// call that never reached the server, one whose connection broke while it
// was out (it may have run), one the transport refused; the call deadline is
// timeout; a result over ManagerOptions.MaxResultBytes (counting every
// content block's encoded size) is a tool_error. Over HTTP the limit is
// enforced while the response is read, before it is decoded, so a huge
// result costs at most about twice the limit in memory; a quarantined tool
// is guardrail_blocked, wrapping [ErrQuarantined]. Structured content is
// validated against the tool's output schema by the executor. Every
// forwarded call gets a deadline (Server.CallTimeout, default 60 s): a
// stalled server can never hang a caller.
//
// # Keeping the registry true
//
// notifications/tools/list_changed, Server.RefreshInterval and
// [Manager.Refresh] re-list a server's tools and apply additions, removals
// and changes atomically with registry.Update, so registry listeners (and an
// [Exporter] serving the same registry) follow.
//
// # Definition pinning
//
// Each imported tool's definition (name, title, description, schemas,
// annotations, icons, _meta) is hashed at import. When a server later
// changes a definition, the tool is quarantined: the old spec stays, its
// calls are refused, until the change is accepted with [Manager.Accept],
// which takes the hash of the definition the operator reviewed
// ([Quarantine.Got]) and fails if the server changed it since. A tool an
// untrusted server adds after its first listing is quarantined too, and
// reaches the registry only once accepted (ManagerOptions.QuarantineNew).
// This is the defence against tool-poisoning and rug-pull changes. Persist
// [Manager.Pins] and pass them back as ManagerOptions.Pins to catch changes
// between runs.
//
// A stdio server's launch is pinned the same way by a program that wants it
// ([NewLaunch], [Launch.Hash] under [LaunchKey] in the [PinStore]; the
// agentadapter gateway does): [Upstream.BeforeStart] refuses a start whose
// launch no operator accepted, on every reconnection too.
//
// # Reconnecting
//
// A lost session (a stdio process that died, an HTTP session gone) is
// redialled with backoff before the next call is sent
// (DefaultReconnectAttempts dials: a server back within 1.5 s is found). A
// call that never reached the server (a refused dial, an unknown session) is
// sent again on the new session, whatever the tool; a call whose connection
// broke while it was out is sent again once only when its trusted
// annotations say read-only or idempotent, and otherwise returns a
// connection error saying it may have run. A server given as a ready
// Transport connects once; give Command, URL or NewTransport to be able to
// reconnect.
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
// keeping tokens in a [TokenStore] keyed by server, caller, issuer and
// resource (OAuth.PerCaller: each caller's own token, see package oauth).
// ClientCredentials selects the client-credentials grant instead, Enterprise
// enterprise-managed authorization (cross-app access). Tokens go only to the
// server they were issued for and appear in no log, error or ledger record.
//
// One outbound policy decides what every request may carry where: a server's
// Headers and BearerToken go only to its URL's origin (a redirect elsewhere
// is followed without them; https to http is refused), and client
// credentials only to the authorization server OAuth.Issuer pins, else one
// on the resource's origin. A refusal wraps [ErrOutbound].
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
// A server of 2026-07-28 asks with input-required results instead; when
// an imported tool is called through the export, its questions are relayed
// to the MCP caller (see package export, "Relaying upstream questions").
//
// # Serving a registry
//
// Package [github.com/agentadapter/agentadapter/integrations/mcpadapter/export]
// serves a registry as an MCP server: tools, both protocol eras, tasks,
// approvals over MCP and, through export.Upstreams, the resources and
// prompts of a [Manager]'s servers; its names are aliased here
// ([NewExporter], [ExportOptions], ...) for code written against v0.1.
package mcpadapter
