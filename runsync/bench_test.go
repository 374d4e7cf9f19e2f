package runsync

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

func add(_ context.Context) (int, error) { return 1, nil }

// BenchmarkRun measures the overhead Run adds to every tool call, on each of
// its paths.
func BenchmarkRun(b *testing.B) {
	cancelable, cancel := context.WithCancel(context.Background())
	defer cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		timeout time.Duration
	}{
		{"background", context.Background(), 0},
		{"cancelable", cancelable, 0},
		{"timeout", context.Background(), time.Minute},
		{"cancelable+timeout", cancelable, time.Minute},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(tt.ctx, tt.timeout, add); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRecover(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Recover(ctx, add); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDirect(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := add(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGo(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Go(ctx, add).Await(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParallel(b *testing.B) {
	ctx := context.Background()
	in := make([]int, 16)
	fn := func(context.Context, int, int) (int, error) { return 1, nil }
	b.ReportAllocs()
	for b.Loop() {
		Parallel(ctx, 4, in, fn)
	}
}

// deep recurses n levels on frames of half a kilobyte: a stand-in for an
// RPC client's call with its encoder below it.
//
//go:noinline
func deep(n int) int {
	var pad [64]int64
	pad[n%64] = int64(n)
	if n == 0 {
		return int(pad[0])
	}
	return deep(n-1) + int(pad[n%64])
}

func deep64(context.Context) (int, error) { return deep(64), nil }

// BenchmarkDeepPerRequest: a goroutine per operation, as a server starts
// one per request, calls a function 32 KiB deep inline (Recover, which
// grows the fresh goroutine's stack each time) or on a worker (OnWorker,
// whose stack has grown once), with 1 or 32 requests in flight.
func BenchmarkDeepPerRequest(b *testing.B) {
	ctx := context.Background()
	for _, inflight := range []int{1, 32} {
		for _, bc := range []struct {
			name string
			call func(context.Context, func(context.Context) (int, error)) (int, error)
		}{
			{"inline", Recover[int]},
			{"worker", OnWorker[int]},
		} {
			b.Run(fmt.Sprintf("inflight=%d/impl=%s", inflight, bc.name), func(b *testing.B) {
				b.ReportAllocs()
				slots := make(chan struct{}, inflight)
				var wg sync.WaitGroup
				for b.Loop() {
					slots <- struct{}{}
					wg.Add(1)
					go func() {
						defer wg.Done()
						if _, err := bc.call(ctx, deep64); err != nil {
							panic(err)
						}
						<-slots
					}()
				}
				wg.Wait()
			})
		}
	}
}
