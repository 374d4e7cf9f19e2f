//go:build unix

package sqlitestore

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// BenchmarkLedgerPaced is the background ledger as serve loads it: 8
// callers (or one) each write a record per call and take 1 ms per call,
// so records arrive spread out rather than in a burst. It reports the
// process's CPU per record (cpu-µs/op: the writer's commits and wakes and
// the callers' writes) without a linger (every record that finds the
// writer idle commits alone), with the default before 2026-12-04 (5 ms)
// and with the default (#30).
func BenchmarkLedgerPaced(b *testing.B) {
	for _, callers := range []int{8, 1} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			for _, bc := range []struct {
				name   string
				linger time.Duration
			}{{"linger=none", -1}, {"linger=5ms", 5 * time.Millisecond}, {"linger=default", 0}} {
				b.Run(bc.name, func(b *testing.B) {
					benchLedgerPaced(b, callers, &Options{LedgerLinger: bc.linger}, nil, func() ledger.Record {
						return ledger.Record{Time: time.Now(), Tool: "echo", Source: "mcp:up", Outcome: "ok"}
					})
				})
			}
		})
	}
}

// benchLedgerPaced opens a store with opts, runs prep on it (if any),
// then has callers each write record() and sleep 1 ms, b.N times in all.
func benchLedgerPaced(b *testing.B, callers int, opts *Options, prep func(*Store), record func() ledger.Record) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "l.db"), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if prep != nil {
		prep(s)
	}
	l := s.Ledger()
	call := func() bool {
		r := record()
		if err := l.Write(ctx, &r); err != nil {
			b.Error(err)
			return false
		}
		time.Sleep(time.Millisecond)
		return true
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := rusageCPU()
	if callers == 1 {
		for range b.N {
			if !call() {
				break
			}
		}
	} else {
		b.SetParallelism((callers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() && call() {
			}
		})
	}
	if err := l.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64((rusageCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	if st := l.Stats(); st.Failed != 0 || st.Refused != 0 {
		b.Fatalf("stats %+v", st)
	}
}

func rusageCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
