// Package ledgerwriter is the executor's ledger writer: the goroutine that
// hands records to a ledger.Ledger off the calls' path. It takes its
// inputs as plain values: records, the results they hash (of any type R,
// hashed by the func it is given), the redaction to apply. Only adapter
// imports it.
package ledgerwriter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentadapter/agentadapter/adapter/canonical"
	"github.com/agentadapter/agentadapter/adapter/internal/redact"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// A Writer hands records to a Ledger from one goroutine, so that the
// ledger's speed never shows on a call's path: a call waits at most
// `wait` for room in the buffer, then its record is dropped and counted.
//
// Waking a goroutine costs more than recording a call (on a busy machine
// the woken thread waits for a CPU), so the writer is not woken per
// record: the first record into an empty queue wakes it, it lets records
// gather for ledgerBatchDelay (less when the queue is half full, or a
// flush or shutdown is waiting), then writes them all.
type Writer[R any] struct {
	l      ledger.Ledger
	hash   func(R) string // a result's hash, "" for none
	max    int            // records that may wait for the ledger
	sync   bool           // the ledger is a ledger.Durable asking for synchronous writes
	wait   time.Duration
	redact func(string, json.RawMessage) json.RawMessage
	red    *redact.Redactor // the built-in masking, when redact is nil
	logger *slog.Logger

	mu       sync.Mutex
	queue    []entry[R]    // taken from calls, not yet by the writer
	asleep   bool          // the writer waits for kick
	stopping bool          // no more records will come: drain and exit
	room     chan struct{} // closed when a record leaves a full buffer; nil when nobody waits

	roomWanted atomic.Bool // room is not nil: the writer reads this, not the lock, per record

	waiting atomic.Int64  // accepted records not yet processed: the queue and the writer's batch
	kick    chan struct{} // capacity 1: wakes the writer
	hurry   chan struct{} // capacity 1: cuts the writer's batching delay short

	// No lock on the call path before the queue's. enqueue counts itself
	// in inflight before it reads closed, and close sets closed before it
	// waits for inflight to reach zero: so either close waits for the
	// record, or the record sees closed and is dropped. Once inflight is
	// zero after closed is set, nobody queues a record again.
	closed   atomic.Bool
	inflight atomic.Int64
	accepted atomic.Int64 // records past the closed check (flush waits for them)
	proc     atomic.Int64 // accepted records written, failed or dropped
	done     chan struct{}
	once     sync.Once

	written, failed, dropped atomic.Int64
	lastErrLog               atomic.Int64 // unix nanos of the last error logged
}

// ledgerBatchDelay is how long the writer lets records gather once woken:
// a stream of calls costs one wake-up per batch instead of one per call,
// and a record reaches the ledger this much later (Flush does not wait).
const ledgerBatchDelay = 500 * time.Microsecond

// New starts a writer to l. buf bounds the records waiting (zero: 4096),
// wait is how long a call waits for room (zero: 50 ms); hash gives the
// ResultHash of a result ("" for none); red (the built-in masking) or else
// redact (the user's) masks the arguments; logger receives errors.
func New[R any](l ledger.Ledger, buf int, wait time.Duration, hash func(R) string, redact func(string, json.RawMessage) json.RawMessage, red *redact.Redactor, logger *slog.Logger) *Writer[R] {
	if buf <= 0 {
		buf = 4096
	}
	if wait <= 0 {
		wait = 50 * time.Millisecond
	}
	w := &Writer[R]{l: l, hash: hash, max: buf, wait: wait, redact: redact, red: red, logger: logger,
		kick: make(chan struct{}, 1), hurry: make(chan struct{}, 1), done: make(chan struct{})}
	if d, ok := l.(ledger.Durable); ok && d.Durable() {
		w.sync = true
	}
	go w.loop()
	return w
}

// Records recycles the records the executor hands its ledger writer
// (a Ledger does not keep the *Record it is given).
var Records = sync.Pool{New: func() any { return new(ledger.Record) }}

// release returns a record to the pool once the ledger is done with it.
func release(r *ledger.Record) {
	*r = ledger.Record{}
	Records.Put(r)
}

// entry is a record on its way to the ledger, with the result whose
// hash it will carry (hashed on the writer's goroutine, off the call path).
type entry[R any] struct {
	r   *ledger.Record
	res R
}

func (w *Writer[R]) loop() {
	defer close(w.done)
	ctx := context.Background()
	delay := time.NewTimer(ledgerBatchDelay)
	delay.Stop()
	var batch []entry[R]
	for {
		w.mu.Lock()
		if len(w.queue) == 0 {
			if w.stopping {
				w.mu.Unlock()
				return
			}
			w.asleep = true
			w.mu.Unlock()
			<-w.kick
			delay.Reset(ledgerBatchDelay)
			select {
			case <-delay.C:
			case <-w.hurry:
				delay.Stop()
			}
			continue
		}
		batch, w.queue = w.queue, batch[:0]
		w.mu.Unlock()
		for i := range batch {
			w.write(ctx, batch[i].r, batch[i].res)
			release(batch[i].r)
			batch[i] = entry[R]{} // let the call's result go
			w.waiting.Add(-1)
			w.proc.Add(1)
			if w.roomWanted.Load() {
				w.mu.Lock()
				close(w.room)
				w.room = nil
				w.roomWanted.Store(false)
				w.mu.Unlock()
			}
		}
	}
}

