package pgstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentadapter/agentadapter/adapter/approval"
)

var _ approval.Editor = (*Tickets)(nil)

// ApproveEdited implements [approval.Editor]: one UPDATE moves a
// pending, unexpired ticket to approved with the edited arguments, so of
// two approvers on any replicas exactly one succeeds; the decision is
// announced like any other.
func (s *Tickets) ApproveEdited(ctx context.Context, id string, args json.RawMessage, approver string, now time.Time) error {
	return s.update(ctx, id, approval.TicketPending, now, "state = $4, approver = $5, edited = $6",
		int32(approval.TicketApproved), approver, []byte(args))
}
