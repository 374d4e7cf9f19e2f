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

// Approval is an approval interrupt raised by a tool of this package: the
// executor's approval port deferred the call and issued a ticket.
type Approval struct {
	// Part is the interrupted tool request, as found in the response.
	Part *ai.Part
	// Tool is the tool's name.
	Tool string
	// Ticket is the approval ticket to approve or deny (for example with
	// adapter.Deferred.Approve).
	Ticket string
	// Args are the arguments the ticket was issued for.
	Args json.RawMessage
	// Message is the executor's explanation.
	Message string
}

// Restart returns the part that runs the call again presenting its ticket,
// for ai.WithToolRestarts. Once the ticket is approved, the call runs with
// exactly these arguments, once; if it was denied, the model reads
// approval_denied.
func (a *Approval) Restart() *ai.Part { return restartPart(a.Part, nil) }

// approvalInterrupt stops Generate (FinishReason "interrupted") with the
// ticket in the interrupted part's metadata.
func approvalInterrupt(ctx context.Context, e *adapter.Error) error {
	return (&ai.ToolContext{Context: ctx}).Interrupt(&ai.InterruptOptions{Metadata: kit.HeldOf(e).Metadata()})
}

// Approvals returns the approval interrupts of resp raised by this
// package's tools, in message order. Other interrupts are skipped.
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

// Resume continues a generation that stopped on approval interrupts. decide
// is called for each approval of resp in order; it approves or denies the
// ticket (for example on the executor's adapter.Deferred port) and returns
// an error only to abort. The calls are then restarted presenting their
// tickets, with resp's history and opts: pass the same model and tools as
// the first call. An interrupt not raised by this package is an error:
// genkit would refuse to resume without an answer for it.
//
// A call the model asks for after the restart may interrupt the response
// again. A restarted call cannot: genkit fails the generation instead, which
// is what resuming the same response twice gets (its tickets are used up, so
// the calls would need approval anew); nothing runs twice.
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

// genkitTool lends this package's tools genkit's own Respond and Restart,
// which read nothing of their tool.
var genkitTool = &ai.ToolDef[any, any]{}

// restartPart is genkit's restart of p, with the ticket of an approval
// interrupt in the input, the one value genkit hands a tool on restart
// ([kit.Resume]); the history keeps the original request.
func restartPart(p *ai.Part, opts *ai.RestartOptions) *ai.Part {
	np := genkitTool.Restart(p, opts)
	if a := approvalOf(p); a != nil {
		if args, err := json.Marshal(np.ToolRequest.Input); err == nil {
			np.ToolRequest.Input = kit.Resume{Ticket: a.Ticket, Ref: p.ToolRequest.Ref, Args: args}.Input()
		}
	}
	return np
}
