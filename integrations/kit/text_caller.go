package kit

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

// ToolObserver is told of the calls of a framework whose tools report to
// a callbacks handler themselves (its method set is that of such a
// handler's tool events).
type ToolObserver interface {
	// HandleToolStart is told the input of a call before it runs.
	HandleToolStart(ctx context.Context, input string)
	// HandleToolEnd is told the output of a call that succeeded.
	HandleToolEnd(ctx context.Context, output string)
	// HandleToolError is told every failure, those the model reads as a
	// payload included.
	HandleToolError(ctx context.Context, err error)
}

// Observe runs call, a call on input, for a framework that cannot hold a
// run, and tells obs (if not nil) of its start and end. A model-facing
// failure, approval_pending included, is returned as its payload with a
// nil error ([TriagePayload]); only faults are errors.
func Observe(ctx context.Context, obs ToolObserver, input string, call func() (string, error)) (string, error) {
	if obs != nil {
		obs.HandleToolStart(ctx, input)
	}
	out, err := call()
	if err != nil {
		if obs != nil {
			obs.HandleToolError(ctx, err)
		}
		o := TriagePayload(err)
		return o.Payload, o.Err
	}
	if obs != nil {
		obs.HandleToolEnd(ctx, out)
	}
	return out, nil
}

// TextCaller runs text calls ([CallText]) for a framework whose tools take
// the text a model wrote and return text, and which cannot hold a run
// ([Observe]). It caches the input shapes of the specs it calls. Set Exec
// before the first call; the other fields' zero values are valid. It is
// safe for concurrent use.
type TextCaller struct {
	// Exec runs the calls.
	Exec *adapter.Executor
	// Registry, if set, is where each call looks its spec up, by the
	// request's Tool, so that a replaced spec is used at once; a spec
	// removed, or no longer matching Filter, answers not_found
	// ([Resolve]). If nil, the request's Spec is called.
	Registry *registry.Registry
	// Filter is what a spec looked up in Registry must still match.
	Filter registry.Filter
	// Observer, if set, is told of every call.
	Observer ToolObserver
	// Timeout, if not zero, bounds each call, overriding the request's,
	// the spec's and the executor's timeout.
	Timeout time.Duration
	// Options configure every call.
	Options TextOptions

	shapes Shapes
}

// Call runs req on input, the text the model wrote: req's Args are input
// parsed against the spec's shape. It returns the result's text, or the
// payload of a failure the model should read; a fault is the error.
func (c *TextCaller) Call(ctx context.Context, req *adapter.Request, input string) (string, error) {
	return Observe(ctx, c.Observer, input, func() (string, error) {
		r := *req
		if c.Timeout != 0 {
			r.Timeout = c.Timeout
		}
		if c.Registry != nil {
			r.Args = json.RawMessage(input) // what the record of an unknown call shows
			spec, err := Resolve(ctx, c.Registry, c.Exec, c.Filter, &r)
			if err != nil {
				return "", err
			}
			r.Spec, r.Args = spec, nil
		}
		return CallText(ctx, c.Exec, &r, input, c.shapes.Of(r.Spec.InputSchema), &c.Options)
	})
}
