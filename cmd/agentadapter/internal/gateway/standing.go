package gateway

import (
	"context"
	"path"
	"time"

	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/console"
)

// standingAllowed reads the top-level policy in force: a reload that takes
// a tool off the list suspends its standing decisions at once.
func (g *Gateway) standingAllowed(tool string) bool {
	p := g.Config().Gateway.Policy
	if p == nil || p.Approval == nil {
		return false
	}
	for _, pat := range p.Approval.Standing {
		if ok, _ := path.Match(pat, tool); ok {
			return true
		}
	}
	return false
}

// standingPoll is how often a running gateway reads the standing
// decisions other processes (another replica's console) recorded.
const standingPoll = 2 * time.Second

// syncStanding reloads the standing decisions: from the store's table of
// them when it has one (state.StandingStorer), else by applying those
// recorded in the ledger since the last call (console.OutcomeStanding).
// Either way they outlive restarts and reach every replica sharing the
// store.
func (g *Gateway) syncStanding(ctx context.Context) error {
	if g.stand.Store != nil {
		return g.stand.Sync(ctx)
	}
	for r, err := range g.opts.Store.Records(ctx, ledger.Query{Outcome: console.OutcomeStanding, After: g.standAt}) {
		if err != nil {
			return err
		}
		g.standAt = r.Seq
		switch r.Approval {
		case "revoked":
			if _, err := g.stand.Delete(ctx, r.Tool, r.Subject); err != nil {
				g.log.Warn("standing decision not revoked", "tool", r.Tool, "subject", r.Subject, "err", err)
			}
		case "approved", "denied":
			v := approval.VerdictApproved
			if r.Approval == "denied" {
				v = approval.VerdictDenied
			}
			// A decision the policy no longer allows is not restored; it
			// would not be applied anyway.
			if err := g.stand.Put(ctx, approval.StandingRule{Tool: r.Tool, Subject: r.Subject, Verdict: v, Reason: r.Message, Approver: r.Approver, Created: r.Time}); err != nil {
				g.log.Debug("standing decision not restored", "tool", r.Tool, "subject", r.Subject, "err", err)
			}
		}
	}
	return nil
}

func (g *Gateway) followStanding(ctx context.Context) {
	t := time.NewTicker(standingPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := g.syncStanding(ctx); err != nil && ctx.Err() == nil {
				g.log.Warn("reading standing decisions failed", "err", err)
			}
		}
	}
}
