package runsync

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
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

// TestOnWorker: OnWorker returns what fn returns, waiting for it even once
// ctx has ended (it never abandons), turns a panic into a PanicError and
// Goexit into ErrGoexit, and runs call after call on one reused worker,
// not on the caller's goroutine.
func TestOnWorker(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		fn   func(context.Context) (int, error)
		want int
		err  func(error) bool
	}{
		{"result", context.Background(), add, 1, func(err error) bool { return err == nil }},
		{"waits past its context", cancelled, func(ctx context.Context) (int, error) {
			time.Sleep(20 * time.Millisecond)
			return 2, ctx.Err()
		}, 2, func(err error) bool { return err == context.Canceled }},
		{"panic", context.Background(), func(context.Context) (int, error) { panic("boom") }, 0, func(err error) bool {
			var pe *PanicError
			return errors.As(err, &pe) && pe.Value == "boom"
		}},
		{"goexit", context.Background(), func(context.Context) (int, error) { runtime.Goexit(); return 1, nil }, 0, func(err error) bool { return err == ErrGoexit }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := OnWorker(tt.ctx, tt.fn)
			if v != tt.want || !tt.err(err) {
				t.Errorf("OnWorker = %v, %v; want %v and the expected error", v, err, tt.want)
			}
			if n := Abandoned(); n != 0 {
				t.Errorf("Abandoned() = %d, want 0: OnWorker never gives up", n)
			}
			// The pool still works after each case.
			if v, err := OnWorker(context.Background(), add); v != 1 || err != nil {
				t.Fatalf("call after %s: %v, %v", tt.name, v, err)
			}
		})
	}

	caller := goroutineID()
	first, _ := OnWorker(context.Background(), func(context.Context) (int, error) { return goroutineID(), nil })
	if first == caller {
		t.Fatalf("fn ran on the caller's goroutine %d", caller)
	}
	for range 100 {
		if id, _ := OnWorker(context.Background(), func(context.Context) (int, error) { return goroutineID(), nil }); id != first {
			t.Fatalf("sequential calls ran on goroutines %d and %d, want one reused worker", first, id)
		}
	}
}

// TestOnWorkerInBubble: in a testing/synctest bubble fn gets a goroutine
// of its own (a pooled worker must not touch the bubble's timers), and
// the bubble's clock still runs for it.
func TestOnWorkerInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		v, err := OnWorker(t.Context(), func(ctx context.Context) (int, error) {
			select {
			case <-time.After(time.Hour):
				return 1, nil
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		})
		if v != 1 || err != nil || time.Since(start) != time.Hour {
			t.Errorf("OnWorker in a bubble = %v, %v after %v; want 1, nil after 1h", v, err, time.Since(start))
		}
	})
}

// TestOnWorkerAllocs: a call costs one allocation (the call record).
func TestOnWorkerAllocs(t *testing.T) {
	ctx := context.Background()
	if n := testing.AllocsPerRun(200, func() {
		if _, err := OnWorker(ctx, add); err != nil {
			t.Fatal(err)
		}
	}); n > 1 {
		t.Errorf("OnWorker: %v allocations, want <= 1", n)
	}
}

// goroutineID is the calling goroutine's number, read from its stack
// trace's first line ("goroutine 18 [running]:").
func goroutineID() int {
	var buf [64]byte
	line := string(buf[:runtime.Stack(buf[:], false)])
	line = strings.TrimPrefix(line, "goroutine ")
	id, err := strconv.Atoi(line[:strings.IndexByte(line, ' ')])
	if err != nil {
		panic(err)
	}
	return id
}

// TestOnWorkerKeepsBurst: the workers of a burst of 64 calls in flight
// (a server's calls each hold theirs for a round trip) stay for the next
// burst, so its calls find their stacks grown.
func TestOnWorkerKeepsBurst(t *testing.T) {
	const n = 64
	burst := func() map[int]bool {
		var mu sync.Mutex
		ids := map[int]bool{}
		var started, done sync.WaitGroup
		started.Add(n)
		release := make(chan struct{})
		for range n {
			done.Go(func() {
				_, _ = OnWorker(context.Background(), func(context.Context) (int, error) {
					mu.Lock()
					ids[goroutineID()] = true
					mu.Unlock()
					started.Done()
					<-release
					return 0, nil
				})
			})
		}
		started.Wait()
		close(release)
		done.Wait()
		return ids
	}
	first, second := burst(), burst()
	reused := 0
	for id := range second {
		if first[id] {
			reused++
		}
	}
	if len(first) != n || reused != n {
		t.Errorf("a burst of %d calls ran on %d workers; the next burst reused %d of them, want all", n, len(first), reused)
	}
}
