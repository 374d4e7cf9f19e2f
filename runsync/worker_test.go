package runsync

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// TestWorkersReused: sequential calls run on the same few workers instead
// of a goroutine each, and an abandoned worker is replaced, not reused.
func TestWorkersReused(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := map[*worker]bool{}
	for range 100 {
		w := getWorker()
		seen[w] = true
		putWorker(w)
	}
	if len(seen) > 1 {
		t.Errorf("100 sequential get/put used %d workers, want 1", len(seen))
	}
	before := runtime.NumGoroutine()
	for range 1000 {
		if _, err := Run(ctx, 0, add); err != nil {
			t.Fatal(err)
		}
	}
	if after := runtime.NumGoroutine(); after > before+1 {
		t.Errorf("goroutines grew from %d to %d over 1000 sequential calls", before, after)
	}

	// A function that overruns its deadline keeps its worker; the next call
	// gets another one and does not wait for it.
	release, started := make(chan struct{}), make(chan struct{})
	dl, cancelDL := context.WithCancel(ctx)
	go func() { <-started; cancelDL() }()
	_, err := Run(dl, 0, func(context.Context) (int, error) {
		close(started)
		<-release
		return 1, nil
	})
	if !errors.Is(err, ErrAbandoned) {
		t.Fatalf("overrunning call: err = %v, want ErrAbandoned", err)
	}
	if Abandoned() < 1 {
		t.Errorf("Abandoned() = %d, want >= 1", Abandoned())
	}
	if v, err := Run(ctx, 0, add); v != 1 || err != nil {
		t.Fatalf("call after an abandoned one: %v, %v", v, err)
	}
	close(release)
	waitFor(t, func() bool { return Abandoned() == 0 }, "the abandoned function to return")
}

// TestWorkerGoexit: a function that calls runtime.Goexit ends its worker,
// which is not handed out again.
func TestWorkerGoexit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 3 {
		if _, err := Run(ctx, 0, func(context.Context) (int, error) { runtime.Goexit(); return 1, nil }); err != ErrGoexit {
			t.Fatalf("err = %v, want ErrGoexit", err)
		}
		if v, err := Run(ctx, 0, add); v != 1 || err != nil {
			t.Fatalf("call after Goexit: %v, %v", v, err)
		}
	}
}

// TestWorkerPanicKeepsWorker: a recovered panic leaves the worker usable.
func TestWorkerPanicKeepsWorker(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var pe *PanicError
	if _, err := Run(ctx, 0, func(context.Context) (int, error) { panic("boom") }); !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a PanicError", err)
	}
	if v, err := Run(ctx, 0, add); v != 1 || err != nil {
		t.Fatalf("call after a panic: %v, %v", v, err)
	}
}

// TestIdleWorkersExit: idle workers go away after workerIdle, so nothing
// is left running once calls stop.
func TestIdleWorkersExit(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for workerIdle")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := Run(ctx, 0, add); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		pool.mu.Lock()
		defer pool.mu.Unlock()
		return len(pool.idle) == 0
	}, "idle workers to exit")
}

// TestRunAllocs: a call on a cancellable context costs one allocation
// (the call record); the worker, its channels and its stack are reused.
func TestRunAllocs(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if n := testing.AllocsPerRun(200, func() {
		if _, err := Run(ctx, 0, add); err != nil {
			t.Fatal(err)
		}
	}); n > 1 {
		t.Errorf("Run on a cancellable context: %v allocations, want <= 1", n)
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
