package pgstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/store/internal/migrations"
	"github.com/agentadapter/agentadapter/store/internal/sqlledger"

	"github.com/agentadapter/agentadapter/store/internal/storetest"
)

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

// TestReplicaProcesses: the waiters poll once a minute, so a prompt wake-up
// in another process is NOTIFY's.
func TestReplicaProcesses(t *testing.T) { storetest.TestReplicaProcesses(t, kit) }

func TestCrash(t *testing.T) { storetest.TestCrash(t, kit) }

func TestSchemaTooNew(t *testing.T) {
	storetest.TestSchemaTooNew(t, kit, "UPDATE agentadapter_schema SET version = 99", ErrSchemaTooNew)
}

// TestQueryPlans checks that the ledger queries the console and the
// command make can be served by their indexes (with sequential scans
// disabled: on an empty table the planner would rightly prefer one).
func TestQueryPlans(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, newSchemaDSN(t), nil)
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
		stmt, args := sqlledger.Query(tt.q, func(n int) string { return "$" + strconv.Itoa(n) })
		plan, err := func() (string, error) {
			tx, err := s.pool.Begin(ctx)
			if err != nil {
				return "", err
			}
			defer tx.Rollback(ctx)
			if _, err := tx.Exec(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
				return "", err
			}
			rows, err := tx.Query(ctx, "EXPLAIN "+stmt, args...)
			if err != nil {
				return "", err
			}
			defer rows.Close()
			var lines []string
			for rows.Next() {
				var l string
				if err := rows.Scan(&l); err != nil {
					return "", err
				}
				lines = append(lines, l)
			}
			return strings.Join(lines, "\n"), rows.Err()
		}()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, " "+tt.index+" ") {
			t.Errorf("Query(%+v) plan:\n%s\nwant it to use %s", tt.q, plan, tt.index)
		}
	}
}

func TestMigrateTicketCounts(t *testing.T) {
	storetest.TestMigrateTicketCounts(t, kit, migrations.Load(migrationFiles), func(dsn, stmt string) error {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		_, err = conn.Exec(context.Background(), stmt)
		return err
	}, func(v int) string {
		return fmt.Sprintf("CREATE TABLE agentadapter_schema (id int PRIMARY KEY CHECK (id = 1), version int NOT NULL); INSERT INTO agentadapter_schema VALUES (1, %d)", v)
	})
}

func TestStanding(t *testing.T) {
	storetest.TestStanding(t, kit, migrations.Load(migrationFiles), func(dsn, stmt string) error {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		_, err = conn.Exec(context.Background(), stmt)
		return err
	}, func(v int) string {
		return fmt.Sprintf("CREATE TABLE agentadapter_schema (id int PRIMARY KEY CHECK (id = 1), version int NOT NULL); INSERT INTO agentadapter_schema VALUES (1, %d)", v)
	})
}

func TestTokensAtRest(t *testing.T) { storetest.TestTokensAtRest(t, kit) }

func TestMigrateTokens(t *testing.T) {
	storetest.TestMigrateTokens(t, kit, migrations.Load(migrationFiles), func(dsn, stmt string) error {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		_, err = conn.Exec(context.Background(), stmt)
		return err
	}, func(v int) string {
		return fmt.Sprintf("CREATE TABLE agentadapter_schema (id int PRIMARY KEY CHECK (id = 1), version int NOT NULL); INSERT INTO agentadapter_schema VALUES (1, %d)", v)
	})
}
