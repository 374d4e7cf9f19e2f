// Package console is the operator's web page for a governed tool executor:
// pending approvals (live), the ledger, MCP servers and quarantined tools.
// It is an http.Handler any program using the library can mount, and the
// one `agentadapter serve` mounts.
//
//	d := &adapter.Deferred{}
//	ledger := adapter.NewMemoryLedger(0)
//	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
//		Approval: adapter.ApprovalOptions{Port: d},
//		Ledger:   ledger,
//	})
//	c, err := console.New(&console.Options{
//		Approvals:    d,
//		Tools:        reg,
//		Ledger:       ledger,
//		LedgerReader: ledger,
//		Servers:      manager, // an *mcpadapter.Manager, or nil
//		Auth:         &export.AuthOptions{Verifier: verify},
//		Revalidate:   stillAnOperator, // ends sessions whose token was revoked
//	})
//	if err != nil { ... }
//	defer c.Close()
//	d.OnPending = func(*adapter.Ticket) { c.Notify() }
//	mux.Handle("/console/", http.StripPrefix("/console", c))
//
// # Pages
//
// Approvals lists the pending tickets newest first and updates itself over
// server-sent events: the tool, its server, the requester (subject, run,
// call), the arguments pretty-printed with secrets masked, the tool's
// description, annotations and input schema, how long the call has waited
// and when its ticket expires. An operator approves, denies with a reason
// the model reads, or edits the arguments in a form generated from the
// input schema; the edit is validated on the server before the ticket is
// approved, errors shown beside their fields, and the executor validates
// it once more before the handler runs. Of two operators deciding one
// ticket at once, exactly one wins; the other is told who decided.
//
// Ledger filters records by run, tool, subject, outcome, ticket and time;
// following a ticket shows its chain (the call held, the decision, the call
// that ran with the exact arguments, its duration, outcome and result
// size); Export JSONL downloads the selection.
//
// With [Options.Standing], a ticket whose tool the policy allows also
// offers "always approve" and "always deny" for its requester; the page
// lists the standing decisions in force, each with a Revoke button. Every
// standing decision taken or revoked is a ledger record
// ([OutcomeStanding]): a program replays them to restore the decisions
// after a restart, as `agentadapter serve` does.
//
// Servers shows each MCP server's health, transport, tool count,
// reconnects, last error and trust level. Quarantine shows each tool whose
// definition changed after it was pinned, as a line diff of title,
// description, schemas and annotations, to accept or keep blocked. Both
// decisions are ledger records naming the server and the definition hash;
// a definition kept blocked shows who kept it and when, read back from the
// ledger (so a durable ledger keeps it across restarts) and only for that
// very definition: a further change is a new review.
//
// # Security
//
// Operators authenticate as clients of the gateway do ([Options.Auth], a
// go-sdk token verifier): with an "Authorization: Bearer" header, or once
// through the login form, which opens an HttpOnly, SameSite=Strict cookie
// session. A session is bound to the operator and the SHA-256 of the token
// it was opened with ([Credential]); every request asks
// [Options.Revalidate] (required with Auth) whether that pair is still an
// operator's, so removing an operator or rotating its token ends its
// sessions on the next request, and the session is deleted from the store
// for every console sharing it. Wrong tokens are throttled per client
// address ([Options.SignInFailures]: 429 with Retry-After, the wait
// doubling up to [MaxSignInDelay]); [Options.TrustedProxies] says whose
// X-Forwarded-For and X-Forwarded-Proto to believe (the latter makes the
// cookie Secure, as TLS does). Without Auth, the console refuses every
// request unless [Options.AllowAnonymousLocal] is set, and then serves
// connections to and from loopback that name a loopback Host only (a
// DNS-rebinding page names its own). Login sessions live in [Options.Sessions]: by default
// this process's memory, so a restart signs operators out and a replica
// knows only its own sessions; [KVSessions] over a store's sessions table
// (as `agentadapter serve` does with a SQLite or PostgreSQL store) makes
// them outlive restarts and reach every replica, sign-outs included, and
// a session the table cannot keep fails the sign-in. The deprecated
// [CacheSessions] kept them in the result cache, where clearing cached
// results signed operators out; [UpgradeSessions] still reads the
// sessions it left for one release, after which operators it had signed
// in sign in once more. The
// store is keyed by a hash of the cookie, never the cookie itself. Every
// form carries a per-session CSRF token, and
// cross-origin requests are refused (http.CrossOriginProtection). Pages are
// served with a strict Content-Security-Policy: the only script is the
// console's own file, nothing inline. Tokens never travel in URLs. Every
// [Options.Users] signs the program's own users in too (after the
// operators' Auth, with the same throttle), to the Connections page only:
// every other page sends them there and every other action is refused
// with 403. Every
// decision (approve, edit, deny, accept or keep a pin) is written to
// [Options.Ledger] with the operator as Approver, and New refuses a
// configuration without one.
package console
