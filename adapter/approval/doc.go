// Package approval holds calls for a decision before they run: the port an
// executor asks ([Port]), the ticket store a deferred port keeps its
// tickets in ([Store]), and the ports themselves ([Func], [Deferred],
// [Standing]). It knows nothing of the executor: a [Request] carries the
// call in plain fields, and the executor (package adapter) decides which
// calls need approval and maps a [Decision] to a result or an error.
//
// A [Deferred] port on an executor holds destructive calls until an
// operator approves their ticket:
//
//	d := &approval.Deferred{}
//	e := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
//		Approval: adapter.ApprovalOptions{Port: d},
//	})
//	_, err := e.Call(ctx, "delete", args) // approval_pending, with a ticket
//	var ae *adapter.Error
//	if errors.As(err, &ae) && ae.Kind == adapter.KindApprovalPending {
//		_ = d.Approve(ctx, ae.Ticket, "alice")
//	}
//	res, err := e.Call(ctx, "delete", args) // the same call runs, once
//
// # Tickets
//
// A [Deferred] port answers a call that needs approval with
// [VerdictPending] and a [Ticket] bound to the tool, the canonical hash of
// the arguments and the caller's scope; the executor fails the call with
// its approval_pending kind, naming the ticket. The ticket is approved or
// denied later from any goroutine ([Deferred.Approve], [Deferred.Deny],
// [Deferred.ApproveEdited]) and used once: the call retried with the same
// arguments (key order and white space do not matter) from the same scope
// runs. Open tickets are capped per caller and in all ([Caps]), and expire
// ([DefaultTicketTTL]). A [Store] keeps them: [MemoryStore] in memory, the
// store module's sqlite and postgres packages on disk; the adaptertest
// package checks an implementation. The integrations map a pending call
// onto their framework's own pause (an eino interrupt, a genkit interrupt,
// an MCP elicitation).
//
// # Scopes
//
// A [Scope] says who an approval is good for beyond the tool and the
// arguments: by default the verified subject ([ScopeSubject]), so one
// caller's approval never runs another caller's call; or the run
// ([ScopeRun]), the session ([ScopeSession], where the caps count per
// session too, see [SessionSubject]), or every caller ([ScopeGlobal]). The
// executor puts the scope and the call's id under it in
// [Request.Scope] and [Request.ScopeID]; a ticket serves only a call with
// the same four ([TicketKey]).
//
// # Standing decisions
//
// A [Standing] port answers from decisions an approver took once for one
// tool and one caller — always approve, always deny ([StandingRule]) — and
// asks its Port about every other call. [Standing.Allowed] decides which
// tools may have standing decisions at all. With a [StandingStore] in
// [Standing.Store] the decisions outlive the process and reach other
// replicas, which pick them up with [Standing.Sync]; without one they live
// in memory only.
package approval
