package sqlledger

import (
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// Columns are the ledger table's columns, in the order of [Values] and
// [Scan].
var Columns = []string{"seq", "time", "call_id", "run_id", "tool", "source", "integration", "subject", "args", "outcome", "message",
	"approval", "approver", "requester", "ticket", "cache_hit", "duration_ns", "result_bytes", "args_hash", "result_hash", "prev", "hash", "credential"}

// SelectAll selects every column of the ledger table; add a WHERE.
var SelectAll = "SELECT " + strings.Join(Columns, ", ") + " FROM ledger"

// Values returns r's row, in the order of Columns.
func Values(r *ledger.Record) []any {
	var args []byte
	if r.Args != nil {
		args = r.Args
	}
	return []any{r.Seq, r.Time.UnixNano(), r.CallID, r.RunID, r.Tool, r.Source, r.Integration, r.Subject,
		args, r.Outcome, r.Message, r.Approval, r.Approver, r.Requester, r.Ticket, r.CacheHit, int64(r.Duration), int64(r.ResultBytes),
		r.ArgsHash, r.ResultHash, r.Prev, r.Hash, r.Credential}
}

// Scan reads a row of Columns.
func Scan(row interface{ Scan(...any) error }) (ledger.Record, error) {
	var r ledger.Record
	var t, d, n int64
	var args []byte
	err := row.Scan(&r.Seq, &t, &r.CallID, &r.RunID, &r.Tool, &r.Source, &r.Integration, &r.Subject, &args,
		&r.Outcome, &r.Message, &r.Approval, &r.Approver, &r.Requester, &r.Ticket, &r.CacheHit, &d, &n,
		&r.ArgsHash, &r.ResultHash, &r.Prev, &r.Hash, &r.Credential)
	r.Time = time.Unix(0, t).UTC()
	r.Duration = time.Duration(d)
	r.ResultBytes = int(n)
	if args != nil {
		r.Args = args
	}
	return r, err
}

// Query returns the statement selecting the records q selects, in its
// order, and its arguments; param(n) spells the n-th parameter (from 1):
// "?" for SQLite, "$n" for PostgreSQL.
func Query(q ledger.Query, param func(n int) string) (string, []any) {
	var where []string
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, cond+param(len(args)))
	}
	if q.Run != "" {
		add("run_id = ", q.Run)
	}
	if q.Tool != "" {
		add("tool = ", q.Tool)
	}
	if q.Subject != "" {
		add("subject = ", q.Subject)
	}
	if q.Outcome != "" {
		add("outcome = ", q.Outcome)
	}
	if q.Ticket != "" {
		add("ticket <> '' AND ticket = ", q.Ticket) // the first term lets the partial index serve
	}
	if !q.Since.IsZero() {
		add("time >= ", q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		add("time < ", q.Until.UnixNano())
	}
	order := " ORDER BY seq"
	if q.Newest {
		order += " DESC"
		if q.After != 0 {
			add("seq < ", q.After)
		}
	} else if q.After != 0 {
		add("seq > ", q.After)
	}
	stmt := SelectAll
	if len(where) > 0 {
		stmt += " WHERE " + strings.Join(where, " AND ")
	}
	stmt += order
	if q.Limit > 0 {
		stmt += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	return stmt, args
}

// Rows are the rows of a query, as database/sql and pgx both have them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// Records yields the records of rows (of Columns), then the rows' error
// if any; it stops at the first error. The caller closes rows.
func Records(rows Rows) iter.Seq2[ledger.Record, error] {
	return func(yield func(ledger.Record, error) bool) {
		for rows.Next() {
			r, err := Scan(rows)
			if !yield(r, err) || err != nil {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(ledger.Record{}, err)
		}
	}
}
