package runsync

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// items returns a sequence that yields want and signals on exited when it
// returns, however it stops.
func items(want []Item[int], exited chan<- struct{}) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		if exited != nil {
			defer close(exited)
		}
		for _, it := range want {
			if !yield(it.Value, it.Err) {
				return
			}
		}
	}
}

// naturals yields 0, 1, 2, ... until its consumer stops, then closes exited.
func naturals(exited chan<- struct{}) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		defer close(exited)
		for i := 0; ; i++ {
			if !yield(i, nil) {
				return
			}
		}
	}
}

func collect(seq iter.Seq2[int, error]) []Item[int] {
	var got []Item[int]
	for v, err := range seq {
		got = append(got, Item[int]{v, err})
	}
	return got
}

func producerCount() int {
	n := 0
	producers.Range(func(any, any) bool { n++; return true })
	return n
}

func TestChanSeqRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   []Item[int]
	}{
		{"empty", nil},
		{"values", []Item[int]{{1, nil}, {2, nil}, {3, nil}}},
		{"errors pass through", []Item[int]{{1, nil}, {0, errTool}, {3, nil}, {4, errTool}}},
	}
	for _, tt := range tests {
		for _, buf := range []int{-1, 0, 1, 16} {
			t.Run(fmt.Sprintf("%s/buf=%d", tt.name, buf), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					ctx := context.Background()
					exited := make(chan struct{})
					got := collect(Seq(ctx, Chan(ctx, items(tt.in, exited), buf)))
					if !slices.Equal(got, tt.in) {
						t.Errorf("buf %d: got %v, want %v", buf, got, tt.in)
					}
					synctest.Wait()
					select {
					case <-exited:
					default:
						t.Errorf("buf %d: producer still running after the channel closed", buf)
					}
					if n := producerCount(); n != 0 {
						t.Errorf("buf %d: %d producers still registered, want 0", buf, n)
					}
				})
			})
		}
	}
}

// Breaking out of a loop over Seq(Chan(...)) must stop Chan's goroutine even
// though nobody cancels a context. If it did not, synctest.Test would also
// fail: the producer would stay blocked in the bubble forever.
func TestSeqBreakStopsProducer(t *testing.T) {
	for _, buf := range []int{0, 4} {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			exited := make(chan struct{})
			var got []int
			for v, err := range Seq(ctx, Chan(ctx, naturals(exited), buf)) {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				got = append(got, v)
				if len(got) == 3 {
					break
				}
			}
			if want := []int{0, 1, 2}; !reflect.DeepEqual(got, want) {
				t.Errorf("buf %d: got %v, want %v", buf, got, want)
			}
			synctest.Wait()
			select {
			case <-exited:
			default:
				t.Errorf("buf %d: producer still running after the consumer broke out", buf)
			}
			if n := producerCount(); n != 0 {
				t.Errorf("buf %d: %d producers still registered, want 0", buf, n)
			}
		})
	}
}

func TestChanCancelStopsProducer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		exited := make(chan struct{})
		ch := Chan(ctx, naturals(exited), 0)
		for i := range 2 {
			if it := <-ch; it.Value != i {
				t.Fatalf("item %d = %v, want %d", i, it.Value, i)
			}
		}
		cancel()
		synctest.Wait()
		select {
		case <-exited:
		default:
			t.Error("producer still running after cancel")
		}
		if _, ok := <-ch; ok {
			t.Error("channel still open after cancel")
		}
	})
}

func TestChanContextAlreadyDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		called := false
		seq := func(func(int, error) bool) { called = true }
		for it := range Chan(ctx, seq, 0) {
			t.Errorf("got item %v from a cancelled Chan", it)
		}
		if called {
			t.Error("seq was called with a done context")
		}
	})
}

func TestChanPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		seq := func(yield func(int, error) bool) {
			yield(1, nil)
			panic("stream broke")
		}
		got := collect(Seq(context.Background(), Chan(context.Background(), seq, 0)))
		if len(got) != 2 || got[0] != (Item[int]{1, nil}) {
			t.Fatalf("got %v, want the value 1 then a panic", got)
		}
		var pe *PanicError
		if !errors.As(got[1].Err, &pe) || pe.Value != "stream broke" {
			t.Errorf("last item error = %v, want *PanicError(stream broke)", got[1].Err)
		}
	})
}

func TestSeqContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan Item[int], 1)
		ch <- Item[int]{Value: 1}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		start := time.Now()
		got := collect(Seq(ctx, ch))
		if d := time.Since(start); d != 10*time.Millisecond {
			t.Errorf("Seq stopped after %v, want 10ms", d)
		}
		want := []Item[int]{{1, nil}, {0, context.DeadlineExceeded}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
}

func TestSeqForeignChannel(t *testing.T) {
	ch := make(chan Item[int], 3)
	ch <- Item[int]{Value: 1}
	ch <- Item[int]{Err: errTool}
	close(ch)
	got := collect(Seq(context.Background(), ch))
	want := []Item[int]{{1, nil}, {0, errTool}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
