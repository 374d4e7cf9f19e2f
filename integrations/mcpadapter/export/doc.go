// Package export serves a registry as an MCP server, on the official
// go-sdk: every spec whose targets include "mcp" is a tool, every call
// goes through an executor.
//
//	reg := registry.New()
//	exec := adapter.NewExecutor(reg, nil)
//	srv, err := export.NewServer(reg, exec, nil)
//	if err != nil {
//		return err
//	}
//	defer srv.Close()
//	err = srv.ListenAndServe(ctx, "127.0.0.1:8931", nil) // or srv.Serve(ctx, &mcp.StdioTransport{})
//
// With [Upstreams] it serves, beside the registry's tools, the resources
// and prompts of the MCP servers a mcpadapter.Manager imports (a
// gateway); with [Options.Tasks], the tasks extension. Package
// mcpadapter aliases these names (mcpadapter.NewExporter is NewServer,
// mcpadapter.ExportOptions is Options) for code written against v0.1.
//
// # Serving a registry
//
// [NewServer] serves every spec whose targets include "mcp" as an MCP tool
// and sends every call through an executor (Integration "mcp"). It follows
// the registry: register, replace and unregister emit
// notifications/tools/list_changed. Serve over stdio with [Server.Serve],
// over streamable HTTP (stateful or stateless) with [Server.Handler] or
// [Server.ListenAndServe], legacy SSE with [Server.SSEHandler].
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
// between the handlers of several servers.
//
// # Approval over MCP
//
// With Options.Approver nil, a call the executor holds answers an
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
// is signed (HMAC-SHA256, Options.RequestStateKey) and binds the
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
//
// # Relaying upstream questions
//
// When an imported tool (mcpadapter) is called through the export (or
// `agentadapter serve`), its server is told the MCP caller's capabilities
// and its questions go to that caller: an [InputRequired] from 2026-07-28 on
// (the retry brings the answers and the server's requestState back, inside
// the export's signed state), requests during the call before it. The
// import's own Sampler, Elicitation and Roots answer only calls without an
// MCP caller (a framework, `agentadapter call`). A prompts/get through the
// export's [Upstreams] is relayed the same way, its state bound to the
// prompt's name and arguments and signed apart from a tool call's (neither
// opens as the other); mcpadapter's Manager.GetPrompt keeps the import's own
// ports. A
// call asks at most 8 rounds of at most 16 questions; a server asking more,
// or more than 256 KiB at once, ends it with a tool error. A relayed
// question is the server's as sent, but a sampling request's includeContext
// "thisServer" or "allServers" is "none" (to the caller the export is one
// server, every upstream: their context would go to this one), and a
// question id with the export's own prefix "agentadapter/" (any case)
// reaches the caller as "agentadapter/relayed/" and that id, never taken for
// one of the export's own: the answer under it goes back under the
// upstream's id, so a gateway fronting another export relays its approvals
// (one prefix per hop).
package export
