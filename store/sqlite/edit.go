package sqlitestore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentadapter/agentadapter/adapter/approval"
)

var _ approval.Editor = (*Tickets)(nil)

// ApproveEdited implements [approval.Editor]: one UPDATE moves a
// pending, unexpired ticket to approved with the edited arguments, so of
// two approvers on any processes exactly one succeeds.
func (s *Tickets) ApproveEdited(ctx context.Context, id string, args json.RawMessage, approver string, now time.Time) error {
	res, err := s.s.db.ExecContext(ctx, `UPDATE tickets SET state = ?, approver = ?, edited = ?, updated = ?
		WHERE id = ? AND state = ? AND (expires = 0 OR expires >= ?)`,
		int(approval.TicketApproved), approver, []byte(args), s.s.now().UnixNano(), id, int(approval.TicketPending), now.UnixNano())
	if err != nil {
		return fmt.Errorf("sqlitestore: %w", err)
	}
	return s.updated(ctx, res, id, approval.TicketPending)
}
