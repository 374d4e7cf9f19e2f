package mcpadapter

import (
	"context"
	"sync/atomic"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/progress"
)

// settleProgress waits, once a call's result is in, for the reports that
// may still be on their way (see progress.Sink.Settle). Most tools never
// report, and a caller that listens should not pay progress.Quiet on every
// call of theirs: a call that has had no report, of a tool that has had
// none in its last progress.SilentCalls calls, waits only progress.Glance at
// first. A tool's first calls wait in full, since a result may overtake
// every report of a quick tool.
func (c *conn) settleProgress(ctx context.Context, s *progress.Sink, tool string) {
	if s == nil {
		return
	}
	v, _ := c.progressTools.LoadOrStore(tool, new(atomic.Int32))
	silent := v.(*atomic.Int32) // calls in a row without a report
	quiet := progress.Quiet
	if silent.Load() >= progress.SilentCalls && !s.HasReported() {
		quiet = progress.Glance
	}
	s.Settle(ctx, quiet)
	if s.HasReported() {
		silent.Store(0)
	} else if silent.Load() < progress.SilentCalls {
		silent.Add(1)
	}
}
