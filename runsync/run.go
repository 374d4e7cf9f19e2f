package runsync

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// ErrAbandoned is wrapped, together with the context's error, in the error
// that [Run] returns when it stops waiting for a function that is still
// running. It lets callers tell "the function honoured ctx and returned
// ctx.Err()" apart from "the function ignored ctx and was left behind".
var ErrAbandoned = errors.New("runsync: call abandoned")

// ErrGoexit is the error reported for a function that called
// [runtime.Goexit] (for example through testing.T.FailNow) in a goroutine
// started by this package, instead of returning.
var ErrGoexit = errors.New("runsync: function called runtime.Goexit")

// PanicError is the error that a recovered panic becomes.
type PanicError struct {
	Value any    // the value passed to panic
	Stack []byte // debug.Stack() at recovery
}

func newPanicError(v any) *PanicError {
	return &PanicError{Value: v, Stack: debug.Stack()}
}

// Error returns "panic: " followed by the panic value. The stack is left out
// so that the message is safe to show to a model or a user.
func (e *PanicError) Error() string {
	return fmt.Sprintf("panic: %v", e.Value)
}

// Unwrap returns Value if it is an error, and nil otherwise.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// abandoned counts goroutines whose caller stopped waiting but that have not
// returned yet.
var abandoned atomic.Int64

// Abandoned reports how many goroutines started by [Run] (or [Go]) are still
// running after their caller gave up on them (deadline/cancel). It goes back
// down when they finally return.
//
// A value that stays above zero means some function ignores its context;
// export it as a gauge.
func Abandoned() int64 { return abandoned.Load() }

// Task states. A task moves from running to exactly one of finished (fn
// returned first) or gaveUp (the caller stopped waiting first); whichever
// side loses the race fixes up the counter.
const (
	running int32 = iota
	finished
	gaveUp
)

type task struct{ state atomic.Int32 }

// giveUp marks t abandoned and reports whether it was still running. The
// counter goes up before the state changes so that finish can never take it
// below zero.
func (t *task) giveUp() bool {
	abandoned.Add(1)
	if t.state.CompareAndSwap(running, gaveUp) {
		return true
	}
	abandoned.Add(-1)
	return false
}

// finish marks t done, releasing its abandonment count if it had one, and
// reports whether t had been abandoned.
func (t *task) finish() (wasAbandoned bool) {
	if !t.state.CompareAndSwap(running, finished) {
		abandoned.Add(-1)
		return true
	}
	return false
}

// capture calls fn and stores its results, turning a panic into a
// *PanicError. If fn calls runtime.Goexit the stores never happen and *err
// keeps ErrGoexit; the caller's deferred calls still run.
func capture[T any](ctx context.Context, fn func(context.Context) (T, error), v *T, err *error) {
	*err = ErrGoexit
	defer func() {
		if r := recover(); r != nil {
			var zero T
			*v, *err = zero, newPanicError(r)
		}
	}()
	*v, *err = fn(ctx)
}

// Recover calls fn inline (same goroutine, no deadline) and converts a panic
// into *PanicError. Cheap: for hot paths that need panic containment only.
//
// Unlike [Run], Recover cannot contain runtime.Goexit: it ends the calling
// goroutine, as it would without Recover.
func Recover[T any](ctx context.Context, fn func(context.Context) (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			v, err = zero, newPanicError(r)
		}
	}()
	return fn(ctx)
}

// runCall is everything one Run shares with the worker that runs it, in
// one allocation.
type runCall[T any] struct {
	task
	ctx context.Context
	fn  func(context.Context) (T, error)
	v   T
	err error
}

func (c *runCall[T]) run() (wasAbandoned bool) {
	defer func() { wasAbandoned = c.finish() }()
	capture(c.ctx, c.fn, &c.v, &c.err)
	return false
}

// Run calls fn synchronously under a deadline with panic recovery.
//
// If timeout > 0 the context passed to fn gets that deadline (bounded by
// ctx's own). fn runs on another goroutine (a reused worker; one that is
// abandoned is never reused) so that the caller never waits
// past the deadline or cancellation even when fn ignores ctx: in that case
// Run returns when ctx ends, with an error that wraps [ErrAbandoned] and
// ctx.Err() (so errors.Is(err, context.DeadlineExceeded) or
// errors.Is(err, context.Canceled) holds), the goroutine is counted by
// [Abandoned], and its eventual result is discarded. If fn has already
// returned when ctx ends, its result wins.
//
// A panic in fn becomes a *[PanicError], never a crash; runtime.Goexit in fn
// becomes [ErrGoexit].
//
// If ctx is already done, fn is not called and Run returns ctx.Err(). If ctx
// can never be cancelled (its Done channel is nil) and timeout <= 0 there is
// nothing to give up on, so fn runs inline, as with [Recover].
func Run[T any](ctx context.Context, timeout time.Duration, fn func(context.Context) (T, error)) (T, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	done := ctx.Done()
	if done == nil {
		return Recover(ctx, fn)
	}
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	c := &runCall[T]{ctx: ctx, fn: fn}
	if inBubble() {
		// A worker shared with code outside the bubble must not touch the
		// bubble's channels and timers (that panics): a goroutine of its own.
		w := &worker{done: make(chan bool, 1)}
		go w.do(c)
		return wait(ctx, done, c, w, false)
	}
	w := getWorker()
	w.jobs <- c
	return wait(ctx, done, c, w, true)
}

// OnWorker calls fn on a long-lived worker goroutine with panic recovery
// and waits for it to return, however long that takes: the contract of
// [Recover], on another goroutine. It is for a function that honours its
// context and runs deep, called from a goroutine started per request (an
// HTTP or JSON-RPC server's): an RPC client's call, say, with its encoder
// and transport below it. Run inline, such a function grows the fresh
// goroutine's stack anew on every request, copying it at each doubling; a
// worker's stack, grown by the calls before, already fits it. Handing the
// call over costs two channel operations, so for a shallow function
// [Recover] is cheaper.
//
// ctx is passed to fn as it is, and OnWorker never gives up on fn: use
// [Run] for a function that may ignore its context. Unlike Recover,
// OnWorker contains runtime.Goexit: fn calling it yields [ErrGoexit].
func OnWorker[T any](ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	c := &runCall[T]{ctx: ctx, fn: fn}
	if inBubble() {
		w := &worker{done: make(chan bool, 1)}
		go w.do(c)
		<-w.done
		return c.v, c.err
	}
	w := getWorker()
	w.jobs <- c
	if <-w.done {
		putWorker(w)
	}
	return c.v, c.err
}

func wait[T any](ctx context.Context, done <-chan struct{}, c *runCall[T], w *worker, pooled bool) (T, error) {
	select {
	case reusable := <-w.done:
		if reusable && pooled {
			putWorker(w)
		}
	case <-done:
		if c.giveUp() {
			var zero T
			return zero, abandonedError(ctx) // the worker exits once fn returns
		}
		// fn returned just now; its result is about to be published.
		if reusable := <-w.done; reusable && pooled {
			putWorker(w)
		}
	}
	return c.v, c.err
}

// inBubble reports whether the caller may be in a testing/synctest bubble,
// whose clock starts at midnight UTC on 1 January 2000 and moves only as
// its goroutines sleep. There is no public way to ask; a clock before 2020
// may be a bubble's, so such callers get a goroutine of their own, which is
// always correct, just slower.
func inBubble() bool { return time.Now().Before(bubbleEpochEnd) }

var bubbleEpochEnd = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

func abandonedError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("%w: %w: %w", ErrAbandoned, err, cause)
	}
	return fmt.Errorf("%w: %w", ErrAbandoned, err)
}
