package sqlitestore

import (
	"context"
	"testing"

	"github.com/agentadapter/agentadapter/store/internal/storetest"
)

func BenchmarkLedgerBatched(b *testing.B)         { storetest.BenchmarkLedgerBatched(b, kit) }
func BenchmarkLedgerDurable(b *testing.B)         { storetest.BenchmarkLedgerDurable(b, kit) }
func BenchmarkApprovalRoundTrip(b *testing.B)     { storetest.BenchmarkApprovalRoundTrip(b, kit) }
func BenchmarkApprovalRoundTripBusy(b *testing.B) { storetest.BenchmarkApprovalRoundTripBusy(b, kit) }
func BenchmarkCacheHit(b *testing.B)              { storetest.BenchmarkCacheHit(b, kit) }

func BenchmarkQueryRun1M(b *testing.B) {
	storetest.BenchmarkQueryRun1M(b, kit, func(ctx context.Context, s *storetest.Store) error {
		// Columns added by migrations come last, in table order: requester,
		// ticket, credential.
		return s.Exec(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000)
		INSERT INTO ledger SELECT x, 1767225600000000000 + x * 1000000, 'call-' || x, 'run-' || (x % 10000), 'search', 'mcp:web', 'eino',
			'user-' || (x % 50), CAST('{"q":"weather in Oslo","n":5}' AS BLOB), 'ok', '', '', '', '', 0, 1000000, 512, 'h', 'h', 'p', 'h', '', '' FROM c`)
	})
}
