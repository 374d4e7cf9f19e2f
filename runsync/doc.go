// Package runsync bridges calling conventions: it runs a function under a
// deadline with panic containment, turns a goroutine into an awaitable
// [Future], adapts streams between iter.Seq2 and channels, and fans calls out
// with a concurrency limit.
//
//	out, err := runsync.Run(ctx, 2*time.Second, func(ctx context.Context) (string, error) {
//		return handler(ctx, args)
//	})
//	var pe *runsync.PanicError
//	switch {
//	case errors.As(err, &pe):
//		log.Printf("handler panicked: %v\n%s", pe.Value, pe.Stack)
//	case errors.Is(err, runsync.ErrAbandoned):
//		log.Printf("handler ignored its deadline: %v", err)
//	}
//
// The package knows nothing about tools; it imports only the standard
// library. A tool executor uses [Run] to time every call, and framework
// integrations use [Go], [Chan] and [Seq] to speak whatever convention the
// framework expects.
//
// # Deadlines and abandoned goroutines
//
// Go cannot stop a goroutine from outside, so [Run] calls the function on
// another goroutine (a long-lived worker, whose grown stack serves call
// after call) and waits for whichever comes first: the result, or the end
// of the context. A function that ignores its context is left
// running on its worker, which is retired, and its result is discarded when
// it finally arrives. Run then
// returns an error that wraps both [ErrAbandoned] and ctx.Err(), so
// errors.Is(err, context.DeadlineExceeded) holds as it would for a
// cooperative function, and errors.Is(err, ErrAbandoned) tells the two
// apart.
//
// [Abandoned] counts such goroutines until they return. It is meant for a
// gauge: a value that keeps rising names a function that needs fixing, not a
// condition that the program can repair.
//
// When there is no deadline to enforce, because the timeout is zero and the
// context can never be cancelled, Run calls the function inline and costs no
// more than [Recover].
//
// [OnWorker] borrows the same workers for a function that honours its
// context but runs deep, called from a goroutine started per request: it
// waits for the function however long it takes, as Recover does, and
// spares the fresh goroutine growing its stack again on every request.
//
// # Panics
//
// A panic never crosses a runsync boundary. [Run], [Recover], [Go],
// [Parallel] and [Chan] turn it into a *[PanicError] holding the panic value
// and the stack at the point of recovery. Its Error method leaves the stack
// out, so the message can be returned to a model; log the Stack field
// instead. A panic value that is itself an error is available to errors.Is
// and errors.As through Unwrap.
//
// A function that calls runtime.Goexit (testing.T.FailNow does) in a
// goroutine started by this package yields [ErrGoexit] rather than leaving
// its caller waiting forever.
//
// # Futures
//
// [Go] starts a function and returns a [Future]. Any number of goroutines
// may call [Future.Await], each with its own context; all see the same
// result. An Await whose context ends returns early without affecting the
// function, which keeps running until it returns on its own.
//
// # Streams
//
// [Chan] and [Seq] convert between an iter.Seq2[T, error] and a channel of
// [Item]. Chan runs the sequence in a goroutine that stops when the context
// is cancelled. Seq stops when the channel closes or its context ends; when
// it ranges over a channel made by Chan, breaking out of the loop stops
// Chan's goroutine too, so the idiomatic loop leaks nothing:
//
//	for v, err := range runsync.Seq(ctx, runsync.Chan(ctx, stream, 16)) {
//		if err != nil {
//			return err
//		}
//		if done(v) {
//			break // stops the producer
//		}
//	}
//
// # Fan-out
//
// [Parallel] calls a function for each element of a slice with a bound on
// the calls in flight, and returns results and errors in input order. It
// never returns while one of its calls is still running.
package runsync
