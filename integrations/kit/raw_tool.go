package kit

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
)

// RawTool is the framework-neutral core of a tool that takes the raw JSON
// arguments its framework holds, answers with parts, and raises an
// interrupt for a call held for approval; the framework's tool type wraps
// [RawTool.Call] in its own methods. Its fields fill in each request.
type RawTool struct {
	// Spec is the tool the calls run.
	Spec *adapter.Spec
	// Exec runs the calls (required: a nil Exec fails each call with
	// [ErrNilExecutor]).
	Exec *adapter.Executor
	// Integration names the integration to the executor (Request.Integration).
	Integration string
	// Native is the framework's tool, for hooks (Request.Native).
	Native any
	// Timeout, if not zero, bounds each call (Request.Timeout).
	Timeout time.Duration
	// Render configures the parts the model reads.
	Render adapter.RenderOptions
	// Runs, if set, gives a call outside the caller's run scope the one of
	// its trace.
	Runs *TraceRuns
}

// Call runs one call on args. A restarted call's envelope presents its
// ticket ([ApplyResume]); empty or null args are no arguments
// ([OmitNull]). It returns the result's parts as [CallParts] does, the
// held call when the call waits for approval, or a fault.
func (t *RawTool) Call(ctx context.Context, args json.RawMessage) (parts []adapter.Part, held *HeldCall, err error) {
	req := &adapter.Request{Spec: t.Spec, Args: args, Integration: t.Integration, Native: t.Native, Timeout: t.Timeout}
	ApplyResume(req)
	req.Args = OmitNull(req.Args)
	if t.Runs != nil {
		ctx = t.Runs.Context(ctx)
	}
	parts, pending, err := CallParts(ctx, t.Exec, req, &t.Render)
	if pending != nil {
		h := HeldOf(pending)
		return nil, &h, nil
	}
	return parts, nil, err
}
