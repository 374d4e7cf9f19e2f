package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// TestLedgerSlowDatabase holds the database's write lock from another
// connection (a slow or busy database): the batched ledger refuses what
// its buffer cannot take, with ErrLedgerFull, and counts it; Write never
// blocks; once the lock is released every record it took is committed;
// after Close, Write fails with ErrClosed.
func TestLedgerSlowDatabase(t *testing.T) {
	ctx := context.Background()
	path := kit.NewDB(t)
	s, err := Open(ctx, path, &Options{LedgerBuffer: 8, BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := sql.Open("sqlite3", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.BeginTx(ctx, nil) // holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	var took, refused int
	for i := range 100 {
		r := ledger.Record{Time: time.Now(), CallID: "c", Tool: "t", Outcome: "ok"}
		switch err := s.Ledger().Write(ctx, &r); {
		case err == nil:
			took++
		case errors.Is(err, ErrLedgerFull):
			refused++
		default:
			t.Fatalf("Write %d: %v", i, err)
		}
	}
	t.Logf("%d taken, %d refused", took, refused)
	// The writer holds one batch (at most 4) in its stalled commit and
	// the buffer 8 more.
	if took > 12 || refused < 88 {
		t.Errorf("with the database locked, %d records taken and %d refused; want at most 12 taken", took, refused)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := s.Ledger().Flush(ctx); err != nil {
		t.Fatal(err)
	}
	st := s.Ledger().Stats()
	if st.Written != int64(took) || st.Refused != int64(refused) || st.Failed != 0 {
		t.Errorf("stats %+v, want %d written and %d refused", st, took, refused)
	}
	n := 0
	for _, err := range s.Ledger().Query(ctx, ledger.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != took {
		t.Errorf("%d records stored, want the %d taken", n, took)
	}
	if err := s.Ledger().Verify(ctx); err != nil {
		t.Errorf("Verify: %v", err)
	}
	s.Close()
	r := ledger.Record{CallID: "late"}
	if err := s.Ledger().Write(ctx, &r); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v, want ErrClosed", err)
	}
}
