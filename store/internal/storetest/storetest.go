// Package storetest holds the tests and benchmarks the database store
// packages (store/sqlite, store/postgres) share: the adaptertest
// conformance checks wired to a store, tampering with the ledger behind
// the store's back, retention, executors in separate processes on one
// database (approvals, wake-ups, pins, the ledger), a SIGKILL in the
// middle of a run, and the benchmarks of docs/benchmarks.md. A store
// package describes itself with a [Kit] and calls these from its tests.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/adaptertest"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/mcpadaptertest"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
	"github.com/agentadapter/agentadapter/store/internal/migrations"
	"github.com/agentadapter/agentadapter/store/internal/sqlledger"
)

// Ledger is what a store's ledger implements.
type Ledger interface {
	ledger.Durable
	ledger.Reader
	ledger.HeadVerifier
	Flush(ctx context.Context) error
	Export(ctx context.Context, w io.Writer, q ledger.Query) error
}

// Tickets is what a store's ticket store implements.
type Tickets interface {
	approval.Store
	approval.Editor
	Wait(ctx context.Context, id string) (*approval.Ticket, error)
}

// Store is one open instance of a store package's Store.
type Store struct {
	Ledger  Ledger
	Tickets Tickets
	Cache   adapter.Cache
	Pins    pin.Store
	Tokens  token.Store
	// Sessions is the store's table of login sessions (see TestSessions).
	Sessions SessionKV
	// SignIns is the store's table of sign-ins in progress (see
	// TestSignIns).
	SignIns SignInTable
	// Standing is the store's table of standing decisions (see
	// TestStanding).
	Standing approval.StandingStore
	// Secret is the store's Secret (see TestSecret).
	Secret func(ctx context.Context, name string, size int) ([]byte, error)
	// LedgerStats returns the ledger's counters.
	LedgerStats func() sqlledger.Stats
	// Sweep runs the store's retention sweep once.
	Sweep func(ctx context.Context) error
	// Exec runs a statement on the database, behind the store's back.
	Exec func(ctx context.Context, stmt string, args ...any) error
	// QueryRow runs a query of one row on the database.
	QueryRow func(ctx context.Context, stmt string, args ...any) interface{ Scan(...any) error }
	Close    func() error
}

// Options are the store options the tests vary; Open maps them to the
// store's own.
type Options struct {
	Durable      bool
	Retention    time.Duration
	PollInterval time.Duration
	Now          func() time.Time
	// Tokens are the token store's options (its encryption keys).
	Tokens token.StoreOptions
}

// Kit describes a store package to the tests.
type Kit struct {
	// NewDB makes an empty database and returns what Open takes: a file
	// path, a DSN.
	NewDB func(t testing.TB) string
	// Open opens a Store on db.
	Open func(ctx context.Context, db string, o Options) (*Store, error)
	// Param spells the n-th (from 1) parameter of a statement: "?", "$1".
	Param func(n int) string
	// ErrLedgerFull is the store's sentinel for a refused record.
	ErrLedgerFull error
	// ErrSessionTooLarge is the store's sentinel for a session key or
	// value over MaxSessionKey or MaxSessionValue, its limits.
	ErrSessionTooLarge             error
	MaxSessionKey, MaxSessionValue int
	// ChildPollInterval is Options.PollInterval in the child processes of
	// TestReplicaProcesses: a store that notifies other processes sets it
	// long, to show that the notification woke the waiter.
	ChildPollInterval time.Duration
}

// Opener returns an opener of Stores on a new database; every Store it
// opens is closed when the test ends.
func (k *Kit) Opener(t testing.TB, o Options) adaptertest.Opener[*Store] {
	db := k.NewDB(t)
	return func() *Store { return k.open(t, db, o) }
}

