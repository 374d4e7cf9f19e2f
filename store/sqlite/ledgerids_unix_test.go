//go:build unix

package sqlitestore

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// BenchmarkLedgerIDs is the paced ledger of BenchmarkLedgerPaced (8
// callers, 1 ms per call, the default linger) on a ledger of 300,000
// earlier records, each record with a run id and an anonymous subject of
// its own, as every 2026-07-28 call through the export has: random ids
// (12 random bytes, as the export made them before 2026-12-04) put each
// record's entries in the run and subject indexes on a random leaf page;
// ordered ones (the time, then 8 random bytes, as now) append them (#30).
func BenchmarkLedgerIDs(b *testing.B) {
	for _, ids := range []string{"random", "ordered"} {
		newID := func() string {
			if ids == "random" {
				var id [12]byte
				_, _ = rand.Read(id[:])
				return hex.EncodeToString(id[:])
			}
			var id [16]byte
			binary.BigEndian.PutUint64(id[:8], uint64(time.Now().UnixNano()))
			_, _ = rand.Read(id[8:])
			return hex.EncodeToString(id[:])
		}
		b.Run("ids="+ids, func(b *testing.B) {
			benchLedgerPaced(b, 8, nil, func(s *Store) {
				// 300,000 earlier records, each with its own random run and subject.
				ctx := context.Background()
				if _, err := s.db.ExecContext(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000)
		INSERT INTO ledger SELECT x, 1767225600000000000 + x * 1000000, 'call-' || x, 'mcp_' || hex(randomblob(12)), 'echo', 'mcp:up', '',
			'anonymous:' || hex(randomblob(12)), CAST('{"text":"hi"}' AS BLOB), 'ok', '', '', '', '', 0, 1000000, 512, 'h', 'h', 'p', 'h', '', '' FROM c`); err != nil {
					b.Fatal(err)
				}
				if _, err := s.db.ExecContext(ctx, `UPDATE ledger_chain SET head_seq = 300000 WHERE id = 1`); err != nil {
					b.Fatal(err)
				}
			}, func() ledger.Record {
				id := newID()
				return ledger.Record{Time: time.Now(), Tool: "echo", Source: "mcp:up", Outcome: "ok",
					RunID: "mcp_" + id, Subject: "anonymous:" + id, CallID: newID(), Args: []byte(`{"text":"hi"}`)}
			})
		})
	}
}
