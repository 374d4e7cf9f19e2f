package kit

import (
	"context"
	"errors"

	"github.com/agentadapter/agentadapter/adapter"
)

// DefaultMaxTurns bounds [Loop] when its maxTurns is zero.
const DefaultMaxTurns = 10

// ErrMaxTurns is returned by [Loop] when the model still asks for tools
// after the last turn.
var ErrMaxTurns = errors.New("the model did not finish within the turn limit")

// Loop runs a function-calling loop, for a framework whose model the
// integration calls itself, on conv, the conversation so far: turn calls
// the model with the conversation and returns its reply and the reply's
// tool calls; answer answers them (with [Answers], say) with messages to
// append. Loop appends both and repeats until the model replies without
// tool calls. It returns the conversation and the first error of turn or
// answer (the conversation then holds what answer returned with it), or
// ErrMaxTurns after maxTurns turns (zero or less: DefaultMaxTurns). All
// the calls share one run scope, ctx's or a new one ([adapter.WithRun]).
func Loop[M, C any](ctx context.Context, maxTurns int, conv []M, turn func(context.Context, []M) (M, []C, error), answer func(context.Context, []C) ([]M, error)) ([]M, error) {
	if maxTurns <= 0 {
		maxTurns = DefaultMaxTurns
	}
	ctx, _ = adapter.WithRun(ctx, nil)
	for range maxTurns {
		reply, calls, err := turn(ctx, conv)
		if err != nil {
			return conv, err
		}
		conv = append(conv, reply)
		if len(calls) == 0 {
			return conv, nil
		}
		answers, err := answer(ctx, calls)
		conv = append(conv, answers...)
		if err != nil {
			return conv, err
		}
	}
	return conv, ErrMaxTurns
}
