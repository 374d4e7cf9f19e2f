package adapter

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// ledgerWriter hands records to a Ledger from one goroutine, so that the
// ledger's speed never shows on a call's path: a call waits at most
// `wait` for room in the buffer, then its record is dropped and counted.
type ledgerWriter struct {
	l      Ledger
	ch     chan *Record
	wait   time.Duration
	redact func(string, json.RawMessage) json.RawMessage
	logger *slog.Logger

	mu     sync.Mutex // guards closed; enq only grows under it
	closed bool
	enq    atomic.Int64 // records accepted by enqueue
	proc   atomic.Int64 // records written, failed or dropped
	done   chan struct{}

	written, failed, dropped atomic.Int64
	lastErrLog               atomic.Int64 // unix nanos of the last error logged
}

func newLedgerWriter(l Ledger, buf int, wait time.Duration, redact func(string, json.RawMessage) json.RawMessage, logger *slog.Logger) *ledgerWriter {
	if buf <= 0 {
		buf = 4096
	}
	if wait <= 0 {
		wait = 50 * time.Millisecond
	}
	w := &ledgerWriter{l: l, ch: make(chan *Record, buf), wait: wait, redact: redact, logger: logger, done: make(chan struct{})}
	go w.loop()
	return w
}

func (w *ledgerWriter) loop() {
	defer close(w.done)
	ctx := context.Background()
	for r := range w.ch {
		w.write(ctx, r)
		w.proc.Add(1)
	}
}

func (w *ledgerWriter) write(ctx context.Context, r *Record) {
	defer func() {
		if p := recover(); p != nil {
			w.failed.Add(1)
			w.logError("adapter: ledger panicked", p)
		}
	}()
	if len(r.Args) > 0 && w.redact != nil {
		r.Args = w.redact(r.Tool, r.Args)
	}
	if err := w.l.Write(ctx, r); err != nil {
		w.failed.Add(1)
		w.logError("adapter: ledger write failed", err)
		return
	}
	w.written.Add(1)
}

// logError logs at most one ledger error per second.
func (w *ledgerWriter) logError(msg string, err any) {
	now := time.Now().UnixNano()
	last := w.lastErrLog.Load()
	if now-last < int64(time.Second) || !w.lastErrLog.CompareAndSwap(last, now) {
		return
	}
	w.logger.Error(msg, "error", err, "failed", w.failed.Load(), "dropped", w.dropped.Load())
}

func (w *ledgerWriter) enqueue(_ context.Context, r *Record) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		w.dropped.Add(1)
		return
	}
	w.enq.Add(1)
	select {
	case w.ch <- r:
		w.mu.Unlock()
		return
	default:
	}
	w.mu.Unlock()
	// The buffer is full: wait a bounded time for room. The channel cannot
	// be closed meanwhile: close waits for pending records first.
	t := time.NewTimer(w.wait)
	defer t.Stop()
	select {
	case w.ch <- r:
	case <-t.C:
		w.dropped.Add(1)
		w.proc.Add(1)
		w.logError("adapter: ledger buffer full, record dropped", "slow ledger")
	}
}

func (w *ledgerWriter) flush(ctx context.Context) error {
	target := w.enq.Load()
	return w.waitFor(ctx, target)
}

// waitFor polls until target records are processed: flushes are rare, and
// polling keeps the call path free of any synchronisation with them.
func (w *ledgerWriter) waitFor(ctx context.Context, target int64) error {
	for d := 50 * time.Microsecond; w.proc.Load() < target; d = min(2*d, 10*time.Millisecond) {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	return nil
}

func (w *ledgerWriter) close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		<-w.done
		return
	}
	w.closed = true
	w.mu.Unlock()
	_ = w.waitFor(context.Background(), w.enq.Load())
	close(w.ch)
	<-w.done
}

func (w *ledgerWriter) stats() LedgerStats {
	return LedgerStats{Written: w.written.Load(), Failed: w.failed.Load(), Dropped: w.dropped.Load()}
}
