package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/store/internal/sqlledger"
)

// ErrLedgerFull is returned by [Ledger.Write] when the batch buffer is
// full (the database is slower than the calls); the executor counts the
// record as failed.
var ErrLedgerFull = errors.New("pgstore: ledger buffer full, record refused")

// Ledger is a chained, queryable [ledger.Ledger] in the database. All the
// replicas on one database share one hash chain: each batch is appended
// holding the lock of the chain's head row. It implements
// [ledger.Reader], [ledger.HeadVerifier] and
// [ledger.Durable].
type Ledger struct {
	s *Store
	w *sqlledger.Writer
}

// LedgerStats are a ledger's counters since its Store was opened.
type LedgerStats struct {
	Written int64 // records committed
	Refused int64 // records refused with ErrLedgerFull
	Failed  int64 // records lost to a database error
}

func newLedger(s *Store) *Ledger {
	l := &Ledger{s: s}
	l.w = sqlledger.New(l.commit, sqlledger.Options{
		Buffer: s.opts.LedgerBuffer, BatchSize: s.opts.BatchSize, Durable: s.opts.Durable,
		Backoff: 100 * time.Millisecond,
		Full:    ErrLedgerFull, Closed: ErrClosed, Logger: s.logger, Name: "pgstore",
	})
	return l
}

// Durable implements [ledger.Durable]: it reports Options.Durable.
func (l *Ledger) Durable() bool { return l.s.opts.Durable }

// Write implements [ledger.Ledger]. Without Options.Durable it queues the
// record and returns at once (ErrLedgerFull when the queue is full); with
// it, it returns once the record is committed.
func (l *Ledger) Write(ctx context.Context, r *ledger.Record) error { return l.w.Write(ctx, r) }

// Flush waits until every record written so far is committed (or failed).
func (l *Ledger) Flush(ctx context.Context) error { return l.w.Flush(ctx) }

// Stats returns the ledger's counters.
func (l *Ledger) Stats() LedgerStats { return LedgerStats(l.w.Stats()) }

func (l *Ledger) close() { l.w.Close() }

// commit appends a batch to the chain in one transaction.
func (l *Ledger) commit(ctx context.Context, batch []ledger.Record) error {
	tx, err := l.s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var head ledger.Head
	if err := tx.QueryRow(ctx, "SELECT head_seq, head_hash FROM ledger_chain WHERE id = 1 FOR UPDATE").Scan(&head.Seq, &head.Hash); err != nil {
		return fmt.Errorf("reading the chain head: %w", err)
	}
	head = sqlledger.Chain(head, batch)
	rows := make([][]any, len(batch))
	for i := range batch {
		rows[i] = sqlledger.Values(&batch[i])
	}
	if len(rows) < 8 {
		// A few rows go faster as one INSERT than through COPY.
		var b strings.Builder
		b.WriteString("INSERT INTO ledger (" + strings.Join(sqlledger.Columns, ", ") + ") VALUES ")
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
	} else if _, err := tx.CopyFrom(ctx, pgx.Identifier{"ledger"}, sqlledger.Columns, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE ledger_chain SET head_seq = $1, head_hash = $2 WHERE id = 1", head.Seq, head.Hash); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Query implements [ledger.Reader]. Rows stream from the database
// as the caller reads them.
func (l *Ledger) Query(ctx context.Context, q ledger.Query) iter.Seq2[ledger.Record, error] {
	return l.s.kv.Ledger().Query(ctx, q)
}

// Head implements [ledger.HeadVerifier]: it returns the chain's last
// point. Note it somewhere the database's administrators cannot write (a
// remote log): a later [Ledger.VerifyHead] (or [ledger.VerifyJSONL]
// on an export) proves that nothing up to it was rewritten, cut or reset.
func (l *Ledger) Head(ctx context.Context) (ledger.Head, error) {
	return l.s.kv.Ledger().Head(ctx)
}

// Verify implements [ledger.Verifier]: it is VerifyHead with no
// kept head.
func (l *Ledger) Verify(ctx context.Context) error { return l.VerifyHead(ctx, ledger.Head{}) }

// VerifyHead implements [ledger.HeadVerifier]: it walks the whole chain,
// from its anchor to its head, in one repeatable-read transaction.
func (l *Ledger) VerifyHead(ctx context.Context, kept ledger.Head) error {
	tx, err := l.s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	defer tx.Rollback(ctx)
	var head, anchor ledger.Head
	if err := tx.QueryRow(ctx, "SELECT head_seq, head_hash, anchor_seq, anchor_hash FROM ledger_chain WHERE id = 1").
		Scan(&head.Seq, &head.Hash, &anchor.Seq, &anchor.Hash); err != nil {
		return fmt.Errorf("pgstore: reading the chain: %w", err)
	}
	rows, err := tx.Query(ctx, sqlledger.SelectAll+" ORDER BY seq")
	if err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	defer rows.Close()
	return ledger.VerifyBetween(sqlledger.Records(rows), anchor, head, kept)
}

// Export writes the records q selects as JSON lines ([ledger.WriteJSONL]).
// An export of every record (the zero query) keeps the chain: verify it
// offline with [ledger.VerifyJSONL], against a head kept elsewhere.
func (l *Ledger) Export(ctx context.Context, w io.Writer, q ledger.Query) error {
	return ledger.WriteJSONL(w, l.Query(ctx, q))
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
