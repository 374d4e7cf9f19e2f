package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentadapter/agentadapter/adapter"
)

// ErrLedgerFull is returned by [Ledger.Write] when the batch buffer is
// full (the database is slower than the calls); the executor counts the
// record as failed.
var ErrLedgerFull = errors.New("pgstore: ledger buffer full, record refused")

// Ledger is a chained, queryable [adapter.Ledger] in the database. All the
// replicas on one database share one hash chain: each batch is appended
// holding the lock of the chain's head row. It implements
// [adapter.LedgerReader], [adapter.LedgerVerifier] and
// [adapter.DurableLedger].
type Ledger struct {
	s  *Store
	ch chan pending

	mu     sync.RWMutex // held for reading by Write, for writing by close
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
	r    adapter.Record
	done chan error
}

// LedgerStats are a ledger's counters since its Store was opened.
type LedgerStats struct {
	Written int64 // records committed
	Refused int64 // records refused with ErrLedgerFull
	Failed  int64 // records lost to a database error
}

func newLedger(s *Store) *Ledger {
	return &Ledger{s: s, ch: make(chan pending, s.opts.LedgerBuffer), loopDone: make(chan struct{})}
}

// Durable implements [adapter.DurableLedger]: it reports Options.Durable.
func (l *Ledger) Durable() bool { return l.s.opts.Durable }

// Write implements [adapter.Ledger]. Without Options.Durable it queues the
// record and returns at once (ErrLedgerFull when the queue is full); with
// it, it returns once the record is committed.
func (l *Ledger) Write(ctx context.Context, r *adapter.Record) error {
	p := pending{r: *r}
	if l.s.opts.Durable {
		p.done = make(chan error, 1)
	}
	l.mu.RLock()
	if l.closed {
		l.mu.RUnlock()
		return ErrClosed
	}
	if p.done == nil {
		select {
		case l.ch <- p:
			l.enqueued.Add(1)
			l.mu.RUnlock()
			return nil
		default:
			l.mu.RUnlock()
			l.refused.Add(1)
			return ErrLedgerFull
		}
	}
	l.enqueued.Add(1)
	select {
	case l.ch <- p:
	case <-ctx.Done():
		l.enqueued.Add(-1)
		l.mu.RUnlock()
		return ctx.Err()
	}
	l.mu.RUnlock()
	return <-p.done // the batch commits whatever the caller's ctx says
}

// Flush waits until every record written so far is committed (or failed).
func (l *Ledger) Flush(ctx context.Context) error {
	target := l.enqueued.Load()
	for d := 100 * time.Microsecond; l.done.Load() < target; d = min(2*d, 10*time.Millisecond) {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Stats returns the ledger's counters.
func (l *Ledger) Stats() LedgerStats {
	return LedgerStats{Written: l.written.Load(), Refused: l.refused.Load(), Failed: l.failed.Load()}
}

func (l *Ledger) close() {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.ch)
	}
	l.mu.Unlock()
	<-l.loopDone
}

// loop commits records in batches: whatever is waiting when a commit ends
// makes the next batch, so batches grow with the load.
func (l *Ledger) loop(ctx context.Context) {
	defer close(l.loopDone)
	batch := make([]pending, 0, l.s.opts.BatchSize)
	for p := range l.ch {
		batch = append(batch[:0], p)
	fill:
		for len(batch) < cap(batch) {
			select {
			case p, ok := <-l.ch:
				if !ok {
					break fill
				}
				batch = append(batch, p)
			default:
				break fill
			}
		}
		err := l.commit(context.WithoutCancel(ctx), batch)
		for i := range batch {
			if batch[i].done != nil {
				batch[i].done <- err
			}
			batch[i] = pending{}
		}
		if err != nil {
			l.failed.Add(int64(len(batch)))
			l.logError(err)
		} else {
			l.written.Add(int64(len(batch)))
		}
		l.done.Add(int64(len(batch)))
	}
}

func (l *Ledger) logError(err error) {
	now := time.Now().UnixNano()
	last := l.lastErrLog.Load()
	if now-last < int64(time.Second) || !l.lastErrLog.CompareAndSwap(last, now) {
		return
	}
	l.s.logger.Error("pgstore: ledger write failed", "error", err, "failed", l.failed.Load())
}

