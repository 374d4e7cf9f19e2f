package runsync

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestFutureAwaitFromManyGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		f := Go(context.Background(), func(context.Context) (string, error) {
			<-release
			return "result", errTool
		})
		const n = 8
		type result struct {
			v   string
			err error
		}
		got := make([]result, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				v, err := f.Await(context.Background())
				got[i] = result{v, err}
			})
		}
		synctest.Wait() // every awaiter is blocked
		select {
		case <-f.Done():
			t.Fatal("Done() closed before fn returned")
		default:
		}
		close(release)
		wg.Wait()
		for i, r := range got {
			if r != (result{"result", errTool}) {
				t.Errorf("awaiter %d got (%q, %v), want (%q, %v)", i, r.v, r.err, "result", errTool)
			}
		}
		// Later calls see the same result, even with a done context.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if v, err := f.Await(ctx); v != "result" || err != errTool {
			t.Errorf("Await after completion with a done ctx = (%q, %v), want (%q, %v)", v, err, "result", errTool)
		}
	})
}

func TestFutureAwaitContextExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		f := Go(context.Background(), func(context.Context) (int, error) {
			<-release
			return 42, nil
		})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		start := time.Now()
		v, err := f.Await(ctx)
		if d := time.Since(start); d != 10*time.Millisecond {
			t.Errorf("Await returned after %v, want 10ms", d)
		}
		if v != 0 || err != context.DeadlineExceeded {
			t.Errorf("Await = (%v, %v), want (0, context.DeadlineExceeded)", v, err)
		}
		select {
		case <-f.Done():
			t.Error("an expired Await completed the future")
		default:
		}
		close(release)
		if v, err := f.Await(context.Background()); v != 42 || err != nil {
			t.Errorf("second Await = (%v, %v), want (42, nil)", v, err)
		}
	})
}

func TestGoAbandoned(t *testing.T) {
	tests := []struct {
		name          string
		honoursCtx    bool
		wantAbandoned int64
	}{
		{"ignores ctx", false, 1},
		{"honours ctx", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before := Abandoned()
				ctx, cancel := context.WithCancel(context.Background())
				release := make(chan struct{})
				f := Go(ctx, func(ctx context.Context) (int, error) {
					if tt.honoursCtx {
						<-ctx.Done()
						return 0, ctx.Err()
					}
					<-release
					return 1, nil
				})
				synctest.Wait()
				if n := Abandoned() - before; n != 0 {
					t.Errorf("before cancel, Abandoned() went up by %d, want 0", n)
				}
				cancel()
				synctest.Wait()
				if n := Abandoned() - before; n != tt.wantAbandoned {
					t.Errorf("after cancel, Abandoned() went up by %d, want %d", n, tt.wantAbandoned)
				}
				close(release)
				f.Await(context.Background())
				synctest.Wait()
				if n := Abandoned() - before; n != 0 {
					t.Errorf("after fn returned, Abandoned() is %d above its start, want 0", n)
				}
			})
		})
	}
}

func TestGoContextAlreadyDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	f := Go(ctx, func(context.Context) (int, error) { called = true; return 1, nil })
	_, err := f.Await(context.Background())
	if called || !errors.Is(err, context.Canceled) {
		t.Errorf("called = %v, err = %v; want fn not called and context.Canceled", called, err)
	}
}
