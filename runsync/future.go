package runsync

import "context"

// Future is the result of a function running in its own goroutine, started
// by [Go].
type Future[T any] struct {
	task
	done chan struct{}
	v    T
	err  error
}

// Go calls fn in a new goroutine and returns a Future for its result. A
// panic in fn becomes a *[PanicError] result, runtime.Goexit becomes
// [ErrGoexit].
//
// If ctx is already done, fn is not called and the Future holds ctx.Err().
// If ctx ends while fn is still running, the goroutine counts as abandoned
// (see [Abandoned]) until fn returns.
func Go[T any](ctx context.Context, fn func(context.Context) (T, error)) *Future[T] {
	f := &Future[T]{done: make(chan struct{})}
	if err := ctx.Err(); err != nil {
		f.err = err
		close(f.done)
		return f
	}
	var stop func() bool
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, func() { f.giveUp() })
	}
	go f.run(ctx, fn, stop)
	return f
}

func (f *Future[T]) run(ctx context.Context, fn func(context.Context) (T, error), stop func() bool) {
	defer func() {
		if stop != nil {
			stop()
		}
		f.finish()
		close(f.done)
	}()
	capture(ctx, fn, &f.v, &f.err)
}

// Await waits for the result or for ctx to end, whichever comes first. It
// may be called many times and from many goroutines; all get the same
// result. A result that is already available is returned even if ctx has
// ended.
//
// If Await returns early because ctx ended, it returns ctx.Err() and the
// function keeps running; nothing leaks once it returns.
func (f *Future[T]) Await(ctx context.Context) (T, error) {
	select {
	case <-f.done:
		return f.v, f.err
	default:
	}
	select {
	case <-f.done:
		return f.v, f.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Done returns a channel that is closed when the result is available.
func (f *Future[T]) Done() <-chan struct{} { return f.done }
