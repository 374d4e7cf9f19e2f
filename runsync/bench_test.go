package runsync

import (
	"context"
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
