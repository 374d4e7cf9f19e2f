//go:build unix

package sqlitestore

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// BenchmarkLedgerPaced is the background ledger as serve loads it: 8
// callers each write a record per call and take 1 ms per call, so records
// arrive spread out rather than in a burst. It reports the process's CPU
// per record (cpu-µs/op: the writer's commits and the callers' writes)
// without a linger (every record that finds the writer idle commits
// alone) and with the default one (#30).
func BenchmarkLedgerPaced(b *testing.B) {
	for _, bc := range []struct {
		name   string
		linger time.Duration
	}{{"linger=none", -1}, {"linger=default", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			s, err := Open(ctx, filepath.Join(b.TempDir(), "l.db"), &Options{LedgerLinger: bc.linger})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			l := s.Ledger()
			b.SetParallelism(4) // 8 callers on 2 CPUs
			b.ReportAllocs()
			b.ResetTimer()
			cpu := rusageCPU()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r := ledger.Record{Time: time.Now(), Tool: "echo", Source: "mcp:up", Outcome: "ok"}
					if err := l.Write(ctx, &r); err != nil {
						b.Error(err)
						return
					}
					time.Sleep(time.Millisecond)
				}
			})
			if err := l.Flush(ctx); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			b.ReportMetric(float64((rusageCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
			if st := l.Stats(); st.Failed != 0 || st.Refused != 0 {
				b.Fatalf("stats %+v", st)
			}
		})
	}
}

func rusageCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
