// Package sqlledger holds what the database stores' ledgers share: the
// writer (a bounded queue of records, committed in batches by one
// goroutine through a store's own commit function, with the records the
// queue cannot take refused and counted, and a durable mode in which Write
// returns once its record is committed), the chain stamping of a batch,
// and the SQL of a query.
//
//	w := sqlledger.New(commit, sqlledger.Options{Buffer: 16384, BatchSize: 1024})
//	defer w.Close()
//	err := w.Write(ctx, &record)
package sqlledger

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// A CommitFunc appends a batch of records to a store's chain in one
// transaction: it sets each record's Seq, Prev and Hash ([Chain]) and
// writes them. A failed commit may be called again with the same batch.
type CommitFunc func(ctx context.Context, batch []ledger.Record) error

// Options configure a [Writer]; every field must be set.
type Options struct {
	// Buffer bounds the records waiting for a batch.
	Buffer int
	// BatchSize bounds the records committed in one transaction.
	BatchSize int
	// Durable makes Write wait for its record's commit.
	Durable bool
	// Linger, if positive, is how long a batch waits after its first
	// record for more records to join it before it is committed (unless
	// it fills first): fewer, larger commits under load. Zero commits at
	// once. A durable writer's Write waits through it.
	Linger time.Duration
	// Backoff is the pause before the second attempt of a failed commit
	// (twice it before the third, the last).
	Backoff time.Duration
	// Full is returned by Write when the queue is full, Closed after
	// Close; each store has its own sentinels.
	Full, Closed error
	// Logger receives a failed commit's error, at most once a second;
	// Name opens the message ("sqlitestore").
	Logger *slog.Logger
	Name   string
}

// Stats are a writer's counters.
type Stats struct {
	Written int64 // records committed
	Refused int64 // records refused with Options.Full
	Failed  int64 // records lost to a commit error
}

// Writer queues records and commits them in batches. It is safe for
// concurrent use.
type Writer struct {
	commit CommitFunc
	o      Options
	ch     chan pending

	mu     sync.RWMutex // held for reading by Write, for writing by Close
	closed bool

	enqueued, done   atomic.Int64
	written, refused atomic.Int64
	failed           atomic.Int64
	lastErrLog       atomic.Int64
	loopDone         chan struct{}
}

// pending is a record waiting for its batch; a durable writer waits on
// done for the outcome.
type pending struct {
	r    ledger.Record
	done chan error
}

// New starts a writer committing through commit; Close stops it.
func New(commit CommitFunc, o Options) *Writer {
	w := &Writer{commit: commit, o: o, ch: make(chan pending, o.Buffer), loopDone: make(chan struct{})}
	go w.loop()
	return w
}

// Write queues r and returns at once (Options.Full when the queue is
// full); with Options.Durable it returns once r is committed, whatever
// ctx says after r was queued.
func (w *Writer) Write(ctx context.Context, r *ledger.Record) error {
	p := pending{r: *r}
	if w.o.Durable {
		p.done = make(chan error, 1)
	}
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return w.o.Closed
	}
	if p.done == nil {
		select {
		case w.ch <- p:
			w.enqueued.Add(1)
			w.mu.RUnlock()
			return nil
		default:
			w.mu.RUnlock()
			w.refused.Add(1)
			return w.o.Full
		}
	}
	w.enqueued.Add(1)
	select {
	case w.ch <- p:
	case <-ctx.Done():
		w.enqueued.Add(-1)
		w.mu.RUnlock()
		return ctx.Err()
	}
	w.mu.RUnlock()
	return <-p.done
}

// Flush waits until every record written so far is committed (or failed).
func (w *Writer) Flush(ctx context.Context) error {
	target := w.enqueued.Load()
	for d := 100 * time.Microsecond; w.done.Load() < target; d = min(2*d, 10*time.Millisecond) {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Stats returns the writer's counters.
func (w *Writer) Stats() Stats {
	return Stats{Written: w.written.Load(), Refused: w.refused.Load(), Failed: w.failed.Load()}
}

// Close commits what is queued and stops the writer; Writes after it
// fail with Options.Closed.
func (w *Writer) Close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.ch)
	}
	w.mu.Unlock()
	<-w.loopDone
}

// loop commits records in batches: whatever is waiting when a commit ends
// (and, with Options.Linger, what arrives within it of the batch's first
// record) makes the next batch, so batches grow with the load.
func (w *Writer) loop() {
	defer close(w.loopDone)
	batch := make([]ledger.Record, 0, w.o.BatchSize)
	dones := make([]chan error, 0, w.o.BatchSize)
	add := func(p pending) {
		batch = append(batch, p.r)
		dones = append(dones, p.done)
	}
	var linger *time.Timer
	if w.o.Linger > 0 {
		linger = time.NewTimer(w.o.Linger)
		linger.Stop()
	}
	for p := range w.ch {
		batch, dones = batch[:0], dones[:0]
		add(p)
		var wait <-chan time.Time // nil (never ready) without a linger
		if linger != nil {
			linger.Reset(w.o.Linger)
			wait = linger.C
		}
	fill:
		for len(batch) < cap(batch) {
			select {
			case p, ok := <-w.ch:
				if !ok {
					break fill
				}
				add(p)
				continue
			default:
			}
			if wait == nil {
				break fill
			}
			select {
			case p, ok := <-w.ch:
				if !ok {
					break fill
				}
				add(p)
			case <-wait:
				wait = nil
				break fill
			}
		}
		if linger != nil {
			linger.Stop()
		}
		err := w.commitRetrying(batch)
		for i, d := range dones {
			if d != nil {
				d <- err
			}
			batch[i], dones[i] = ledger.Record{}, nil // let the records go
		}
		n := int64(len(batch))
		if err != nil {
			w.failed.Add(n)
			w.logError(err)
		} else {
			w.written.Add(n)
		}
		w.done.Add(n)
	}
}

// commitRetrying tries a batch three times: a transient failure (another
// process holding the write lock past its timeout, a dropped connection)
// must not lose records.
func (w *Writer) commitRetrying(batch []ledger.Record) error {
	var err error
	for attempt := range 3 {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * w.o.Backoff)
		}
		if err = w.commit(context.Background(), batch); err == nil {
			return nil
		}
	}
	return err
}

func (w *Writer) logError(err error) {
	now := time.Now().UnixNano()
	last := w.lastErrLog.Load()
	if now-last < int64(time.Second) || !w.lastErrLog.CompareAndSwap(last, now) {
		return
	}
	w.o.Logger.Error(w.o.Name+": ledger write failed", "error", err, "failed", w.failed.Load())
}

// Chain links batch to the chain whose last record is head: it sets each
// record's Seq, Prev and Hash, and returns the new head. Text that is not
// UTF-8 is replaced first ([ledger.Record.ValidUTF8]): the database would
// refuse the batch for it.
func Chain(head ledger.Head, batch []ledger.Record) ledger.Head {
	for i := range batch {
		r := &batch[i]
		r.ValidUTF8()
		r.Seq, r.Prev = head.Seq+1, head.Hash
		r.Hash = ledger.Hash(r)
		head = ledger.Head{Seq: r.Seq, Hash: r.Hash}
	}
	return head
}
