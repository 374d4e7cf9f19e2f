package adapter

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/agentadapter/agentadapter/adapter/internal/ledgerwriter"
	"github.com/agentadapter/agentadapter/adapter/internal/redact"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// ledgerWriter is the executor's ledger writer (adapter/internal/ledgerwriter)
// for results of this package.
type ledgerWriter struct{ w *ledgerwriter.Writer[*Result] }

// records recycles the records the executor hands its ledger writer.
var records = &ledgerwriter.Records

func newLedgerWriter(l ledger.Ledger, buf int, wait time.Duration, redact func(string, json.RawMessage) json.RawMessage, red *redact.Redactor, logger *slog.Logger) *ledgerWriter {
	return &ledgerWriter{ledgerwriter.New(l, buf, wait, resultHashOrNone, redact, red, logger)}
}

// resultHashOrNone is the ResultHash of a record's result, "" for none.
func resultHashOrNone(r *Result) string {
	if r == nil {
		return ""
	}
	return ResultHash(r)
}

func (w *ledgerWriter) enqueue(ctx context.Context, r *ledger.Record, res *Result) {
	w.w.Enqueue(ctx, r, res)
}

func (w *ledgerWriter) flush(ctx context.Context) error    { return w.w.Flush(ctx) }
func (w *ledgerWriter) shutdown(ctx context.Context) error { return w.w.Shutdown(ctx) }

func (w *ledgerWriter) stats() LedgerStats {
	written, failed, dropped := w.w.Stats()
	return LedgerStats{Written: written, Failed: failed, Dropped: dropped}
}
