package kit

import (
	"time"

	"github.com/agentadapter/agentadapter/adapter"
)

// CallOptions are the overrides of one call, for a framework that passes
// options with each call (eino's tool.Option). The zero value overrides
// nothing.
type CallOptions struct {
	// Timeout, if set, bounds the call, overriding every other timeout.
	Timeout time.Duration
	// Approval, if set, approves the call in place of the executor's port.
	Approval adapter.ApprovalPort
	// Executor, if set, runs the call.
	Executor *adapter.Executor
}

// Apply sets req's Timeout (o's, else timeout: the tool's default, zero
// leaving the spec's and the executor's) and Approval, and returns the
// executor to run req: o's, else exec. A nil o overrides nothing.
func (o *CallOptions) Apply(req *adapter.Request, exec *adapter.Executor, timeout time.Duration) *adapter.Executor {
	if o == nil {
		o = &CallOptions{}
	}
	req.Timeout, req.Approval = timeout, o.Approval
	if o.Timeout != 0 {
		req.Timeout = o.Timeout
	}
	if o.Executor != nil {
		return o.Executor
	}
	return exec
}
