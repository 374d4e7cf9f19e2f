package pgstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agentadapter/agentadapter/adapter/adaptertest"
	"github.com/agentadapter/agentadapter/internal/pgtest"
)

// clusterDSN is the throwaway cluster's DSN; empty when there is no
// PostgreSQL and tests skip (never under CI, where TestMain fails).
var clusterDSN string

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
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

// newDB returns an opener of Stores on a new database; every Store it
// opens is closed when the test ends.
func newDB(t testing.TB, opts *Options) adaptertest.Opener[*Store] {
	dsn := newSchemaDSN(t)
	return func() *Store {
		s, err := Open(context.Background(), dsn, opts)
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
