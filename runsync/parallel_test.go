package runsync

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestParallelOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := []int{0, 1, 2, 3, 4, 5, 6, 7}
		out, errs := Parallel(context.Background(), 0, in, func(_ context.Context, i, x int) (string, error) {
			// Later inputs finish first.
			time.Sleep(time.Duration(len(in)-i) * time.Millisecond)
			if x == 5 {
				return "", errTool
			}
			return fmt.Sprint(x * x), nil
		})
		wantOut := []string{"0", "1", "4", "9", "16", "", "36", "49"}
		wantErrs := []error{nil, nil, nil, nil, nil, errTool, nil, nil}
		if !reflect.DeepEqual(out, wantOut) {
			t.Errorf("out = %q, want %q", out, wantOut)
		}
		if !reflect.DeepEqual(errs, wantErrs) {
			t.Errorf("errs = %v, want %v", errs, wantErrs)
		}
	})
}

func TestParallelLimit(t *testing.T) {
	tests := []struct {
		limit, n, wantMax int
	}{
		{limit: 0, n: 10, wantMax: 10},
		{limit: -1, n: 10, wantMax: 10},
		{limit: 1, n: 10, wantMax: 1},
		{limit: 3, n: 10, wantMax: 3},
		{limit: 10, n: 10, wantMax: 10},
		{limit: 20, n: 10, wantMax: 10},
		{limit: 3, n: 0, wantMax: 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("limit=%d,n=%d", tt.limit, tt.n), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var inFlight, maxInFlight, calls atomic.Int64
				out, errs := Parallel(context.Background(), tt.limit, make([]struct{}, tt.n), func(context.Context, int, struct{}) (int, error) {
					calls.Add(1)
					now := inFlight.Add(1)
					for m := maxInFlight.Load(); now > m && !maxInFlight.CompareAndSwap(m, now); m = maxInFlight.Load() {
					}
					time.Sleep(time.Millisecond)
					inFlight.Add(-1)
					return 1, nil
				})
				if got := maxInFlight.Load(); got != int64(tt.wantMax) {
					t.Errorf("max in flight = %d, want %d", got, tt.wantMax)
				}
				if got := calls.Load(); got != int64(tt.n) {
					t.Errorf("fn called %d times, want %d", got, tt.n)
				}
				if len(out) != tt.n || len(errs) != tt.n {
					t.Errorf("len(out), len(errs) = %d, %d, want %d", len(out), len(errs), tt.n)
				}
			})
		})
	}
}

func TestParallelPanic(t *testing.T) {
	out, errs := Parallel(context.Background(), 2, []string{"a", "b", "c", "d"}, func(_ context.Context, i int, s string) (string, error) {
		if i == 2 {
			panic("bad input " + s)
		}
		return s + s, nil
	})
	if want := []string{"aa", "bb", "", "dd"}; !reflect.DeepEqual(out, want) {
		t.Errorf("out = %q, want %q", out, want)
	}
	for i, err := range errs {
		var pe *PanicError
		switch {
		case i == 2 && (!errors.As(err, &pe) || pe.Value != "bad input c"):
			t.Errorf("errs[2] = %v, want *PanicError(bad input c)", err)
		case i != 2 && err != nil:
			t.Errorf("errs[%d] = %v, want nil", i, err)
		}
	}
}

// Calls not yet started get ctx.Err(); Parallel still waits for the calls
// that did start, even when they ignore ctx.
func TestParallelCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var started, returned atomic.Int64
		secondStarted := make(chan struct{})
		start := time.Now()
		out, errs := Parallel(ctx, 2, []int{0, 1, 2, 3, 4, 5}, func(_ context.Context, i, x int) (int, error) {
			started.Add(1)
			defer returned.Add(1)
			switch i {
			case 0:
				// Cancel once both slots are taken; cancelling at once would
				// race Parallel's loop starting call 1.
				<-secondStarted
				cancel()
			case 1:
				close(secondStarted)
			}
			time.Sleep(10 * time.Millisecond) // ignores ctx
			return x + 100, nil
		})
		if d := time.Since(start); d != 10*time.Millisecond {
			t.Errorf("Parallel returned after %v, want 10ms (when the started calls returned)", d)
		}
		if s, r := started.Load(), returned.Load(); s != 2 || r != 2 {
			t.Errorf("started %d, returned %d calls; want 2 and 2", s, r)
		}
		if want := []int{100, 101, 0, 0, 0, 0}; !reflect.DeepEqual(out, want) {
			t.Errorf("out = %v, want %v", out, want)
		}
		want := []error{nil, nil, context.Canceled, context.Canceled, context.Canceled, context.Canceled}
		if !reflect.DeepEqual(errs, want) {
			t.Errorf("errs = %v, want %v", errs, want)
		}
	})
}
