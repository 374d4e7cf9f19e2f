package pgstore

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
		if err := s.Exec(ctx, `INSERT INTO ledger SELECT x, 1767225600000000000::bigint + x::bigint * 1000000, 'call-' || x, 'run-' || (x % 10000), 'search', 'mcp:web', 'eino',
			'user-' || (x % 50), convert_to('{"q":"weather in Oslo","n":5}', 'UTF8'), 'ok', '', '', '', '', false, 1000000, 512, 'h', 'h', 'p', 'h'
		FROM generate_series(1::bigint, 1000000::bigint) x`); err != nil {
			return err
		}
		return s.Exec(ctx, "ANALYZE ledger")
	})
}
