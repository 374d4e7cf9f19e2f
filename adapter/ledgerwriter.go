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
	ch     chan ledgerEntry
	sync   bool // the ledger is a DurableLedger asking for synchronous writes
	wait   time.Duration
	redact func(string, json.RawMessage) json.RawMessage
	red    *redactor // the built-in masking, when redact is nil
	logger *slog.Logger

	// No lock on the call path. enqueue counts itself in inflight before
	// it reads closed, and close sets closed before it waits for inflight
	// to reach zero: so either close waits for the record, or the record
	// sees closed and is dropped. Once inflight is zero after closed is
	// set, nobody sends on ch again and it can be closed.
	closed   atomic.Bool
	inflight atomic.Int64
	accepted atomic.Int64 // records past the closed check (flush waits for them)
	proc     atomic.Int64 // accepted records written, failed or dropped
	done     chan struct{}
	once     sync.Once

	written, failed, dropped atomic.Int64
	lastErrLog               atomic.Int64 // unix nanos of the last error logged
}

func newLedgerWriter(l Ledger, buf int, wait time.Duration, redact func(string, json.RawMessage) json.RawMessage, red *redactor, logger *slog.Logger) *ledgerWriter {
	if buf <= 0 {
		buf = 4096
	}
	if wait <= 0 {
		wait = 50 * time.Millisecond
	}
	w := &ledgerWriter{l: l, ch: make(chan ledgerEntry, buf), wait: wait, redact: redact, red: red, logger: logger, done: make(chan struct{})}
	if d, ok := l.(DurableLedger); ok && d.Durable() {
		w.sync = true
	}
	go w.loop()
	return w
}

// ledgerEntry is a record on its way to the ledger, with the result whose
// hash it will carry (hashed on the writer's goroutine, off the call path).
type ledgerEntry struct {
	r   *Record
	res *Result
}

func (w *ledgerWriter) loop() {
	defer close(w.done)
	ctx := context.Background()
	for e := range w.ch {
		w.write(ctx, e.r, e.res)
		w.proc.Add(1)
	}
}

func (w *ledgerWriter) write(ctx context.Context, r *Record, res *Result) {
	defer func() {
		if p := recover(); p != nil {
			w.failed.Add(1)
			w.logError("adapter: ledger panicked", p)
		}
	}()
	if r.ArgsHash == "" && len(r.Args) > 0 {
		// Before redaction: the hash names the arguments that ran.
		r.ArgsHash, _ = CanonicalHash(r.Args)
	}
	if r.ResultHash == "" && res != nil {
		r.ResultHash = ResultHash(res)
	}
	switch {
	case len(r.Args) == 0:
	case w.red != nil:
		var masked []string
		r.Args, masked = w.red.redact(r.Args)
		if len(masked) > 0 && r.Message != "" {
			r.Message = scrub(r.Message, masked)
		}
	case w.redact != nil:
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

func (w *ledgerWriter) enqueue(ctx context.Context, r *Record, res *Result) {
	w.inflight.Add(1)
	defer w.inflight.Add(-1)
	if w.closed.Load() {
		w.dropped.Add(1)
		return
	}
	w.accepted.Add(1)
	if w.sync {
		// A durable ledger commits the record before the call returns. The
		// caller's cancellation must not abort the write of a call that ran.
		w.write(context.WithoutCancel(ctx), r, res)
		w.proc.Add(1)
		return
	}
	e := ledgerEntry{r, res}
	select {
	case w.ch <- e:
		return
	default:
	}
	// The buffer is full: wait a bounded time for room. The writer keeps
	// running meanwhile: close waits for this call first.
	t := time.NewTimer(w.wait)
	defer t.Stop()
	select {
	case w.ch <- e:
	case <-t.C:
		w.dropped.Add(1)
		w.proc.Add(1)
		w.logError("adapter: ledger buffer full, record dropped", "slow ledger")
	}
}

// flush waits until every record accepted so far is processed.
func (w *ledgerWriter) flush(ctx context.Context) error {
	target := w.accepted.Load()
	return poll(ctx, func() bool { return w.proc.Load() >= target })
}

// poll waits for cond: flushes and closes are rare, and polling keeps the
// call path free of any synchronisation with them.
func poll(ctx context.Context, cond func() bool) error {
	for d := 50 * time.Microsecond; !cond(); d = min(2*d, 10*time.Millisecond) {
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

func (w *ledgerWriter) close() { _ = w.shutdown(context.Background()) }

// shutdown stops taking records and waits, until ctx ends, for the writer
// to hand the rest to the ledger. The closing itself runs once, in the
// background, so that a ctx that ends early leaves it to finish.
func (w *ledgerWriter) shutdown(ctx context.Context) error {
	w.once.Do(func() {
		w.closed.Store(true)
		go func() {
			_ = poll(context.Background(), func() bool { return w.inflight.Load() == 0 })
			close(w.ch) // the writer drains what is left, then stops
		}()
	})
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *ledgerWriter) stats() LedgerStats {
	return LedgerStats{Written: w.written.Load(), Failed: w.failed.Load(), Dropped: w.dropped.Load()}
}
