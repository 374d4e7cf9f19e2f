package runsync

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

var errTool = errors.New("tool failed")

// callers lists the ways to call a function with panic containment, so that
// every behaviour they share is tested on every path through Run.
var callers = []struct {
	name string
	call func(context.Context, func(context.Context) (int, error)) (int, error)
}{
	{"Recover", func(ctx context.Context, fn func(context.Context) (int, error)) (int, error) {
		return Recover(ctx, fn)
	}},
	{"Run/inline", func(ctx context.Context, fn func(context.Context) (int, error)) (int, error) {
		return Run(context.Background(), 0, fn)
	}},
	{"Run/cancelable", func(ctx context.Context, fn func(context.Context) (int, error)) (int, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		return Run(ctx, 0, fn)
	}},
	{"Run/timeout", func(ctx context.Context, fn func(context.Context) (int, error)) (int, error) {
		return Run(ctx, time.Hour, fn)
	}},
	{"Go", func(ctx context.Context, fn func(context.Context) (int, error)) (int, error) {
		return Go(ctx, fn).Await(ctx)
	}},
}

func TestPassthrough(t *testing.T) {
	tests := []struct {
		name    string
		fn      func(context.Context) (int, error)
		want    int
		wantErr error
	}{
		{"value", func(context.Context) (int, error) { return 42, nil }, 42, nil},
		{"error", func(context.Context) (int, error) { return 0, errTool }, 0, errTool},
		{"value and error", func(context.Context) (int, error) { return 7, errTool }, 7, errTool},
	}
	for _, c := range callers {
		for _, tt := range tests {
			t.Run(c.name+"/"+tt.name, func(t *testing.T) {
				got, err := c.call(context.Background(), tt.fn)
				if got != tt.want || err != tt.wantErr {
					t.Errorf("got (%v, %v), want (%v, %v)", got, err, tt.want, tt.wantErr)
				}
			})
		}
	}
}

// panicsWith has a distinctive name for the tests to look for in the stack.
func panicsWith(v any) func(context.Context) (int, error) {
	return func(context.Context) (int, error) { panic(v) }
}

func TestPanic(t *testing.T) {
	tests := []struct {
		name      string
		value     any
		wantMsg   string
		wantWraps error // nil: Unwrap must return nil
	}{
		{"string", "boom", "panic: boom", nil},
		{"int", 7, "panic: 7", nil},
		{"error", io.ErrUnexpectedEOF, "panic: unexpected EOF", io.ErrUnexpectedEOF},
	}
	for _, c := range callers {
		for _, tt := range tests {
			t.Run(c.name+"/"+tt.name, func(t *testing.T) {
				got, err := c.call(context.Background(), panicsWith(tt.value))
				if got != 0 {
					t.Errorf("value = %d, want the zero value", got)
				}
				var pe *PanicError
				if !errors.As(err, &pe) {
					t.Fatalf("err = %#v, want a *PanicError", err)
				}
				if pe.Error() != tt.wantMsg {
					t.Errorf("Error() = %q, want %q", pe.Error(), tt.wantMsg)
				}
				if strings.Contains(pe.Error(), "goroutine") {
					t.Errorf("Error() = %q leaks the stack", pe.Error())
				}
				if !strings.Contains(string(pe.Stack), "panicsWith") {
					t.Errorf("stack does not name the panicking function:\n%s", pe.Stack)
				}
				if tt.wantWraps != nil && !errors.Is(err, tt.wantWraps) {
					t.Errorf("errors.Is(err, %v) = false, want true", tt.wantWraps)
				}
				if tt.wantWraps == nil && pe.Unwrap() != nil {
					t.Errorf("Unwrap() = %v, want nil", pe.Unwrap())
				}
			})
		}
	}
}

// runtimeError returns the value of a real runtime panic.
func runtimeError() (v any) {
	defer func() { v = recover() }()
	var s []int
	i := 3
	_ = s[i]
	return nil
}

func TestPanicErrorRuntimeError(t *testing.T) {
	_, err := Recover(context.Background(), panicsWith(runtimeError()))
	var re runtime.Error
	if !errors.As(err, &re) {
		t.Errorf("errors.As(%v, *runtime.Error) = false, want true", err)
	}
	const want = "panic: runtime error: index out of range [3] with length 0"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func TestPanicNil(t *testing.T) {
	_, err := Recover(context.Background(), panicsWith(nil))
	var pn *runtime.PanicNilError
	if !errors.As(err, &pn) {
		t.Errorf("err = %v, want it to wrap *runtime.PanicNilError", err)
	}
}

func TestRunAbandonsFunctionIgnoringDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before := Abandoned()
		release := make(chan struct{})
		start := time.Now()
		got, err := Run(context.Background(), 20*time.Millisecond, func(context.Context) (int, error) {
			<-release // ignores ctx
			return 1, nil
		})
		if d := time.Since(start); d != 20*time.Millisecond {
			t.Errorf("Run returned after %v, want exactly the 20ms timeout", d)
		}
		if got != 0 {
			t.Errorf("value = %d, want the zero value", got)
		}
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrAbandoned) {
			t.Errorf("err = %v, want it to wrap context.DeadlineExceeded and ErrAbandoned", err)
		}
		if n := Abandoned() - before; n != 1 {
			t.Errorf("Abandoned() went up by %d, want 1", n)
		}
		close(release)
		synctest.Wait()
		if n := Abandoned() - before; n != 0 {
			t.Errorf("after release, Abandoned() is %d above its start, want 0", n)
		}
	})
}

