package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"time"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/store/internal/sqlledger"
)

// ErrLedgerFull is returned by [Ledger.Write] when the batch buffer is
// full (the database is slower than the calls); the executor counts the
// record as failed.
var ErrLedgerFull = errors.New("sqlitestore: ledger buffer full, record refused")

// ErrClosed is returned by operations on a closed [Store].
var ErrClosed = errors.New("sqlitestore: store closed")

// Ledger is a chained, queryable [ledger.Ledger] in the database. All the
// Stores on one database share one hash chain: each batch of records is
// appended under the database's write lock. It implements
// [ledger.Reader], [ledger.HeadVerifier] and
// [ledger.Durable].
type Ledger struct {
	s *Store
	w *sqlledger.Writer
	// stmts are the commit's statements, prepared on the database once (by
	// the writer's goroutine, the only one that commits) and bound to each
	// transaction with Tx.StmtContext, which reuses a connection's prepared
	// statement: a commit no longer parses its SQL again.
	stmts *ledgerStmts
}

type ledgerStmts struct{ head, insert, setHead *sql.Stmt }

func (l *Ledger) prepared(ctx context.Context) (*ledgerStmts, error) {
	if l.stmts != nil {
		return l.stmts, nil
	}
	var st ledgerStmts
	var err error
	for _, p := range []struct {
		to  **sql.Stmt
		sql string
	}{{&st.head, selectHead}, {&st.insert, insertRecord}, {&st.setHead, updateHead}} {
		if *p.to, err = l.s.db.PrepareContext(ctx, p.sql); err != nil {
			st.close()
			return nil, err
		}
	}
	l.stmts = &st
	return l.stmts, nil
}

func (st *ledgerStmts) close() {
	for _, s := range []*sql.Stmt{st.head, st.insert, st.setHead} {
		if s != nil {
			s.Close()
		}
	}
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
		Buffer: s.opts.LedgerBuffer, BatchSize: s.opts.BatchSize, Durable: s.opts.Durable, Linger: s.opts.LedgerLinger,
		Backoff: 50 * time.Millisecond, // another process may hold the write lock past the busy timeout
		Full:    ErrLedgerFull, Closed: ErrClosed, Logger: s.logger, Name: "sqlitestore",
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

const (
	selectHead = "SELECT head_seq, head_hash FROM ledger_chain WHERE id = 1"
	updateHead = "UPDATE ledger_chain SET head_seq = ?, head_hash = ? WHERE id = 1"
)

var insertRecord = "INSERT INTO ledger (" + strings.Join(sqlledger.Columns, ", ") + ") VALUES (?" + strings.Repeat(", ?", len(sqlledger.Columns)-1) + ")"

// commit appends a batch to the chain in one transaction.
func (l *Ledger) commit(ctx context.Context, batch []ledger.Record) error {
	tx, err := l.s.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the chain's head is ours
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmts, err := l.prepared(ctx)
	if err != nil {
		return err
	}
	var head ledger.Head
	if err := tx.StmtContext(ctx, stmts.head).QueryRowContext(ctx).Scan(&head.Seq, &head.Hash); err != nil {
		return fmt.Errorf("reading the chain head: %w", err)
	}
	head = sqlledger.Chain(head, batch)
	insert := tx.StmtContext(ctx, stmts.insert)
	for i := range batch {
		if _, err := insert.ExecContext(ctx, sqlledger.Values(&batch[i])...); err != nil {
			return err
		}
	}
	if _, err := tx.StmtContext(ctx, stmts.setHead).ExecContext(ctx, head.Seq, head.Hash); err != nil {
		return err
	}
	return tx.Commit()
}

// Query implements [ledger.Reader]. Records come from the database
// as the query reads them (a consistent snapshot for its duration).
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
// from its anchor to its head, in one read transaction.
func (l *Ledger) VerifyHead(ctx context.Context, kept ledger.Head) error {
	tx, err := l.s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("sqlitestore: %w", err)
	}
	defer tx.Rollback()
	var head, anchor ledger.Head
	if err := tx.QueryRowContext(ctx, "SELECT head_seq, head_hash, anchor_seq, anchor_hash FROM ledger_chain WHERE id = 1").
		Scan(&head.Seq, &head.Hash, &anchor.Seq, &anchor.Hash); err != nil {
		return fmt.Errorf("sqlitestore: reading the chain: %w", err)
	}
	rows, err := tx.QueryContext(ctx, sqlledger.SelectAll+" ORDER BY seq")
	if err != nil {
		return fmt.Errorf("sqlitestore: %w", err)
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

func (l *Ledger) close() {
	l.w.Close() // the writer's goroutine has ended: nothing commits now
	if l.stmts != nil {
		l.stmts.close()
	}
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
	tx, err := l.s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	// The last record of the chunk that is older than cutoff, with no
	// newer record before it (the chain is cut only at a prefix).
	var last sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT max(seq) FROM (SELECT seq, time FROM ledger ORDER BY seq LIMIT ?)
		WHERE seq < coalesce((SELECT min(seq) FROM (SELECT seq, time FROM ledger ORDER BY seq LIMIT ?) WHERE time >= ?), 9223372036854775807)`,
		chunk, chunk, cutoff).Scan(&last)
	if err != nil || !last.Valid {
		return 0, err
	}
	var hash string
	if err := tx.QueryRowContext(ctx, "SELECT hash FROM ledger WHERE seq = ?", last.Int64).Scan(&hash); err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, "DELETE FROM ledger WHERE seq <= ?", last.Int64)
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE ledger_chain SET anchor_seq = ?, anchor_hash = ? WHERE id = 1", last.Int64, hash); err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return n, tx.Commit()
}
