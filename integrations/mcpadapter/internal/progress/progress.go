// Package progress relays one call's progress reports to its listener
// until the call returns, and waits, once the result is in, for the
// reports the result may have overtaken.
//
//	sink := progress.New(ctx) // the call's ctx: its listener
//	defer sink.Close()
//	// ... on each notification: sink.Report(p)
//	sink.Settle(ctx, progress.Quiet) // the result is in
//
// It is internal to the module.
package progress

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
	Quiet       = 25 * time.Millisecond  // ends the wait when no report came for this long
	Glance      = 2 * time.Millisecond   // the same, for a tool that has not reported lately
	SilentCalls = 3                      // calls without a report that make a tool "not reporting"
	settleMax   = 100 * time.Millisecond // ends it whatever comes (a server flooding reports)
)

// Sink relays one call's progress reports to its listener until
// the call returns; later reports are dropped.
type Sink struct {
	ctx context.Context // the call's: its listener

	mu       sync.Mutex // held while a report is delivered, so that close waits for it
	closed   bool
	reported bool          // a report came
	complete bool          // a report said progress == total
	seen     chan struct{} // signalled on each report; capacity 1
}

// New returns the sink of a call whose ctx carries its listener.
func New(ctx context.Context) *Sink {
	return &Sink{ctx: ctx, seen: make(chan struct{}, 1)}
}

// Report delivers p unless the call has returned.
func (s *Sink) Report(p adapter.Progress) {
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

// HasReported reports whether a report came.
func (s *Sink) HasReported() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reported
}

// Settle waits, boundedly, for the reports still on their way once the
// result has arrived: until one says progress == total, no report has come
// for quiet (Quiet after the first), settleMax has passed,
// or ctx is done.
func (s *Sink) Settle(ctx context.Context, quiet time.Duration) {
	max := time.NewTimer(settleMax)
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
			wait.Reset(Quiet)
		case <-wait.C:
			return
		case <-max.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Close drops the reports that come after it, waiting for one being
// delivered.
func (s *Sink) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}
