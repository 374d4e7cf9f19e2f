package sqlitestore

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/adaptertest"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// newDB returns an opener of Stores on a new database file; every Store
// it opens is closed when the test ends.
func newDB(t testing.TB, opts *Options) adaptertest.Opener[*Store] {
	path := filepath.Join(t.TempDir(), "state.db")
	return func() *Store {
		s, err := Open(context.Background(), path, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s
	}
}

func ledgers(opts *Options) func(t *testing.T) adaptertest.Opener[adapter.Ledger] {
	return func(t *testing.T) adaptertest.Opener[adapter.Ledger] {
		open := newDB(t, opts)
		return func() adapter.Ledger { return open().Ledger() }
	}
}

func TestLedger(t *testing.T) {
	for name, opts := range map[string]*Options{"batched": nil, "durable": {Durable: true}} {
		t.Run(name, func(t *testing.T) {
			adaptertest.TestLedger(t, func(t *testing.T) (adapter.Ledger, func() []adapter.Record) {
				l := newDB(t, opts)().Ledger()
				return l, func() []adapter.Record {
					if err := l.Flush(context.Background()); err != nil {
						t.Fatal(err)
					}
					var out []adapter.Record
					for r, err := range l.Query(context.Background(), adapter.LedgerQuery{}) {
						if err != nil {
							t.Fatal(err)
						}
						out = append(out, r)
					}
					return out
				}
			})
			adaptertest.TestLedgerQuery(t, ledgers(opts))
			adaptertest.TestLedgerChain(t, ledgers(opts))
			adaptertest.TestLedgerReplicas(t, ledgers(opts))
		})
	}
}

func TestCache(t *testing.T) {
	adaptertest.TestCache(t, func(t *testing.T) adapter.Cache { return newDB(t, nil)().Cache() })
	adaptertest.TestCacheReplicas(t, func(t *testing.T) adaptertest.Opener[adapter.Cache] {
		open := newDB(t, nil)
		return func() adapter.Cache { return open().Cache() }
	})
}

func TestTickets(t *testing.T) {
	adaptertest.TestTicketStore(t, func(t *testing.T) adapter.TicketStore { return newDB(t, nil)().Tickets() })
	adaptertest.TestTicketReplicas(t, func(t *testing.T) adaptertest.Opener[adapter.TicketStore] {
		open := newDB(t, nil)
		return func() adapter.TicketStore { return open().Tickets() }
	})
}

func TestPins(t *testing.T) {
	adaptertest.TestPinStore(t, func(t *testing.T) adaptertest.Opener[mcpadapter.PinStore] {
		open := newDB(t, nil)
		return func() mcpadapter.PinStore { return open().Pins() }
	})
}

func TestTokens(t *testing.T) {
	adaptertest.TestTokenStore(t, func(t *testing.T) mcpadapter.TokenStore { return newDB(t, nil)().Tokens() })
}

func TestSchemaTooNew(t *testing.T) {
	open := newDB(t, nil)
	s := open()
	if _, err := s.db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), s.path, nil)
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Errorf("Open of a newer schema: %v, want ErrSchemaTooNew", err)
	}
}

