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
// records each such call in exec's ledger, once, as every call is recorded
// ([adapter.Executor.Unknown]). Install it with
// ai.WithMiddleware(genkitadapter.UnknownToolsMiddleware(exec)). exec is
// required: nil panics here, not at the first made-up name.
//
// Genkit has no hook for unknown tools, so the middleware answers them
// itself: the model's message with those requests and a tool message with
// the answers join the request's history (genkit keeps them in the
// response's history), and the rest of the model's message — its requests
// for real tools — goes to genkit as usual. When every request of a turn was
// unknown, the model is asked again with the answers, at most a few times a
// turn.
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
				unknown, rest, hasCalls := kit.SplitUnknown(resp.Message.Content, toolName, func(n string) bool { return known[n] })
				if len(unknown) == 0 {
					return resp, nil
				}
				answers := make([]*ai.Part, len(unknown))
				for i, p := range unknown {
					args, _ := json.Marshal(p.ToolRequest.Input)
					payload := kit.Unknown(ctx, exec, &adapter.Request{Tool: p.ToolRequest.Name, Args: args, CallID: p.ToolRequest.Ref, Integration: Integration})
					answers[i] = ai.NewToolResponsePart(&ai.ToolResponse{
						Name: p.ToolRequest.Name, Ref: p.ToolRequest.Ref, Output: json.RawMessage(payload), // as this package outputs every payload
					})
				}
				asked := *resp.Message
				asked.Content = unknown
				if !hasCalls {
					// The turn's text goes with the unknown calls: the model
					// is asked again and answers afresh.
					asked.Content = append(rest, unknown...)
				}
				req.Messages = append(req.Messages, &asked, ai.NewMessage(ai.RoleTool, nil, answers...))
				if hasCalls {
					msg := *resp.Message
					msg.Content = rest
					out := *resp
					out.Message = &msg
					return &out, nil
				}
			}
		}
	}
}

func toolName(p *ai.Part) (string, bool) {
	if !p.IsToolRequest() {
		return "", false
	}
	return p.ToolRequest.Name, true
}
