package kit

import (
	"context"

	"github.com/agentadapter/agentadapter/adapter"
)

// ApplyResume unwraps req.Args when they are a restarted call's envelope
// ([DecodeResume]): the call presents the envelope's ticket and arguments,
// its call id the framework's reference. Other arguments are left as
// they are.
func ApplyResume(req *adapter.Request) {
	if r, ok := DecodeResume(req.Args); ok {
		req.Args, req.Ticket, req.CallID = r.Args, r.Ticket, r.Ref
	}
}

// CallParts runs req through exec, for a framework whose tools answer
// with parts: the result's, as [adapter.RenderParts] gives them with
// render (nil: the default policy), or a model-facing error's payload as
// one text part ([Triage]). pending is a call held for approval, to turn
// into the framework's interrupt; err is a fault, which ends the run (a
// nil exec is one, wrapping [ErrNilExecutor]).
func CallParts(ctx context.Context, exec *adapter.Executor, req *adapter.Request, render *adapter.RenderOptions) (parts []adapter.Part, pending *adapter.Error, err error) {
	if exec == nil {
		return nil, nil, noExecutor(req)
	}
	res, err := exec.Do(ctx, req)
	if err == nil {
		return adapter.RenderParts(res, render), nil, nil
	}
	o := Triage(err)
	if o.Pending != nil || o.Err != nil {
		return nil, o.Pending, o.Err
	}
	return []adapter.Part{{Text: o.Payload}}, nil, nil
}
