package mcpadapter

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
)

// How long a call waits, once its result is in, for progress reports the
// server sent before the result. go-sdk settles a response on its read
// loop but hands notifications to a queue served by another goroutine, so
// a result can overtake the reports sent ahead of it; those are already
// read, and land within microseconds unless the machine is loaded. The
// wait ends at once when a report says progress == total.
const (
	progressQuiet       = 25 * time.Millisecond  // ends the wait when no report came for this long
	progressGlance      = 2 * time.Millisecond   // the same, for a tool that has not reported lately
	progressSilentCalls = 3                      // calls without a report that make a tool "not reporting"
	progressSettleMax   = 100 * time.Millisecond // ends it whatever comes (a server flooding reports)
)

// progressSink relays one call's progress reports to its listener until
// the call returns; later reports are dropped.
type progressSink struct {
	ctx context.Context // the call's: its listener

	mu       sync.Mutex // held while a report is delivered, so that close waits for it
	closed   bool
	reported bool          // a report came
	complete bool          // a report said progress == total
	seen     chan struct{} // signalled on each report; capacity 1
}

func newProgressSink(ctx context.Context) *progressSink {
	return &progressSink{ctx: ctx, seen: make(chan struct{}, 1)}
}

// report delivers p unless the call has returned.
func (s *progressSink) report(p adapter.Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	adapter.ReportProgress(s.ctx, p)
	s.reported = true
	if p.Total > 0 && p.Progress >= p.Total {
		s.complete = true
	}
	select {
	case s.seen <- struct{}{}:
	default:
	}
}

// settleProgress waits, once a call's result is in, for the reports that
// may still be on their way (see progressSink.settle). Most tools never
// report, and a caller that listens should not pay progressQuiet on every
// call of theirs: a call that has had no report, of a tool that has had
// none in its last progressSilentCalls calls, waits only progressGlance at
// first. A tool's first calls wait in full, since a result may overtake
// every report of a quick tool.
func (c *conn) settleProgress(ctx context.Context, s *progressSink, tool string) {
	if s == nil {
		return
	}
	v, _ := c.progressTools.LoadOrStore(tool, new(atomic.Int32))
	silent := v.(*atomic.Int32) // calls in a row without a report
	quiet := progressQuiet
	if silent.Load() >= progressSilentCalls && !s.hasReported() {
		quiet = progressGlance
	}
	s.settle(ctx, quiet)
	if s.hasReported() {
		silent.Store(0)
	} else if silent.Load() < progressSilentCalls {
		silent.Add(1)
	}
}

func (s *progressSink) hasReported() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reported
}

// settle waits, boundedly, for the reports still on their way once the
// result has arrived: until one says progress == total, no report has come
// for quiet (progressQuiet after the first), progressSettleMax has passed,
// or ctx is done.
func (s *progressSink) settle(ctx context.Context, quiet time.Duration) {
	max := time.NewTimer(progressSettleMax)
	defer max.Stop()
	wait := time.NewTimer(quiet)
	defer wait.Stop()
	for {
		s.mu.Lock()
		complete := s.complete
		s.mu.Unlock()
		if complete {
			return
		}
		select {
		case <-s.seen:
			wait.Reset(progressQuiet)
		case <-wait.C:
			return
		case <-max.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// close drops the reports that come after it, waiting for one being
// delivered.
func (s *progressSink) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}
