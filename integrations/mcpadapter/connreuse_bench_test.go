package mcpadapter_test

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// BenchmarkCallHTTPUpstream is one call through the manager and executor
// to a go-sdk upstream over streamable HTTP, from 1 and from 8 callers at
// once, reporting the TCP connections the upstream accepted per call
// (conns/op) beside time, CPU and allocations.
func BenchmarkCallHTTPUpstream(b *testing.B) {
	for _, callers := range []int{1, reuseSessions} {
		b.Run("sessions="+map[int]string{1: "1", reuseSessions: "8"}[callers], func(b *testing.B) {
			url, accepted, _, _ := countedUpstream(b)
			e := newImportEnv(b, nil)
			if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", URL: url, Allow: []string{"echo"}}); err != nil {
				b.Fatal(err)
			}
			args := json.RawMessage(`{"x":1}`)
			call := func() {
				if _, err := e.exec.Call(context.Background(), "echo", args); err != nil {
					b.Fatal(err)
				}
			}
			// Warm-up: as many callers as measured, so that the pool holds
			// what they need.
			done := make(chan struct{}, callers)
			for range callers {
				go func() {
					for range 20 {
						call()
					}
					done <- struct{}{}
				}()
			}
			for range callers {
				<-done
			}
			before := accepted.Load()
			b.ReportAllocs()
			b.ResetTimer()
			cpu := processCPU()
			if callers == 1 {
				for range b.N {
					call()
				}
			} else {
				b.SetParallelism((callers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						call()
					}
				})
			}
			b.StopTimer()
			if used := processCPU() - cpu; cpu > 0 {
				b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
			b.ReportMetric(float64(accepted.Load()-before)/float64(b.N), "conns/op")
		})
	}
}