var ledgerColumns = []string{"seq", "time", "call_id", "run_id", "tool", "source", "integration", "subject", "args", "outcome", "message",
	"approval", "approver", "requester", "ticket", "cache_hit", "duration_ns", "result_bytes", "args_hash", "result_hash", "prev", "hash"}

// commit appends a batch to the chain in one transaction, retrying a few
// times on a transient failure.
func (l *Ledger) commit(ctx context.Context, batch []pending) error {
	var err error
	for attempt := range 3 {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
		}
		if err = l.commitOnce(ctx, batch); err == nil {
			return nil
		}
	}
	return err
}

func (l *Ledger) commitOnce(ctx context.Context, batch []pending) error {
	tx, err := l.s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var head adapter.ChainHead
	if err := tx.QueryRow(ctx, "SELECT head_seq, head_hash FROM ledger_chain WHERE id = 1 FOR UPDATE").Scan(&head.Seq, &head.Hash); err != nil {
		return fmt.Errorf("reading the chain head: %w", err)
	}
	rows := make([][]any, len(batch))
	for i := range batch {
		r := &batch[i].r
		r.Seq, r.Prev = head.Seq+1, head.Hash
		r.Hash = adapter.ChainHash(r)
		head = adapter.ChainHead{Seq: r.Seq, Hash: r.Hash}
		var args []byte
		if r.Args != nil {
			args = r.Args
		}
		rows[i] = []any{r.Seq, r.Time.UnixNano(), r.CallID, r.RunID, r.Tool, r.Source, r.Integration, r.Subject,
			args, r.Outcome, r.Message, r.Approval, r.Approver, r.Requester, r.Ticket, r.CacheHit, int64(r.Duration), int64(r.ResultBytes),
			r.ArgsHash, r.ResultHash, r.Prev, r.Hash}
	}
	if len(rows) < 8 {
		// A few rows go faster as one INSERT than through COPY.
		var b strings.Builder
		b.WriteString("INSERT INTO ledger (" + strings.Join(ledgerColumns, ", ") + ") VALUES ")
		var args []any
		for i, row := range rows {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(")
			for j := range row {
				if j > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "$%d", len(args)+j+1)
			}
			b.WriteString(")")
			args = append(args, row...)
		}
		if _, err := tx.Exec(ctx, b.String(), args...); err != nil {
			return err
		}
	} else if _, err := tx.CopyFrom(ctx, pgx.Identifier{"ledger"}, ledgerColumns, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE ledger_chain SET head_seq = $1, head_hash = $2 WHERE id = 1", head.Seq, head.Hash); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

var selectRecord = "SELECT " + strings.Join(ledgerColumns, ", ") + " FROM ledger"

func scanRecord(rows pgx.Rows) (adapter.Record, error) {
	var r adapter.Record
	var t, d, n int64
	var args []byte
	err := rows.Scan(&r.Seq, &t, &r.CallID, &r.RunID, &r.Tool, &r.Source, &r.Integration, &r.Subject, &args,
		&r.Outcome, &r.Message, &r.Approval, &r.Approver, &r.Requester, &r.Ticket, &r.CacheHit, &d, &n,
		&r.ArgsHash, &r.ResultHash, &r.Prev, &r.Hash)
	r.Time = time.Unix(0, t).UTC()
	r.Duration = time.Duration(d)
	r.ResultBytes = int(n)
	if args != nil {
		r.Args = args
	}
	return r, err
}

// Query implements [adapter.LedgerReader]. Rows stream from the database
// as the caller reads them.
func (l *Ledger) Query(ctx context.Context, q adapter.LedgerQuery) iter.Seq2[adapter.Record, error] {
	var where []string
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if q.Run != "" {
		add("run_id = $%d", q.Run)
	}
	if q.Tool != "" {
		add("tool = $%d", q.Tool)
	}
	if q.Subject != "" {
		add("subject = $%d", q.Subject)
	}
	if q.Outcome != "" {
		add("outcome = $%d", q.Outcome)
	}
	if !q.Since.IsZero() {
		add("time >= $%d", q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		add("time < $%d", q.Until.UnixNano())
	}
	order := " ORDER BY seq"
	if q.Newest {
		order += " DESC"
		if q.After != 0 {
			add("seq < $%d", q.After)
		}
	} else if q.After != 0 {
		add("seq > $%d", q.After)
	}
	stmt := selectRecord
	if len(where) > 0 {
		stmt += " WHERE " + strings.Join(where, " AND ")
	}
	stmt += order
	if q.Limit > 0 {
		stmt += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	return func(yield func(adapter.Record, error) bool) {
		rows, err := l.s.pool.Query(ctx, stmt, args...)
		if err != nil {
			yield(adapter.Record{}, fmt.Errorf("pgstore: ledger query: %w", err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRecord(rows)
			if err != nil {
				yield(adapter.Record{}, fmt.Errorf("pgstore: ledger query: %w", err))
				return
			}
			if !yield(r, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(adapter.Record{}, fmt.Errorf("pgstore: ledger query: %w", err))
		}
	}
}

// Head returns the chain's last point: note it somewhere the database's
// administrators cannot write, and a later [Ledger.Verify] (or an offline
// check of an export) proves that nothing before it was rewritten.
func (l *Ledger) Head(ctx context.Context) (adapter.ChainHead, error) {
	var h adapter.ChainHead
	err := l.s.pool.QueryRow(ctx, "SELECT head_seq, head_hash FROM ledger_chain WHERE id = 1").Scan(&h.Seq, &h.Hash)
	return h, err
}

// Verify implements [adapter.LedgerVerifier]: it walks the whole chain,
// from its anchor to its head, in one repeatable-read transaction.
func (l *Ledger) Verify(ctx context.Context) error {
	tx, err := l.s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	defer tx.Rollback(ctx)
	var head, anchor adapter.ChainHead
	if err := tx.QueryRow(ctx, "SELECT head_seq, head_hash, anchor_seq, anchor_hash FROM ledger_chain WHERE id = 1").
		Scan(&head.Seq, &head.Hash, &anchor.Seq, &anchor.Hash); err != nil {
		return fmt.Errorf("pgstore: reading the chain: %w", err)
	}
	rows, err := tx.Query(ctx, selectRecord+" ORDER BY seq")
	if err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	defer rows.Close()
	last, err := adapter.VerifyChain(func(yield func(adapter.Record, error) bool) {
		for rows.Next() {
			r, err := scanRecord(rows)
			if !yield(r, err) || err != nil {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(adapter.Record{}, err)
		}
	}, anchor)
	if err != nil {
		return err
	}
	return adapter.CheckHead(last, head)
}

// Export writes the records q selects as JSON lines ([adapter.WriteLedgerJSONL]).
// An export of every record (the zero query) keeps the chain: verify it
// offline with [adapter.ReadLedgerJSONL] and [adapter.VerifyChain], from
// the first record's Seq-1 and Prev.
func (l *Ledger) Export(ctx context.Context, w io.Writer, q adapter.LedgerQuery) error {
	return adapter.WriteLedgerJSONL(w, l.Query(ctx, q))
}

// sweep deletes the records before the first one at or after cutoff, in
// chunks, moving the chain's anchor to the last record deleted.
func (l *Ledger) sweep(ctx context.Context, cutoff time.Time) error {
	for {
		n, err := l.sweepChunk(ctx, cutoff.UnixNano(), 10000)
		if err != nil || n == 0 {
			return err
		}
	}
}

func (l *Ledger) sweepChunk(ctx context.Context, cutoff int64, chunk int) (int64, error) {
	tx, err := l.s.pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT 1 FROM ledger_chain WHERE id = 1 FOR UPDATE"); err != nil {
		return 0, err
	}
	var last *int64
	err = tx.QueryRow(ctx, `SELECT max(seq) FROM (SELECT seq, time FROM ledger ORDER BY seq LIMIT $1) c
		WHERE seq < coalesce((SELECT min(seq) FROM (SELECT seq, time FROM ledger ORDER BY seq LIMIT $1) d WHERE time >= $2), 9223372036854775807)`,
		chunk, cutoff).Scan(&last)
	if err != nil || last == nil {
		return 0, err
	}
	var hash string
	if err := tx.QueryRow(ctx, "SELECT hash FROM ledger WHERE seq = $1", *last).Scan(&hash); err != nil {
		return 0, err
	}
	tag, err := tx.Exec(ctx, "DELETE FROM ledger WHERE seq <= $1", *last)
	if err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, "UPDATE ledger_chain SET anchor_seq = $1, anchor_hash = $2 WHERE id = 1", *last, hash); err != nil {
		return 0, err
	}
	return tag.RowsAffected(), tx.Commit(ctx)
}
