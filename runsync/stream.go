package runsync

import (
	"context"
	"iter"
	"sync"
)

// Item is one element of a stream carried over a channel: a value or an
// error, as yielded by an iter.Seq2[T, error].
type Item[T any] struct {
	Value T
	Err   error
}

// producers maps a channel returned by Chan to the function that stops its
// producer, so that Seq can stop it when its consumer stops early.
var producers sync.Map // map[any]context.CancelFunc

// Chan runs seq in a goroutine and delivers its items on the returned
// channel (buffer size buf), closing it at the end. Cancelling ctx stops the
// producer (the goroutine ends) and closes the channel; items not yet
// received may be dropped.
//
// Error items are delivered like any other; Chan keeps reading seq until seq
// stops. A panic in seq is delivered as a final item whose Err is a
// *[PanicError].
//
// The producer can only be stopped when seq yields: a seq blocked on
// something that ignores ctx keeps the goroutine alive until it yields or
// returns.
//
// If the channel is later consumed through [Seq] and that consumer stops
// early (breaks out of its loop, or its ctx ends), the producer is stopped
// too, as if ctx had been cancelled.
func Chan[T any](ctx context.Context, seq iter.Seq2[T, error], buf int) <-chan Item[T] {
	ch := make(chan Item[T], max(buf, 0))
	ctx, cancel := context.WithCancel(ctx)
	var out <-chan Item[T] = ch
	producers.Store(out, cancel)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				select {
				case ch <- Item[T]{Err: newPanicError(r)}:
				case <-ctx.Done():
				}
			}
			producers.Delete(out)
			cancel()
			close(ch)
		}()
		if ctx.Err() != nil {
			return
		}
		for v, err := range seq {
			select {
			case ch <- Item[T]{Value: v, Err: err}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// stopProducer stops the Chan goroutine feeding ch, if there is one.
func stopProducer[T any](ch <-chan Item[T]) {
	if stop, ok := producers.Load(ch); ok {
		stop.(context.CancelFunc)()
	}
}

// Seq turns a channel of items into an iter.Seq2. It stops when the channel
// closes or ctx ends; in the latter case it yields ctx.Err() once.
//
// The sequence is single-use: it consumes ch. If ch was returned by [Chan],
// stopping early (a break in the loop body, or ctx ending) also stops Chan's
// producer, so a loop that breaks leaks no goroutine.
func Seq[T any](ctx context.Context, ch <-chan Item[T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		done := ctx.Done()
		for {
			select {
			case it, ok := <-ch:
				if !ok {
					return
				}
				if !yield(it.Value, it.Err) {
					stopProducer(ch)
					return
				}
			case <-done:
				stopProducer(ch)
				var zero T
				yield(zero, ctx.Err())
				return
			}
		}
	}
}
