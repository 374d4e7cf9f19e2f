package mcpadapter

import (
	"context"
	"sync"
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
	progressQuiet     = 15 * time.Millisecond  // ends the wait when no report came for this long
	progressSettleMax = 100 * time.Millisecond // ends it whatever comes (a server flooding reports)
)

// progressSink relays one call's progress reports to its listener until
// the call returns; later reports are dropped.
type progressSink struct {
	ctx context.Context // the call's: its listener

	mu       sync.Mutex // held while a report is delivered, so that close waits for it
	closed   bool
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
	if p.Total > 0 && p.Progress >= p.Total {
		s.complete = true
	}
	select {
	case s.seen <- struct{}{}:
	default:
	}
}

// settle waits, boundedly, for the reports still on their way once the
// result has arrived: until one says progress == total, no report has come
// for progressQuiet, progressSettleMax has passed, or ctx is done.
func (s *progressSink) settle(ctx context.Context) {
	if s == nil {
		return
	}
	max := time.NewTimer(progressSettleMax)
	defer max.Stop()
	quiet := time.NewTimer(progressQuiet)
	defer quiet.Stop()
	for {
		s.mu.Lock()
		complete := s.complete
		s.mu.Unlock()
		if complete {
			return
		}
		select {
		case <-s.seen:
			quiet.Reset(progressQuiet)
		case <-quiet.C:
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
