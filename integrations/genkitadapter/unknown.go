package genkitadapter

import (
	"context"
	"encoding/json"

	"github.com/firebase/genkit/go/ai"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

// maxUnknownRounds bounds the model calls one turn may spend on made-up
// tool names before genkit sees the response (and fails on the name).
const maxUnknownRounds = 4

// UnknownToolsMiddleware returns a model middleware that answers tool
// requests naming a tool the generation does not have with the not_found
// payload every integration gives, so that the model reads it and the
// generation goes on (without it, genkit's Generate fails on the name), and
// records each such call in exec's ledger once ([adapter.Executor.Unknown]).
// Install it with ai.WithMiddleware. exec is required: nil panics here, not
// at the first made-up name.
//
// Genkit has no hook for unknown tools ([kit.AnswerUnknown]): the model's
// message with those requests and a tool message with the answers join the
// request's history (and so the response's), and the rest of the message,
// its requests for real tools, goes to genkit as usual. When every request
// of a turn was unknown, the model is asked again, at most a few times.
func UnknownToolsMiddleware(exec *adapter.Executor) ai.ModelMiddleware {
	if exec == nil {
		panic(errNilExecutor)
	}
	return unknownTools(exec)
}

// UnknownTools is [UnknownToolsMiddleware] that leaves no ledger record.
//
// Deprecated: every call is to have a record; use [UnknownToolsMiddleware].
func UnknownTools() ai.ModelMiddleware { return unknownTools(nil) }

// unknownTools is the middleware; a nil exec records nothing.
func unknownTools(exec *adapter.Executor) ai.ModelMiddleware {
	return func(next ai.ModelFunc) ai.ModelFunc {
		return func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			known := make(map[string]bool, len(req.Tools))
			for _, t := range req.Tools {
				known[t.Name] = true
			}
			for round := 0; ; round++ {
				resp, err := next(ctx, req, cb)
				if err != nil || resp == nil || resp.Message == nil || round == maxUnknownRounds {
					return resp, err
				}
				turn, ok := kit.AnswerUnknown(ctx, exec, resp.Message.Content, func(n string) bool { return known[n] }, toolCall, answer)
				if !ok {
					return resp, nil
				}
				asked := *resp.Message
				asked.Content = turn.Asked
				req.Messages = append(req.Messages, &asked, ai.NewMessage(ai.RoleTool, nil, turn.Answers...))
				if !turn.Again {
					msg, out := *resp.Message, *resp
					msg.Content, out.Message = turn.Rest, &msg
					return &out, nil
				}
			}
		}
	}
}

// toolCall and answer are genkit's side of kit.AnswerUnknown.
func toolCall(p *ai.Part) *adapter.Request {
	if !p.IsToolRequest() {
		return nil
	}
	args, _ := json.Marshal(p.ToolRequest.Input)
	return &adapter.Request{Tool: p.ToolRequest.Name, Args: args, CallID: p.ToolRequest.Ref, Integration: Integration}
}

func answer(p *ai.Part, payload string) *ai.Part {
	return ai.NewToolResponsePart(&ai.ToolResponse{Name: p.ToolRequest.Name, Ref: p.ToolRequest.Ref, Output: json.RawMessage(payload)})
}
