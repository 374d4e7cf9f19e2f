package runsync

import (
	"context"
	"sync"
)

// Parallel calls fn for each input with at most limit calls in flight
// (limit <= 0 means len(in)), and returns results and errors in input order
// (errs[i] is nil on success). fn receives the index and the input.
//
// A panic in one call becomes that call's *[PanicError]; the other calls are
// unaffected. Cancelling ctx: calls not yet started get ctx.Err(); Parallel
// returns only after every started call has returned, so fn must honour ctx
// for cancellation to be prompt.
func Parallel[In, Out any](ctx context.Context, limit int, in []In, fn func(context.Context, int, In) (Out, error)) ([]Out, []error) {
	out := make([]Out, len(in))
	errs := make([]error, len(in))
	if limit <= 0 || limit > len(in) {
		limit = len(in)
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, x := range in {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		// Checked after acquiring too: select picks at random when both are ready.
		if err := ctx.Err(); err != nil {
			for j := i; j < len(in); j++ {
				errs[j] = err
			}
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			capture(ctx, func(ctx context.Context) (Out, error) { return fn(ctx, i, x) }, &out[i], &errs[i])
		})
	}
	wg.Wait()
	return out, errs
}
