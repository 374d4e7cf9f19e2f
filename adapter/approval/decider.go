package approval

import "context"

// A Decider decides approval tickets on an operator's behalf: Approve lets
// the held call run when it is retried, Deny refuses it with reason.
// approver names who decided. [*Deferred] is one.
type Decider interface {
	Approve(ctx context.Context, ticket, approver string) error
	Deny(ctx context.Context, ticket, reason, approver string) error
}

var _ Decider = (*Deferred)(nil)
