package sqlitestore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/internal/sqlledger"
	"github.com/agentadapter/agentadapter/internal/storetest"
)

// kit describes the package to the shared store tests.
var kit = &storetest.Kit{
	NewDB: func(t testing.TB) string { return filepath.Join(t.TempDir(), "state.db") },
	Open: func(ctx context.Context, path string, o storetest.Options) (*storetest.Store, error) {
		s, err := Open(ctx, path, &Options{Durable: o.Durable, Retention: o.Retention, PollInterval: o.PollInterval, Now: o.Now})
		if err != nil {
			return nil, err
		}
		return &storetest.Store{
			Ledger: s.Ledger(), Tickets: s.Tickets(), Cache: s.Cache(), Pins: s.Pins(), Tokens: s.Tokens(),
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
}

func TestMain(m *testing.M) {
	storetest.ChildMain(kit)
	m.Run()
}

func TestConformance(t *testing.T) { storetest.TestConformance(t, kit) }

func TestTamper(t *testing.T) { storetest.TestTamper(t, kit) }

func TestRetention(t *testing.T) { storetest.TestRetention(t, kit) }

// TestReplicaProcesses: the waiter in another process polls every 20 ms.
func TestReplicaProcesses(t *testing.T) { storetest.TestReplicaProcesses(t, kit) }

func TestCrash(t *testing.T) { storetest.TestCrash(t, kit) }

func TestSchemaTooNew(t *testing.T) {
	storetest.TestSchemaTooNew(t, kit, "PRAGMA user_version = 99", ErrSchemaTooNew)
}