// The same, on the real clock: nothing about the bubble's fake time hides a
// caller that waits for the function.
func TestRunReturnsPromptlyRealClock(t *testing.T) {
	before := Abandoned()
	release := make(chan struct{})
	start := time.Now()
	_, err := Run(context.Background(), 20*time.Millisecond, func(context.Context) (int, error) {
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		return 1, nil
	})
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Run returned after %v; the timeout was 20ms and fn blocks 10s", d)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
	if n := Abandoned() - before; n != 1 {
		t.Errorf("Abandoned() went up by %d, want 1", n)
	}
	close(release)
	for deadline := time.Now().Add(5 * time.Second); Abandoned() != before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Abandoned() = %d five seconds after release, want %d", Abandoned(), before)
		}
	}
}

func TestRunParentCancel(t *testing.T) {
	cause := errors.New("user pressed stop")
	tests := []struct {
		name    string
		timeout time.Duration
		cancel  func(context.CancelCauseFunc)
		want    []error
	}{
		{"no timeout", 0, func(c context.CancelCauseFunc) { c(nil) }, []error{context.Canceled, ErrAbandoned}},
		{"longer timeout", time.Hour, func(c context.CancelCauseFunc) { c(nil) }, []error{context.Canceled, ErrAbandoned}},
		{"with cause", 0, func(c context.CancelCauseFunc) { c(cause) }, []error{context.Canceled, ErrAbandoned, cause}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(context.Background())
				time.AfterFunc(5*time.Millisecond, func() { tt.cancel(cancel) })
				release := make(chan struct{})
				defer close(release)
				start := time.Now()
				_, err := Run(ctx, tt.timeout, func(context.Context) (int, error) {
					<-release
					return 1, nil
				})
				if d := time.Since(start); d != 5*time.Millisecond {
					t.Errorf("Run returned after %v, want 5ms, when the parent was cancelled", d)
				}
				for _, w := range tt.want {
					if !errors.Is(err, w) {
						t.Errorf("err = %v, want it to wrap %v", err, w)
					}
				}
			})
		})
	}
}

func TestRunCooperativeFunctionIsNotAbandoned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before := Abandoned()
		_, err := Run(context.Background(), 20*time.Millisecond, func(ctx context.Context) (int, error) {
			<-ctx.Done()
			return 0, ctx.Err()
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
		synctest.Wait()
		if n := Abandoned() - before; n != 0 {
			t.Errorf("Abandoned() is %d above its start, want 0", n)
		}
	})
}

func TestRunDeadline(t *testing.T) {
	tests := []struct {
		name    string
		parent  time.Duration // 0: no parent deadline
		timeout time.Duration
		want    time.Duration // 0: no deadline
	}{
		{"timeout only", 0, 20 * time.Millisecond, 20 * time.Millisecond},
		{"earlier parent wins", 10 * time.Millisecond, 20 * time.Millisecond, 10 * time.Millisecond},
		{"earlier timeout wins", time.Second, 20 * time.Millisecond, 20 * time.Millisecond},
		{"parent only", 10 * time.Millisecond, 0, 10 * time.Millisecond},
		{"none", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				if tt.parent > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.parent)
					defer cancel()
				}
				start := time.Now()
				got, _ := Run(ctx, tt.timeout, func(ctx context.Context) (time.Duration, error) {
					d, ok := ctx.Deadline()
					if !ok {
						return 0, nil
					}
					return d.Sub(start), nil
				})
				if got != tt.want {
					t.Errorf("fn saw a deadline %v from the start, want %v", got, tt.want)
				}
			})
		})
	}
}

func TestRunContextAlreadyDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, timeout := range []time.Duration{0, time.Hour} {
		called := false
		_, err := Run(ctx, timeout, func(context.Context) (int, error) { called = true; return 1, nil })
		if called {
			t.Errorf("timeout %v: fn was called with a done context", timeout)
		}
		if err != context.Canceled {
			t.Errorf("timeout %v: err = %v, want context.Canceled", timeout, err)
		}
	}
}

func TestRunGoexit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Run(ctx, 0, func(context.Context) (int, error) { runtime.Goexit(); return 1, nil })
	if err != ErrGoexit {
		t.Errorf("err = %v, want ErrGoexit", err)
	}
	_, err = Go(ctx, func(context.Context) (int, error) { runtime.Goexit(); return 1, nil }).Await(ctx)
	if err != ErrGoexit {
		t.Errorf("Go: err = %v, want ErrGoexit", err)
	}
}
