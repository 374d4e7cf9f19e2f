package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/store/internal/migrations"
	"github.com/agentadapter/agentadapter/store/internal/sqlledger"
	"github.com/agentadapter/agentadapter/store/internal/storetest"
)

// kit describes the package to the shared store tests.
var kit = &storetest.Kit{
	NewDB: func(t testing.TB) string { return filepath.Join(t.TempDir(), "state.db") },
	Open: func(ctx context.Context, path string, o storetest.Options) (*storetest.Store, error) {
		s, err := Open(ctx, path, &Options{Durable: o.Durable, Retention: o.Retention, PollInterval: o.PollInterval, Now: o.Now, Tokens: o.Tokens})
		if err != nil {
			return nil, err
		}
		return &storetest.Store{
			Ledger: s.Ledger(), Tickets: s.Tickets(), Cache: s.Cache(), Pins: s.Pins(), Tokens: s.Tokens(), Secret: s.Secret,
			Sessions:    s.Sessions(),
			SignIns:     s.SignIns(),
			Standing:    s.Standing(),
			LedgerStats: func() sqlledger.Stats { return sqlledger.Stats(s.Ledger().Stats()) },
			Sweep:       s.Sweep,
			Exec: func(ctx context.Context, stmt string, args ...any) error {
				_, err := s.db.ExecContext(ctx, stmt, args...)
				return err
			},
			QueryRow: func(ctx context.Context, stmt string, args ...any) interface{ Scan(...any) error } {
				return s.db.QueryRowContext(ctx, stmt, args...)
			},
			Close: s.Close,
		}, nil
	},
	Param:         func(int) string { return "?" },
	ErrLedgerFull: ErrLedgerFull,
	// Other processes see a decision by polling.
	ChildPollInterval: 20 * time.Millisecond,

	// The limits of Sessions.Put.
	ErrSessionTooLarge: ErrSessionTooLarge, MaxSessionKey: MaxSessionKey, MaxSessionValue: MaxSessionValue,
}

func TestMain(m *testing.M) {
	storetest.ChildMain(kit)
	m.Run()
}

func TestConformance(t *testing.T) { storetest.TestConformance(t, kit) }

func TestTamper(t *testing.T) { storetest.TestTamper(t, kit) }

func TestTamperKeptHead(t *testing.T) { storetest.TestTamperKeptHead(t, kit) }

func TestExportVerify(t *testing.T) { storetest.TestExportVerify(t, kit) }

func TestLedgerInvalidUTF8(t *testing.T) { storetest.TestLedgerInvalidUTF8(t, kit) }

func TestRetention(t *testing.T) { storetest.TestRetention(t, kit) }

func TestTicketCounts(t *testing.T) { storetest.TestTicketCounts(t, kit) }

func TestSecret(t *testing.T) { storetest.TestSecret(t, kit) }

func TestSessions(t *testing.T) { storetest.TestSessions(t, kit) }

func TestSignIns(t *testing.T) { storetest.TestSignIns(t, kit) }

// TestReplicaProcesses: the waiter in another process polls every 20 ms.
func TestReplicaProcesses(t *testing.T) { storetest.TestReplicaProcesses(t, kit) }

func TestCrash(t *testing.T) { storetest.TestCrash(t, kit) }

func TestSchemaTooNew(t *testing.T) {
	storetest.TestSchemaTooNew(t, kit, "PRAGMA user_version = 99", ErrSchemaTooNew)
}

// TestQueryPlans checks that the ledger queries the console and the
// command make are served by their indexes, not a scan of the table.
func TestQueryPlans(t *testing.T) {
	s, err := Open(context.Background(), kit.NewDB(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tt := range []struct {
		q     ledger.Query
		index string
	}{
		{ledger.Query{Run: "r"}, "ledger_run"},
		{ledger.Query{Ticket: "tkt"}, "ledger_ticket"},
		{ledger.Query{Ticket: "tkt", Newest: true, Limit: 10}, "ledger_ticket"},
		{ledger.Query{Subject: "ann", Newest: true, Limit: 10}, "ledger_subject"},
	} {
		stmt, args := sqlledger.Query(tt.q, func(int) string { return "?" })
		rows, err := s.db.Query("EXPLAIN QUERY PLAN "+stmt, args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if p := strings.Join(plan, "; "); !strings.Contains(p, "INDEX "+tt.index+" ") {
			t.Errorf("Query(%+v) plan %q, want it to use %s", tt.q, p, tt.index)
		}
	}
}

func TestMigrateTicketCounts(t *testing.T) {
	storetest.TestMigrateTicketCounts(t, kit, migrations.Load(migrationFiles), func(path, stmt string) error {
		db, err := sql.Open("sqlite3", "file:"+path)
		if err != nil {
			return err
		}
		defer db.Close()
		_, err = db.Exec(stmt)
		return err
	}, func(v int) string { return fmt.Sprintf("PRAGMA user_version = %d", v) })
}

func TestStanding(t *testing.T) {
	storetest.TestStanding(t, kit, migrations.Load(migrationFiles), func(path, stmt string) error {
		db, err := sql.Open("sqlite3", "file:"+path)
		if err != nil {
			return err
		}
		defer db.Close()
		_, err = db.Exec(stmt)
		return err
	}, func(v int) string { return fmt.Sprintf("PRAGMA user_version = %d", v) })
}

func TestTokensAtRest(t *testing.T) { storetest.TestTokensAtRest(t, kit) }

func TestMigrateTokens(t *testing.T) {
	storetest.TestMigrateTokens(t, kit, migrations.Load(migrationFiles), func(path, stmt string) error {
		db, err := sql.Open("sqlite3", "file:"+path)
		if err != nil {
			return err
		}
		defer db.Close()
		_, err = db.Exec(stmt)
		return err
	}, func(v int) string { return fmt.Sprintf("PRAGMA user_version = %d", v) })
}
