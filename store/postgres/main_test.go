package pgstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentadapter/agentadapter/internal/pgtest"
	"github.com/agentadapter/agentadapter/store/internal/sqlledger"
	"github.com/agentadapter/agentadapter/store/internal/storetest"
)

// clusterDSN is the throwaway cluster's DSN; empty when there is no
// PostgreSQL and tests skip (never under CI, where TestMain fails).
var clusterDSN string

func TestMain(m *testing.M) {
	storetest.ChildMain(kit)
	c, err := pgtest.Start()
	if err != nil {
		if os.Getenv("CI") != "" || !errors.Is(err, pgtest.ErrNoPostgres) {
			fmt.Fprintln(os.Stderr, "pgstore tests need PostgreSQL:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "pgstore: skipping the tests:", err)
	} else {
		clusterDSN = c.DSN
	}
	code := m.Run()
	if c != nil {
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

var schemas atomic.Int64

// newSchemaDSN creates an empty schema and returns a DSN whose connections
// use it: each test gets a database of its own.
func newSchemaDSN(t testing.TB) string {
	if clusterDSN == "" {
		t.Skip("no PostgreSQL")
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), schemas.Add(1))
	conn, err := pgx.Connect(context.Background(), clusterDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(clusterDSN, "?") {
		sep = "&"
	}
	return clusterDSN + sep + "search_path=" + url.QueryEscape(name)
}

// kit describes the package to the shared store tests.
var kit = &storetest.Kit{
	NewDB: newSchemaDSN,
	Open: func(ctx context.Context, dsn string, o storetest.Options) (*storetest.Store, error) {
		s, err := Open(ctx, dsn, &Options{Durable: o.Durable, Retention: o.Retention, PollInterval: o.PollInterval, Now: o.Now, Tokens: o.Tokens})
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
				_, err := s.pool.Exec(ctx, stmt, args...)
				return err
			},
			QueryRow: func(ctx context.Context, stmt string, args ...any) interface{ Scan(...any) error } {
				return s.pool.QueryRow(ctx, stmt, args...)
			},
			Close: s.Close,
		}, nil
	},
	Param:         func(n int) string { return "$" + strconv.Itoa(n) },
	ErrLedgerFull: ErrLedgerFull,
	// A minute: only NOTIFY can wake a waiter in another process in time.
	ChildPollInterval: time.Minute,

	// The limits of Sessions.Put.
	ErrSessionTooLarge: ErrSessionTooLarge, MaxSessionKey: MaxSessionKey, MaxSessionValue: MaxSessionValue,
}
