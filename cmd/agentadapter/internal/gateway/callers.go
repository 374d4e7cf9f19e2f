package gateway

import (
	"context"
	"net/http"
	"time"

	"github.com/agentadapter/agentadapter/console"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
)

// Approvers of an endpoint (config "approver").
const (
	// approverOperator holds a call for an operator: the client gets its
	// ticket. The default.
	approverOperator = "operator"
	// approverClient asks the client's own user through elicitation.
	approverClient = "client"
)

// clientSource is the Source and Integration of the ledger record of a
// decision the client's user took (the console's are "console", the
// CLI's "cli").
const clientSource = "client"

// approverOf is who decides the held calls of the endpoint a virtual
// server v makes (nil: /mcp): its own approver, else the top-level one,
// else an operator.
func approverOf(sec *config.Section, v *config.Virtual) string {
	if v != nil && v.Approver != "" {
		return v.Approver
	}
	if sec != nil && sec.Approver != "" {
		return sec.Approver
	}
	return approverOperator
}

// clientApprover decides tickets with the answers of clients' users (see
// export.Options.Approver) and records every decision in the
// ledger, as the console and the CLI record theirs: the client's user
// decided, not an operator.
type clientApprover struct{ g *Gateway }

func (a clientApprover) Approve(ctx context.Context, ticket, approver string) error {
	if err := a.g.appr.Approve(ctx, ticket, approver); err != nil {
		return err
	}
	a.record(ctx, ticket, "approved", "", approver)
	return nil
}

func (a clientApprover) Deny(ctx context.Context, ticket, reason, approver string) error {
	if err := a.g.appr.Deny(ctx, ticket, reason, approver); err != nil {
		return err
	}
	a.record(ctx, ticket, "denied", reason, approver)
	return nil
}

// record writes the decision on ticket id. The decision is taken: a ledger
// failure is logged, not undone.
func (a clientApprover) record(ctx context.Context, id, approval, reason, approver string) {
	ctx = context.WithoutCancel(ctx)
	r := &ledger.Record{Time: time.Now(), Source: clientSource, Integration: clientSource,
		Outcome: console.OutcomeDecision, Message: reason, Approval: approval, Approver: approver, Ticket: id}
	if t, err := a.g.appr.Ticket(ctx, id); err == nil {
		r.CallID, r.RunID, r.Tool, r.Subject = t.CallID, t.RunID, t.Tool, t.Subject
	}
	if err := a.g.ledger.Write(ctx, r); err != nil {
		a.g.log.Error("recording a client's decision in the ledger failed", "ticket", id, "approver", approver, "err", err)
	}
}

// sessionLimits reads the session caps of cfg ("sessions"; zero fields
// are mcpadapter's defaults).
func sessionLimits(cfg *config.Config) (maxSessions, perIdentity int) {
	if s := cfg.Gateway.Sessions; s != nil {
		return s.Max, s.PerIdentity
	}
	return 0, 0
}

// applySessionCaps puts the session caps of cfg in force: one limiter
// counts the sessions of every endpoint, so that one client holds at most
// its cap across /mcp and every virtual server, not that many at each.
func (g *Gateway) applySessionCaps(cfg *config.Config) {
	maxSessions, perIdentity := sessionLimits(cfg)
	if g.sessionCaps == nil {
		g.sessionCaps = export.NewSessionLimiter(maxSessions, perIdentity)
		return
	}
	g.sessionCaps.SetLimits(maxSessions, perIdentity)
}

// handler serves the endpoint over streamable HTTP with base, its
// sessions counted by the gateway's one session limiter.
func (ep *endpoint) handler(g *Gateway, base *export.HTTPOptions) http.Handler {
	o := *base
	o.Sessions = g.sessionCaps
	return ep.exp.Handler(&o)
}
