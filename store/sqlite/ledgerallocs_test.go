package sqlitestore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// TestLedgerCommitAllocs bounds the allocations of a durable write (one
// record, one commit), 64 today: a regression (a statement prepared per
// commit again, a copy per column) shows here. The statements prepared
// once cost 6 allocations more than preparing three per commit (the
// Tx.StmtContext wrappers) but save the SQL parse: BenchmarkLedgerCommit
// on tmpfs, 91–194 µs vs 214–504 µs per commit (#30).
func TestLedgerCommitAllocs(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "l.db"), &Options{Durable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l := s.Ledger()
	r := ledger.Record{Time: time.Now(), Tool: "echo", Source: "mcp:up", Outcome: "ok"}
	write := func() {
		rec := r
		if err := l.Write(ctx, &rec); err != nil {
			t.Fatal(err)
		}
	}
	write()
	n := testing.AllocsPerRun(200, write)
	t.Logf("%.0f allocations per durable write", n)
	if n > ledgerAllocsMax {
		t.Errorf("%.0f allocations per durable write, want ≤ %d", n, ledgerAllocsMax)
	}
	if err := l.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}

const ledgerAllocsMax = 80

// BenchmarkLedgerCommit is one durable write: a record, a commit.
func BenchmarkLedgerCommit(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "l.db"), &Options{Durable: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	l := s.Ledger()
	for b.Loop() {
		r := ledger.Record{Time: time.Now(), Tool: "echo", Source: "mcp:up", Outcome: "ok"}
		if err := l.Write(ctx, &r); err != nil {
			b.Fatal(err)
		}
	}
}
