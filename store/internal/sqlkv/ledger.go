package sqlkv

import (
	"context"
	"fmt"
	"iter"
	"strconv"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/store/internal/sqlledger"
)

// Query implements [ledger.Reader]: records stream from the database as
// the caller reads them.
func (l Ledger) Query(ctx context.Context, q ledger.Query) iter.Seq2[ledger.Record, error] {
	stmt, args := sqlledger.Query(q, l.t.param)
	return func(yield func(ledger.Record, error) bool) {
		rows, err := l.t.db.Query(ctx, stmt, args...)
		if err != nil {
			yield(ledger.Record{}, fmt.Errorf("%s: ledger query: %w", l.t.d.Name, err))
			return
		}
		defer rows.Close()
		for r, err := range sqlledger.Records(rows) {
			if err != nil {
				err = fmt.Errorf("%s: ledger query: %w", l.t.d.Name, err)
			}
			if !yield(r, err) {
				return
			}
		}
	}
}

// Head implements [ledger.HeadVerifier]: it returns the chain's last
// point.
func (l Ledger) Head(ctx context.Context) (ledger.Head, error) {
	var h ledger.Head
	err := l.t.db.QueryRow(ctx, "SELECT head_seq, head_hash FROM ledger_chain WHERE id = 1").Scan(&h.Seq, &h.Hash)
	return h, err
}

// param spells the n-th parameter (from 1) in the dialect.
func (t *Tables) param(n int) string {
	if t.d.Numbered {
		return "$" + strconv.Itoa(n)
	}
	return "?"
}