func (k *Kit) open(t testing.TB, db string, o Options) *Store {
	t.Helper()
	s, err := k.Open(context.Background(), db, o)
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

func opener[T any](k *Kit, o Options, part func(*Store) T) func(t *testing.T) adaptertest.Opener[T] {
	return func(t *testing.T) adaptertest.Opener[T] {
		open := k.Opener(t, o)
		return func() T { return part(open()) }
	}
}

// TestConformance runs every adaptertest check on the store's ledger (in
// both write modes), cache, tickets, pins and tokens, with replicas.
func TestConformance(t *testing.T, k *Kit) {
	for name, o := range map[string]Options{"batched": {}, "durable": {Durable: true}} {
		t.Run("Ledger/"+name, func(t *testing.T) {
			adaptertest.TestLedger(t, func(t *testing.T) (ledger.Ledger, func() []ledger.Record) {
				l := k.Opener(t, o)().Ledger
				return l, func() []ledger.Record {
					if err := l.Flush(context.Background()); err != nil {
						t.Fatal(err)
					}
					var out []ledger.Record
					for r, err := range l.Query(context.Background(), ledger.Query{}) {
						if err != nil {
							t.Fatal(err)
						}
						out = append(out, r)
					}
					return out
				}
			})
			ledgers := opener(k, o, func(s *Store) ledger.Ledger { return s.Ledger })
			adaptertest.TestLedgerQuery(t, ledgers)
			adaptertest.TestLedgerChain(t, ledgers)
			adaptertest.TestLedgerReplicas(t, ledgers)
		})
	}
	t.Run("Cache", func(t *testing.T) {
		adaptertest.TestCache(t, func(t *testing.T) adapter.Cache { return k.Opener(t, Options{})().Cache })
		adaptertest.TestCacheReplicas(t, opener(k, Options{}, func(s *Store) adapter.Cache { return s.Cache }))
	})
	t.Run("Tickets", func(t *testing.T) {
		adaptertest.TestTicketStore(t, func(t *testing.T) approval.Store { return k.Opener(t, Options{})().Tickets })
		tickets := opener(k, Options{}, func(s *Store) approval.Store { return s.Tickets })
		adaptertest.TestTicketReplicas(t, tickets)
		adaptertest.TestTicketEditor(t, tickets)
	})
	t.Run("Pins", func(t *testing.T) {
		mcpadaptertest.TestPinStore(t, opener(k, Options{}, func(s *Store) pin.Store { return s.Pins }))
	})
	t.Run("Tokens", func(t *testing.T) {
		mcpadaptertest.TestTokenStore(t, func(t *testing.T) token.Store { return k.Opener(t, Options{})().Tokens })
	})
	t.Run("TokensEncrypted", func(t *testing.T) {
		o := Options{Tokens: token.StoreOptions{Keys: testKeyring(t), PerUser: true}}
		mcpadaptertest.TestTokenStore(t, func(t *testing.T) token.Store { return k.Opener(t, o)().Tokens })
		mcpadaptertest.TestTokenIsolation(t, func(t *testing.T) token.Store { return k.Opener(t, o)().Tokens })
	})
}

// write writes n sample records and waits for them.
func write(t *testing.T, l Ledger, n int, at func(i int) time.Time) {
	t.Helper()
	for i := range n {
		r := ledger.Record{Time: at(i), CallID: "c" + string(rune('a'+i)), Tool: "t", Outcome: "ok", Args: []byte(`{"i":1}`)}
		if err := l.Write(context.Background(), &r); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (k *Kit) insertRecord() string {
	ps := make([]string, len(sqlledger.Columns))
	for i := range ps {
		ps[i] = k.Param(i + 1)
	}
	return "INSERT INTO ledger (" + strings.Join(sqlledger.Columns, ", ") + ") VALUES (" + strings.Join(ps, ", ") + ")"
}

// TestTamper edits, deletes and inserts records in the database behind the
// store's back; Verify names the first broken record.
func TestTamper(t *testing.T, k *Kit) {
	ctx := context.Background()
	now := time.Now()
	at := func(i int) time.Time { return now.Add(time.Duration(i) * time.Second) }
	type stmt struct {
		sql  string
		args []any
	}
	tests := []struct {
		name    string
		sql     []stmt
		seq     int64
		problem ledger.Problem
	}{
		{"Edit", []stmt{{`UPDATE ledger SET outcome = 'tool_error' WHERE seq = 4`, nil}}, 4, ledger.Edited},
		{"EditArgs", []stmt{{`UPDATE ledger SET args = ` + k.Param(1) + ` WHERE seq = 2`, []any{[]byte(`{"i":2}`)}}}, 2, ledger.Edited},
		{"Delete", []stmt{{`DELETE FROM ledger WHERE seq = 5`, nil}}, 5, ledger.Deleted},
		{"DeleteLast", []stmt{{`DELETE FROM ledger WHERE seq = 10`, nil}}, 10, ledger.Deleted},
		{"DeleteAndRenumber", []stmt{{`DELETE FROM ledger WHERE seq = 3`, nil}, {`UPDATE ledger SET seq = -(seq - 1) WHERE seq > 3`, nil},
			{`UPDATE ledger SET seq = -seq WHERE seq < 0`, nil}, {`UPDATE ledger_chain SET head_seq = 9`, nil}}, 3, ledger.Deleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := k.Opener(t, Options{})()
			write(t, s.Ledger, 10, at)
			if err := s.Ledger.Verify(ctx); err != nil {
				t.Fatalf("Verify before tampering: %v", err)
			}
			for _, q := range tt.sql {
				if err := s.Exec(ctx, q.sql, q.args...); err != nil {
					t.Fatalf("%s: %v", q.sql, err)
				}
			}
			err := s.Ledger.Verify(ctx)
			var ce *ledger.ChainError
			if !errors.As(err, &ce) || ce.Seq != tt.seq || ce.Problem != tt.problem {
				t.Errorf("Verify = %v, want record %d %s", err, tt.seq, tt.problem)
			}
		})
	}
	t.Run("InsertForgedInMiddle", func(t *testing.T) {
		s := k.Opener(t, Options{})()
		write(t, s.Ledger, 10, at)
		// A forger who knows the hash function inserts a self-consistent
		// record after seq 4 and renumbers the rest.
		var prev string
		if err := s.QueryRow(ctx, "SELECT hash FROM ledger WHERE seq = 4").Scan(&prev); err != nil {
			t.Fatal(err)
		}
		forged := ledger.Record{Seq: 5, Time: at(4), CallID: "forged", Tool: "t", Outcome: "ok", Prev: prev}
		forged.Hash = ledger.Hash(&forged)
		for _, q := range []string{`UPDATE ledger SET seq = -(seq + 1) WHERE seq >= 5`, `UPDATE ledger SET seq = -seq WHERE seq < 0`} {
			if err := s.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Exec(ctx, k.insertRecord(), sqlledger.Values(&forged)...); err != nil {
			t.Fatal(err)
		}
		err := s.Ledger.Verify(ctx)
		var ce *ledger.ChainError
		if !errors.As(err, &ce) || ce.Seq != 5 || ce.Problem != ledger.Inserted {
			t.Errorf("Verify = %v, want record 5 inserted", err)
		}
	})
	t.Run("InsertForgedAtEnd", func(t *testing.T) {
		s := k.Opener(t, Options{})()
		write(t, s.Ledger, 10, at)
		h, err := s.Ledger.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		forged := ledger.Record{Seq: 11, Time: at(10), CallID: "forged", Tool: "t", Outcome: "ok", Prev: h.Hash}
		forged.Hash = ledger.Hash(&forged)
		if err := s.Exec(ctx, k.insertRecord(), sqlledger.Values(&forged)...); err != nil {
			t.Fatal(err)
		}
		err = s.Ledger.Verify(ctx)
		var ce *ledger.ChainError
		if !errors.As(err, &ce) || ce.Seq != 11 || ce.Problem != ledger.Inserted {
			t.Errorf("Verify = %v, want record 11 inserted", err)
		}
	})
}

// TestRetention checks that the sweep deletes the records older than the
// retention, and only a prefix of the chain, which still verifies.
func TestRetention(t *testing.T, k *Kit) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s := k.Opener(t, Options{Retention: time.Hour, Now: func() time.Time { return now }})()
	// Records 0..4 are 10 h to 6 h old, the last five minutes old.
	write(t, s.Ledger, 10, func(i int) time.Time {
		if i < 5 {
			return now.Add(-time.Duration(10-i) * time.Hour)
		}
		return now.Add(-time.Duration(10-i) * time.Minute)
	})
	if err := s.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for r, err := range s.Ledger.Query(context.Background(), ledger.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, r.Seq)
	}
	if len(seqs) != 5 || seqs[0] != 6 {
		t.Errorf("after the sweep, records %v; want 6..10", seqs)
	}
	if err := s.Ledger.Verify(context.Background()); err != nil {
		t.Errorf("Verify after retention: %v", err)
	}
}

// TestSchemaTooNew checks that Open refuses a database whose schema a
// newer version wrote: bump is the statement that sets the version to 99,
// errTooNew the store's sentinel.
func TestSchemaTooNew(t *testing.T, k *Kit, bump string, errTooNew error) {
	db := k.NewDB(t)
	s := k.open(t, db, Options{})
	if err := s.Exec(context.Background(), bump); err != nil {
		t.Fatal(err)
	}
	s2, err := k.Open(context.Background(), db, Options{})
	if err == nil {
		s2.Close()
	}
	if !errors.Is(err, errTooNew) {
		t.Errorf("Open of a newer schema: %v, want %v", err, errTooNew)
	}
}

// TestTicketCounts attacks the open-ticket counts the caps read (tables
// ticket_open and ticket_open_total, kept by triggers): two replicas
// create capped tickets, approve, deny and consume them, and let them
// expire, all at once for the same few subjects. No operation may fail
// but for a cap, and the counts must then equal the open tickets.
func TestTicketCounts(t *testing.T, k *Kit) {
	ctx := context.Background()
	open := k.Opener(t, Options{})
	a, b := open(), open()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	caps := approval.Caps{PerSubject: 6, Total: 20}
	var wg sync.WaitGroup
	for w := range 8 {
		s := a
		if w%2 == 1 {
			s = b
		}
		wg.Go(func() {
			for i := range 30 {
				// Every tenth round moves the clock past the earlier
				// tickets' expiry, so that Create deletes them.
				at := t0.Add(time.Duration(i/10) * time.Hour)
				subject := fmt.Sprint("u", (w+i)%3)
				id := fmt.Sprintf("w%d-%d", w, i)
				err := s.Tickets.Create(ctx, &approval.Ticket{ID: id, Tool: "rm", ArgsHash: id, Scope: approval.ScopeSubject,
					ScopeID: subject, Subject: subject, State: approval.TicketPending, Created: at, Expires: at.Add(30 * time.Minute)}, caps)
				if errors.Is(err, adapter.ErrTicketCap) {
					continue
				}
				if err != nil {
					t.Errorf("Create: %v", err)
					return
				}
				switch i % 3 {
				case 0: // left open
				case 1:
					err = s.Tickets.Transition(ctx, id, approval.TicketPending, approval.TicketDenied, "no", "op", at)
				case 2:
					if err = s.Tickets.Transition(ctx, id, approval.TicketPending, approval.TicketApproved, "", "op", at); err == nil {
						err = s.Tickets.Transition(ctx, id, approval.TicketApproved, approval.TicketConsumed, "", "", at)
					}
				}
				// A faster worker's later clock may have expired the ticket.
				if err != nil && !errors.Is(err, adapter.ErrTicketNotFound) {
					t.Errorf("Transition: %v", err)
				}
			}
		})
	}
	wg.Wait()
	var wrong, total, want int
	if err := a.QueryRow(ctx, `SELECT count(*) FROM ticket_open o
		FULL JOIN (SELECT subject, count(*) AS c FROM tickets WHERE state <> 4 GROUP BY subject) t ON t.subject = o.subject
		WHERE coalesce(o.n, 0) <> coalesce(t.c, 0)`).Scan(&wrong); err != nil {
		t.Fatal(err)
	}
	if err := a.QueryRow(ctx, `SELECT (SELECT n FROM ticket_open_total), (SELECT count(*) FROM tickets WHERE state <> 4)`).Scan(&total, &want); err != nil {
		t.Fatal(err)
	}
	if wrong != 0 || total != want {
		t.Errorf("%d subjects' counts are wrong; the total is %d, want %d", wrong, total, want)
	}
	if want == 0 || want > caps.Total {
		t.Errorf("%d open tickets left, want some and at most %d", want, caps.Total)
	}
}

// TestMigrateTicketCounts brings a database holding tickets from schema
// version 4 to the latest and checks that the open-ticket counts the
// caps read (version 5) start from the tickets already there. exec runs
// a statement on the database at db without the store; ms are the store's
// migrations; version(4) sets the version as the store records it.
func TestMigrateTicketCounts(t *testing.T, k *Kit, ms []migrations.Migration, exec func(db, stmt string) error, version func(v int) string) {
	ctx := context.Background()
	db := k.NewDB(t)
	for _, m := range ms[:4] {
		if err := exec(db, m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
	}
	if err := exec(db, version(4)); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i, tk := range []struct {
		subject string
		state   approval.TicketState
	}{
		{"ann", approval.TicketPending}, {"ann", approval.TicketApproved}, {"ann", approval.TicketDenied},
		{"ann", approval.TicketConsumed}, {"bob", approval.TicketPending}, {"bob", approval.TicketConsumed},
	} {
		if err := exec(db, fmt.Sprintf(`INSERT INTO tickets (id, tool, args_hash, args_size, scope, scope_id, call_id, run_id, session,
			subject, state, reason, approver, created, expires, updated) VALUES ('old-%d', 'rm', 'h%d', 0, 'subject', '%s', '', '', '', '%s', %d, '', '', %d, %d, 0)`,
			i, i, tk.subject, tk.subject, int(tk.state), now.UnixNano(), now.Add(time.Hour).UnixNano())); err != nil {
			t.Fatal(err)
		}
	}
	s := k.open(t, db, Options{})
	mk := func(id, subject string, caps approval.Caps) error {
		return s.Tickets.Create(ctx, &approval.Ticket{ID: id, Tool: "rm", ArgsHash: id, Scope: approval.ScopeSubject, ScopeID: subject,
			Subject: subject, State: approval.TicketPending, Created: now, Expires: now.Add(time.Hour)}, caps)
	}
	// ann has 3 open tickets, bob 1: 4 in all.
	if err := mk("a1", "ann", approval.Caps{PerSubject: 3}); !errors.Is(err, adapter.ErrTicketCap) {
		t.Errorf("ann's fourth open ticket with a cap of 3: %v, want ErrTicketCap", err)
	}
	if err := mk("a2", "ann", approval.Caps{PerSubject: 4}); err != nil {
		t.Errorf("ann's fourth open ticket with a cap of 4: %v", err)
	}
	if err := mk("b1", "bob", approval.Caps{Total: 5}); !errors.Is(err, adapter.ErrTicketCap) {
		t.Errorf("a sixth open ticket with a total cap of 5: %v, want ErrTicketCap", err)
	}
	if err := mk("b2", "bob", approval.Caps{PerSubject: 2, Total: 6}); err != nil {
		t.Errorf("bob's second open ticket, the sixth in all, with caps 2 and 6: %v", err)
	}
}
