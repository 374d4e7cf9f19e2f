package genkitadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Approval is the interrupt of a call held for approval by a tool of this package.
type Approval struct {
	Part    *ai.Part        // the interrupted tool request, as in the response
	Tool    string          // the tool's name
	Ticket  string          // the ticket to approve or deny (adapter.Deferred.Approve)
	Args    json.RawMessage // the arguments the ticket was issued for
	Message string          // the executor's explanation
}

// Restart returns the part restarting the call with its ticket: approved,
// it runs these arguments once; denied, it reads approval_denied.
func (a *Approval) Restart() *ai.Part { return restartPart(a.Part, nil) }

// Approvals returns the approval interrupts of resp raised by this
// package's tools, in message order; other interrupts are skipped.
func Approvals(resp *ai.ModelResponse) []*Approval {
	var out []*Approval
	for _, p := range resp.Interrupts() {
		if a := approvalOf(p); a != nil {
			out = append(out, a)
		}
	}
	return out
}

func approvalOf(p *ai.Part) *Approval {
	meta, _ := p.Metadata["interrupt"].(map[string]any)
	h, ok := kit.HeldFromMetadata(meta)
	if r := toolCall(p); r != nil && ok {
		return &Approval{Part: p, Tool: r.Tool, Ticket: h.Ticket, Args: r.Args, Message: h.Message}
	}
	return nil
}

// Resume continues a generation stopped on approvals: decide approves or
// denies each ticket (an error aborts), then the calls restart with resp's
// history and opts (the first call's model and tools). An interrupt of
// another origin is an error, as is resuming twice: genkit fails a
// restarted call that interrupts again, so nothing runs twice.
func Resume(ctx context.Context, g *genkit.Genkit, resp *ai.ModelResponse, decide func(context.Context, *Approval) error, opts ...ai.GenerateOption) (*ai.ModelResponse, error) {
	if resp == nil || resp.FinishReason != ai.FinishReasonInterrupted {
		return nil, errors.New("genkitadapter: Resume needs an interrupted response")
	}
	var restarts []*ai.Part
	for _, p := range resp.Interrupts() {
		a := approvalOf(p)
		if a == nil {
			return nil, fmt.Errorf("genkitadapter: interrupt of tool %q was not raised by genkitadapter; resume it with ai.WithToolResponses or ai.WithToolRestarts", p.ToolRequest.Name)
		}
		if err := decide(ctx, a); err != nil {
			return nil, err
		}
		restarts = append(restarts, a.Restart())
	}
	opts = append(slices.Clip(opts), ai.WithMessages(resp.History()...), ai.WithToolRestarts(restarts...))
	return genkit.Generate(ctx, g, opts...)
}

// genkitTool lends Tool genkit's Respond and Restart, which ignore their tool.
var genkitTool = &ai.ToolDef[any, any]{}

// restartPart is genkit's restart of p, an approval's ticket in the input ([kit.Resume]).
func restartPart(p *ai.Part, opts *ai.RestartOptions) *ai.Part {
	np := genkitTool.Restart(p, opts)
	if a := approvalOf(p); a != nil {
		if args, err := json.Marshal(np.ToolRequest.Input); err == nil {
			np.ToolRequest.Input = kit.Resume{Ticket: a.Ticket, Ref: p.ToolRequest.Ref, Args: args}.Input()
		}
	}
	return np
}

// UnknownToolsMiddleware returns a model middleware answering requests for
// a tool the generation lacks with the not_found payload, recorded in exec's
// ledger (exec nil panics); requests and answers join the history
// ([kit.AnswerUnknown]), and a turn of them only asks the model again.
func UnknownToolsMiddleware(exec *adapter.Executor) ai.ModelMiddleware {
	if exec == nil {
		panic(errNilExecutor)
	}
	return func(next ai.ModelFunc) ai.ModelFunc {
		return func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (resp *ai.ModelResponse, err error) {
			known := func(n string) bool {
				return slices.ContainsFunc(req.Tools, func(t *ai.ToolDefinition) bool { return t.Name == n })
			}
			rest, answered, err := kit.AskKnown(ctx, exec, known, toolCall, answer, func(ctx context.Context) ([]*ai.Part, bool, error) {
				if resp, err = next(ctx, req, cb); err != nil || resp == nil || resp.Message == nil {
					return nil, false, err
				}
				return resp.Message.Content, true, nil
			}, func(asked, answers []*ai.Part) {
				msg := *resp.Message
				msg.Content = asked
				req.Messages = append(req.Messages, &msg, ai.NewMessage(ai.RoleTool, nil, answers...))
			})
			if answered {
				msg, out := *resp.Message, *resp
				msg.Content, out.Message = rest, &msg
				return &out, nil
			}
			return resp, err
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

// Sampler returns a [kit.Sampler] (for mcpadapter.Sample) that answers MCP
// servers' sampling requests with g's models: the first model hint defined
// in g, else modelName.
func Sampler(g *genkit.Genkit, modelName string) kit.Sampler {
	if g == nil {
		panic("genkitadapter: Sampler with a nil Genkit")
	}
	return func(ctx context.Context, p *kit.SampleRequest) (*kit.SampleResult, error) {
		name := kit.ChooseModel(p, func(h string) bool { return genkit.LookupModel(g, h) != nil }, modelName)
		msgs, err := kit.Messages(p, ai.NewSystemTextMessage, func(r kit.Role, c kit.Part) (*ai.Message, error) {
			part := ai.NewTextPart(c.Text)
			if c.Kind != kit.PartText {
				part = ai.NewMediaPart(c.MIMEType, kit.DataURL(c.MIMEType, c.Data))
			}
			if r == kit.RoleAssistant {
				return ai.NewModelMessage(part), nil
			}
			return ai.NewUserMessage(part), nil
		})
		if err != nil {
			return nil, fmt.Errorf("genkitadapter: %w", err)
		}
		resp, err := genkit.Generate(ctx, g, ai.WithModelName(name), ai.WithMessages(msgs...),
			ai.WithConfig(&ai.GenerationCommonConfig{MaxOutputTokens: int(p.MaxTokens), StopSequences: p.StopSequences, Temperature: p.Temperature}))
		if err != nil {
			return nil, err
		}
		return &kit.SampleResult{Text: resp.Text(), Model: name, StopReason: kit.StopReasonOf(string(resp.FinishReason))}, nil
	}
}
