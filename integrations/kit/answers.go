package kit

import (
	"context"
	"errors"

	"github.com/agentadapter/agentadapter/runsync"
)

// DefaultParallelism bounds the calls [Answers] runs at once when its
// limit is zero.
const DefaultParallelism = 4

// Answers runs the tool calls of one model turn with call, at most limit
// at once (zero or less: DefaultParallelism), for a framework that needs
// an answer for every call. It returns the answers in the calls' order:
// call's text (an output, or the payload of a failure the model should
// read), or, for a call that failed with a fault, its [FaultPayload]. The
// faults, joined, are the error; the answers are complete even then, so
// that a caller may go on.
func Answers[C any](ctx context.Context, limit int, calls []C, call func(context.Context, C) (string, error)) ([]string, error) {
	if limit <= 0 {
		limit = DefaultParallelism
	}
	outs, errs := runsync.Parallel(ctx, limit, calls, func(ctx context.Context, _ int, c C) (string, error) {
		return call(ctx, c)
	})
	var faults []error
	for i, err := range errs {
		if err != nil {
			faults = append(faults, err)
			outs[i] = FaultPayload(err)
		}
	}
	return outs, errors.Join(faults...)
}