// signal makes a non-blocking send on a channel of capacity 1.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// put queues e unless max records already wait; when they do, it returns
// a channel closed once some have left.
func (w *Writer[R]) put(e entry[R]) (ok bool, room <-chan struct{}) {
	w.mu.Lock()
	if w.waiting.Load() >= int64(w.max) {
		if w.room == nil {
			w.room = make(chan struct{})
			w.roomWanted.Store(true)
		}
		room = w.room
		w.mu.Unlock()
		signal(w.hurry)
		return false, room
	}
	w.queue = append(w.queue, e)
	n := w.waiting.Add(1)
	wake := w.asleep
	w.asleep = false
	w.mu.Unlock()
	if wake {
		signal(w.kick)
	}
	if n == int64(w.max+1)/2 {
		signal(w.hurry)
	}
	return true, nil
}

func (w *Writer[R]) write(ctx context.Context, r *ledger.Record, res R) {
	defer func() {
		if p := recover(); p != nil {
			w.failed.Add(1)
			w.logError("adapter: ledger panicked", p)
		}
	}()
	if r.ArgsHash == "" && len(r.Args) > 0 {
		// Before redaction: the hash names the arguments that ran.
		if c, err := canonical.JSON(r.Args); err == nil {
			r.ArgsHash = sha256Hex(c) // CanonicalHash, in one allocation
		}
	}
	if r.ResultHash == "" {
		r.ResultHash = w.hash(res) // "" for no result
	}
	switch {
	case len(r.Args) == 0:
	case w.red != nil:
		var masked []string
		r.Args, masked = w.red.RedactValid(r.Args) // finish records valid JSON only
		if len(masked) > 0 && r.Message != "" {
			r.Message = redact.Scrub(r.Message, masked)
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
func (w *Writer[R]) logError(msg string, err any) {
	now := time.Now().UnixNano()
	last := w.lastErrLog.Load()
	if now-last < int64(time.Second) || !w.lastErrLog.CompareAndSwap(last, now) {
		return
	}
	w.logger.Error(msg, "error", err, "failed", w.failed.Load(), "dropped", w.dropped.Load())
}

// Enqueue hands r (and the result it hashes) to the ledger; r goes back
// to [Records] once written or dropped.
func (w *Writer[R]) Enqueue(ctx context.Context, r *ledger.Record, res R) {
	w.inflight.Add(1)
	defer w.inflight.Add(-1)
	if w.closed.Load() {
		w.dropped.Add(1)
		release(r)
		return
	}
	w.accepted.Add(1)
	if w.sync {
		// A durable ledger commits the record before the call returns. The
		// caller's cancellation must not abort the write of a call that ran.
		w.write(context.WithoutCancel(ctx), r, res)
		release(r)
		w.proc.Add(1)
		return
	}
	e := entry[R]{r, res}
	ok, room := w.put(e)
	if ok {
		return
	}
	// The buffer is full: wait a bounded time for room. The writer keeps
	// running meanwhile: close waits for this call first.
	t := time.NewTimer(w.wait)
	defer t.Stop()
	for {
		select {
		case <-room:
			if ok, room = w.put(e); ok {
				return
			}
			continue
		case <-t.C:
		}
		break
	}
	release(r)
	w.dropped.Add(1)
	w.proc.Add(1)
	w.logError("adapter: ledger buffer full, record dropped", "slow ledger")
}

// Flush waits until every record accepted so far is processed.
func (w *Writer[R]) Flush(ctx context.Context) error {
	target := w.accepted.Load()
	signal(w.hurry)
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

// Close is Shutdown without a deadline.
func (w *Writer[R]) Close() { _ = w.Shutdown(context.Background()) }

// Shutdown stops taking records and waits, until ctx ends, for the writer
// to hand the rest to the ledger. The closing itself runs once, in the
// background, so that a ctx that ends early leaves it to finish.
func (w *Writer[R]) Shutdown(ctx context.Context) error {
	w.once.Do(func() {
		w.closed.Store(true)
		go func() {
			_ = poll(context.Background(), func() bool { return w.inflight.Load() == 0 })
			w.mu.Lock()
			w.stopping = true // the writer drains what is left, then stops
			w.mu.Unlock()
			signal(w.kick)
			signal(w.hurry)
		}()
	})
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stats returns the records written, failed and dropped so far.
func (w *Writer[R]) Stats() (written, failed, dropped int64) {
	return w.written.Load(), w.failed.Load(), w.dropped.Load()
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	return string(h[:])
}
