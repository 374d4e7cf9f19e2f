package kit

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
)

// JSONTool runs the calls of one spec for a framework whose tool is handed
// the model's arguments as JSON text, with per-call options, and that
// holds a run for approval by interrupting it (eino). A model-facing
// failure answers as its payload ([Triage]); a fault is the error. Set its
// fields once; it is then safe for concurrent use.
type JSONTool struct {
	Spec *adapter.Spec
	Exec *adapter.Executor
	// Integration names the framework (adapter.Request.Integration).
	Integration string
	// Timeout is the tool's default timeout ([CallOptions.Apply]).
	Timeout time.Duration
	// Render configures the text or parts the model reads.
	Render adapter.RenderOptions
	// Hold turns a call held for approval into the framework's interrupt
	// error; nil hands the model the approval_pending payload instead.
	Hold func(ctx context.Context, h *HeldCall) error
}

// JSONCall is one call of a [JSONTool], as the framework hands it over.
type JSONCall struct {
	// Args are the arguments, JSON text as the model wrote it.
	Args string
	// CallID is the framework's id of the call.
	CallID string
	// Ticket is the approved ticket a call resumed after an interrupt presents.
	Ticket string
	// Options are the call's overrides; nil overrides nothing.
	Options *CallOptions
	// Native is the framework's own value of the call (adapter.Request.Native).
	Native any
}

// Text runs c and returns adapter.Render's text of its result, or a
// failure's payload.
func (t *JSONTool) Text(ctx context.Context, c *JSONCall) (string, error) {
	exec, req := t.request(c)
	res, err := exec.Do(ctx, req)
	if err != nil {
		return t.fail(ctx, c, err)
	}
	return adapter.Render(res, &t.Render), nil
}

// Parts runs c and returns its result's parts ([adapter.RenderParts]), or
// a failure's payload as one text part.
func (t *JSONTool) Parts(ctx context.Context, c *JSONCall) ([]adapter.Part, error) {
	exec, req := t.request(c)
	res, err := exec.Do(ctx, req)
	if err != nil {
		p, err := t.fail(ctx, c, err)
		if err != nil {
			return nil, err
		}
		return []adapter.Part{{Text: p}}, nil
	}
	return adapter.RenderParts(res, &t.Render), nil
}

// Stream starts c as a stream ([StreamText]). A failure before any output
// returns a nil stream and the failure's payload, or the error.
func (t *JSONTool) Stream(ctx context.Context, c *JSONCall) (s *TextStream, payload string, err error) {
	exec, req := t.request(c)
	if s, err = StreamText(ctx, exec, req, &t.Render); err != nil {
		payload, err = t.fail(ctx, c, err)
		return nil, payload, err
	}
	return s, "", nil
}

func (t *JSONTool) request(c *JSONCall) (*adapter.Executor, *adapter.Request) {
	req := &adapter.Request{Spec: t.Spec, Args: json.RawMessage(c.Args), CallID: c.CallID, Ticket: c.Ticket, Integration: t.Integration, Native: c.Native}
	return c.Options.Apply(req, t.Exec, t.Timeout), req
}

// fail answers a failed call: its payload, the Hold of a held call, or a fault.
func (t *JSONTool) fail(ctx context.Context, c *JSONCall, err error) (string, error) {
	o := TriageHold(err, t.Hold != nil)
	if e := o.Pending; e != nil {
		return "", t.Hold(ctx, &HeldCall{Ticket: e.Ticket, Tool: t.Spec.Name, CallID: c.CallID, Args: c.Args})
	}
	return o.Payload, o.Err
}
