package kit

import (
	"context"

	"github.com/agentadapter/agentadapter/adapter"
)

// UnknownRounds bounds the times [AskKnown] asks a model again within one
// turn because it called only tools the agent lacks.
const UnknownRounds = 4

// AskKnown asks a model, through ask, for a turn the framework can run,
// for a framework whose agent loop fails on a made-up tool name (a model
// middleware): a turn calling tools known does not report has them
// answered ([AnswerUnknown], recorded in exec's ledger), and record adds
// its Asked and Answers to the history ask sends next; a turn that called
// only such tools asks again, at most [UnknownRounds] times (the turn
// after is the framework's as it is). rest are the parts of the last turn
// the framework is to run, when answered; otherwise the turn is the
// framework's unchanged. A turn ask reports as not ok (no message) ends
// it, as does an error of ask, returned as it is.
func AskKnown[P any](ctx context.Context, exec *adapter.Executor, known func(tool string) bool, call func(P) *adapter.Request, answer func(call P, payload string) P, ask func(context.Context) (parts []P, ok bool, err error), record func(asked, answers []P)) (rest []P, answered bool, err error) {
	for round := 0; ; round++ {
		parts, ok, err := ask(ctx)
		if err != nil || !ok || round == UnknownRounds {
			return nil, false, err
		}
		turn, ok := AnswerUnknown(ctx, exec, parts, known, call, answer)
		if !ok {
			return nil, false, nil
		}
		record(turn.Asked, turn.Answers)
		if !turn.Again {
			return turn.Rest, true, nil
		}
	}
}
