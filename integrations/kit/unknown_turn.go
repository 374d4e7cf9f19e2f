package kit

import (
	"context"
	"slices"

	"github.com/agentadapter/agentadapter/adapter"
)

// UnknownTurn is a model's turn whose calls to tools the agent does not
// have are answered ([AnswerUnknown]), for a framework with no hook for
// them: the history gains Asked, as the model's message, and Answers, as
// a tool message, so that the model reads the answers; the framework
// gets Rest, unless the model is to be asked again.
type UnknownTurn[P any] struct {
	// Asked are the parts of the turn that go into the history with the
	// answers: the unknown calls, after the turn's other parts when Again.
	Asked []P
	// Answers are the not_found answers of the unknown calls, in order.
	Answers []P
	// Rest are the turn's other parts, in order, for the framework to run
	// (its calls to real tools and the text with them); nil when Again.
	Rest []P
	// Again reports a turn that called no real tool: the model is to be
	// asked again, with the answers in its history.
	Again bool
}

// AnswerUnknown sorts the parts of a model's turn ([SplitUnknown]) and
// answers each call to a tool known does not report with [Unknown],
// recorded in exec's ledger (a nil exec records nothing). call returns the
// request a part makes (its Tool, Args, CallID and Integration), nil for
// a part that calls no tool (it may be called more than once for a part);
// answer makes the answer to a call from its payload. ok is false for a
// turn that calls no unknown tool.
func AnswerUnknown[P any](ctx context.Context, exec *adapter.Executor, parts []P, known func(tool string) bool, call func(P) *adapter.Request, answer func(call P, payload string) P) (turn UnknownTurn[P], ok bool) {
	unknown, rest, calls := SplitUnknown(parts, func(p P) (string, bool) {
		if r := call(p); r != nil {
			return r.Tool, true
		}
		return "", false
	}, known)
	if len(unknown) == 0 {
		return UnknownTurn[P]{}, false
	}
	turn = UnknownTurn[P]{Asked: unknown, Rest: rest, Again: !calls}
	if !calls {
		turn.Asked, turn.Rest = slices.Concat(rest, unknown), nil
	}
	for _, p := range unknown {
		turn.Answers = append(turn.Answers, answer(p, Unknown(ctx, exec, call(p))))
	}
	return turn, true
}
