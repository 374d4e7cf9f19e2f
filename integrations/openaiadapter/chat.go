package openaiadapter

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

// ErrPending reports tool calls held for approval ([Conversation].Held).
var ErrPending = errors.New("openaiadapter: tool calls await approval")

// ChatAnswers runs the tool calls of a completion's message, in ctx's run
// scope or in none ([adapter.WithRun] opens one), and returns a tool message
// per call decided, in order (to append after message.ToParam()), and the
// calls held for approval. Faults, joined, are the error; their calls read
// a fault payload, so that the messages are complete. A call with no type
// (some compatible servers omit it) is a function call; ToParam drops it.
func (t *Toolset) ChatAnswers(ctx context.Context, message openai.ChatCompletionMessage) ([]openai.ChatCompletionMessageParamUnion, []*kit.HeldCall, error) {
	return answers(ctx, t, message.ToolCalls, func(tc openai.ChatCompletionMessageToolCallUnion) call {
		if tc.Type != "function" && tc.Type != "" { // custom: a name no function has, not_found ("" is a function: some servers omit it)
			return call{name: tc.Type + ":" + tc.Custom.Name, id: tc.ID}
		}
		return call{name: tc.Function.Name, args: tc.Function.Arguments, id: tc.ID}
	}, toolMessage)
}

func toolMessage(c call, o outcome) openai.ChatCompletionMessageParamUnion {
	return openai.ToolMessage(o.text, c.id)
}

// ChatResume runs held calls again, each presenting its ticket with the
// arguments it holds: approved, a call runs once; denied (or given other
// arguments), it reads approval_denied; pending or spent, it is held again.
func (t *Toolset) ChatResume(ctx context.Context, held []*kit.HeldCall) ([]openai.ChatCompletionMessageParamUnion, []*kit.HeldCall, error) {
	return answers(ctx, t, held, resumed, toolMessage)
}

// Conversation is the state of a Chat Completions loop.
type Conversation struct {
	Messages   []openai.ChatCompletionMessageParamUnion // the request's, then each turn's and its answers
	Completion *openai.ChatCompletion                   // the last: the answer, once done
	Held       []*kit.HeldCall                          // the last turn's calls awaiting approval, unanswered
	Run        *adapter.Run                             // the run scope, which Resume continues
}

// Loop runs Chat Completions on params (Tools, when empty, the toolset's)
// until the model answers without tool calls, answering each turn with
// [Toolset.ChatAnswers], all in one run scope: ctx's, or a new one. Held
// calls stop it once their turn is answered, with [ErrPending]. An error
// comes with the conversation so far (kit.ErrMaxTurns past Options.MaxTurns);
// a fault in a turn that holds calls is the error, Held set all the same.
func (t *Toolset) Loop(ctx context.Context, chat *openai.ChatCompletionService, params openai.ChatCompletionNewParams, opts ...option.RequestOption) (*Conversation, error) {
	return t.Resume(ctx, chat, &Conversation{Messages: params.Messages}, params, opts...)
}

// Resume is Loop's resume (ChatResume and ResponseResume serve a loop of
// your own): it runs conv's held calls ([Toolset.ChatResume]) in conv's run
// scope unless ctx has one and, once none is held, loops on with params
// (Messages: conv's), Options.MaxTurns afresh. conv is not modified;
// resuming it again presents spent tickets, which run nothing.
func (t *Toolset) Resume(ctx context.Context, chat *openai.ChatCompletionService, conv *Conversation, params openai.ChatCompletionNewParams, opts ...option.RequestOption) (*Conversation, error) {
	if conv == nil || chat == nil {
		return conv, errors.New("openaiadapter: nil conversation or ChatCompletionService")
	}
	ctx, run := kit.ContinueRun(ctx, conv.Run)
	conv = &Conversation{Messages: slices.Clip(conv.Messages), Completion: conv.Completion, Held: conv.Held, Run: run}
	if len(conv.Held) > 0 {
		msgs, held, err := t.ChatResume(ctx, conv.Held)
		if conv.Messages, conv.Held = append(conv.Messages, msgs...), held; err != nil || len(held) > 0 {
			return conv, cmp.Or(err, ErrPending)
		}
	}
	if len(params.Tools) == 0 {
		params.Tools = t.ChatTools()
	}
	var err error
	conv.Messages, err = kit.Loop(ctx, t.opts.MaxTurns, conv.Messages, func(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion) (openai.ChatCompletionMessageParamUnion, []openai.ChatCompletionMessage, error) {
		params.Messages = msgs
		c, err := chat.New(ctx, params, opts...)
		if err != nil || len(c.Choices) == 0 {
			return openai.ChatCompletionMessageParamUnion{}, nil, cmp.Or(err, errNoChoice)
		}
		conv.Completion = c
		m := c.Choices[0].Message
		for i := range m.ToolCalls { // a call with no type (some compatible servers): ToParam would drop it
			m.ToolCalls[i].Type = cmp.Or(m.ToolCalls[i].Type, "function")
		}
		return m.ToParam(), slices.Repeat([]openai.ChatCompletionMessage{m}, min(len(m.ToolCalls), 1)), nil
	}, func(ctx context.Context, ms []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessageParamUnion, error) {
		out, held, err := t.ChatAnswers(ctx, ms[0])
		if conv.Held = held; len(held) > 0 {
			err = cmp.Or(err, ErrPending)
		}
		return out, err
	})
	return conv, err
}

var errNoChoice = errors.New("openaiadapter: the completion has no choice")
