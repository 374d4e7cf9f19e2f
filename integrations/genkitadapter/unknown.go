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

// UnknownToolsMiddleware returns a model middleware, for ai.WithMiddleware,
// that answers requests for a tool the generation lacks with the not_found
// payload, recorded once in exec's ledger, so that the generation goes on
// instead of failing on the name. exec is required (nil panics). The
// requests and answers join the history ([kit.AnswerUnknown]); a turn of
// unknown requests only asks the model again, a few times at most.
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
