package genkitadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Approval is an interrupt of a call this package's tool held for approval.
type Approval struct {
	// Part is the interrupted tool request, as found in the response.
	Part *ai.Part
	// Tool is the tool's name.
	Tool string
	// Ticket is the ticket to approve or deny (adapter.Deferred.Approve).
	Ticket string
	// Args are the arguments the ticket was issued for.
	Args json.RawMessage
	// Message is the executor's explanation.
	Message string
}

// Restart returns the part, for ai.WithToolRestarts, that runs the call
// again presenting its ticket: once approved, with exactly these arguments,
// once; denied, the model reads approval_denied.
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
	if !p.IsToolRequest() {
		return nil
	}
	meta, _ := p.Metadata["interrupt"].(map[string]any)
	h, ok := kit.HeldFromMetadata(meta)
	if !ok {
		return nil
	}
	args, _ := json.Marshal(p.ToolRequest.Input)
	return &Approval{Part: p, Tool: p.ToolRequest.Name, Ticket: h.Ticket, Args: args, Message: h.Message}
}

// Resume continues a generation that stopped on approval interrupts: decide
// approves or denies each approval's ticket in order (an error aborts),
// then the calls restart with resp's history and opts, which should name
// the first call's model and tools. Another interrupt is an error. A
// restarted call cannot interrupt again: genkit fails the generation
// instead, as when the same response is resumed twice; nothing runs twice.
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

// genkitTool lends the tools genkit's own Respond and Restart, which read
// nothing of their tool.
var genkitTool = &ai.ToolDef[any, any]{}

// restartPart is genkit's restart of p, an approval's ticket wrapped in the
// input ([kit.Resume]), the one value genkit hands a restarted tool.
func restartPart(p *ai.Part, opts *ai.RestartOptions) *ai.Part {
	np := genkitTool.Restart(p, opts)
	if a := approvalOf(p); a != nil {
		if args, err := json.Marshal(np.ToolRequest.Input); err == nil {
			np.ToolRequest.Input = kit.Resume{Ticket: a.Ticket, Ref: p.ToolRequest.Ref, Args: args}.Input()
		}
	}
	return np
}