// write writes n sample records and waits for them.
func write(t *testing.T, l *Ledger, n int, at func(i int) time.Time) {
	t.Helper()
	for i := range n {
		r := adapter.Record{Time: at(i), CallID: "c" + string(rune('a'+i)), Tool: "t", Outcome: "ok", Args: []byte(`{"i":1}`)}
		if err := l.Write(context.Background(), &r); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestTamper edits, deletes and inserts records in the database behind the
// store's back; Verify names the first broken record.
func TestTamper(t *testing.T) {
	now := time.Now()
	at := func(i int) time.Time { return now.Add(time.Duration(i) * time.Second) }
	tests := []struct {
		name    string
		sql     []string
		seq     int64
		problem adapter.ChainProblem
	}{
		{"Edit", []string{`UPDATE ledger SET outcome = 'tool_error' WHERE seq = 4`}, 4, adapter.ChainEdited},
		{"EditArgs", []string{`UPDATE ledger SET args = '{"i":2}' WHERE seq = 2`}, 2, adapter.ChainEdited},
		{"Delete", []string{`DELETE FROM ledger WHERE seq = 5`}, 5, adapter.ChainDeleted},
		{"DeleteLast", []string{`DELETE FROM ledger WHERE seq = 10`}, 10, adapter.ChainDeleted},
		{"DeleteAndRenumber", []string{`DELETE FROM ledger WHERE seq = 3`, `UPDATE ledger SET seq = -(seq - 1) WHERE seq > 3`, `UPDATE ledger SET seq = -seq WHERE seq < 0`,
			`UPDATE ledger_chain SET head_seq = 9`}, 3, adapter.ChainDeleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newDB(t, nil)()
			write(t, s.Ledger(), 10, at)
			if err := s.Ledger().Verify(context.Background()); err != nil {
				t.Fatalf("Verify before tampering: %v", err)
			}
			for _, q := range tt.sql {
				if _, err := s.db.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			err := s.Ledger().Verify(context.Background())
			var ce *adapter.ChainError
			if !errors.As(err, &ce) || ce.Seq != tt.seq || ce.Problem != tt.problem {
				t.Errorf("Verify = %v, want record %d %s", err, tt.seq, tt.problem)
			}
		})
	}
	t.Run("InsertForgedInMiddle", func(t *testing.T) {
		s := newDB(t, nil)()
		write(t, s.Ledger(), 10, at)
		// A forger who knows the hash function inserts a self-consistent
		// record after seq 4 and renumbers the rest.
		var prev string
		if err := s.db.QueryRow("SELECT hash FROM ledger WHERE seq = 4").Scan(&prev); err != nil {
			t.Fatal(err)
		}
		forged := adapter.Record{Time: at(4), CallID: "forged", Tool: "t", Outcome: "ok", Prev: prev}
		forged.Hash = adapter.ChainHash(&forged)
		for _, q := range []string{`UPDATE ledger SET seq = -(seq + 1) WHERE seq >= 5`, `UPDATE ledger SET seq = -seq WHERE seq < 0`} {
			if _, err := s.db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.db.Exec(insertRecord, 5, forged.Time.UnixNano(), forged.CallID, "", "t", "", "", "", nil, "ok", "", "", "", "", "", false, 0, 0, "", "", forged.Prev, forged.Hash); err != nil {
			t.Fatal(err)
		}
		err := s.Ledger().Verify(context.Background())
		var ce *adapter.ChainError
		if !errors.As(err, &ce) || ce.Seq != 5 || ce.Problem != adapter.ChainInserted {
			t.Errorf("Verify = %v, want record 5 inserted", err)
		}
	})
	t.Run("InsertForgedAtEnd", func(t *testing.T) {
		s := newDB(t, nil)()
		write(t, s.Ledger(), 10, at)
		h, err := s.Ledger().Head(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		forged := adapter.Record{Time: at(10), CallID: "forged", Tool: "t", Outcome: "ok", Prev: h.Hash}
		forged.Hash = adapter.ChainHash(&forged)
		if _, err := s.db.Exec(insertRecord, 11, forged.Time.UnixNano(), forged.CallID, "", "t", "", "", "", nil, "ok", "", "", "", "", "", false, 0, 0, "", "", forged.Prev, forged.Hash); err != nil {
			t.Fatal(err)
		}
		err = s.Ledger().Verify(context.Background())
		var ce *adapter.ChainError
		if !errors.As(err, &ce) || ce.Seq != 11 || ce.Problem != adapter.ChainInserted {
			t.Errorf("Verify = %v, want record 11 inserted", err)
		}
	})
}

func TestRetention(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s := newDB(t, &Options{Retention: time.Hour, Now: func() time.Time { return now }})()
	// Records 0..9 are 10 h to 1 h old... the last five are recent.
	write(t, s.Ledger(), 10, func(i int) time.Time {
		if i < 5 {
			return now.Add(-time.Duration(10-i) * time.Hour)
		}
		return now.Add(-time.Duration(10-i) * time.Minute)
	})
	if err := s.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for r, err := range s.Ledger().Query(context.Background(), adapter.LedgerQuery{}) {
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, r.Seq)
	}
	if len(seqs) != 5 || seqs[0] != 6 {
		t.Errorf("after the sweep, records %v; want 6..10", seqs)
	}
	if err := s.Ledger().Verify(context.Background()); err != nil {
		t.Errorf("Verify after retention: %v", err)
	}
}
