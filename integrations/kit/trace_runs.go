package kit

import (
	"context"

	"go.opentelemetry.io/otel/trace"

	"github.com/agentadapter/agentadapter/adapter"
)

// TraceRuns maps the trace of a call's span to one run scope, for a
// framework that hands a tool only the context of a turn but traces every
// turn of a run (every generation of a flow) as spans of one trace: the
// trace is the agent run's identity. The scopes are [RunScopes]: a run
// whose scope was forgotten, after [DefaultMaxRuns] newer ones, starts a
// new one. It is safe for concurrent use.
type TraceRuns struct{ scopes *RunScopes[trace.TraceID] }

// NewTraceRuns returns run scopes whose run id is prefix followed by the
// trace id in hex.
func NewTraceRuns(prefix string) *TraceRuns {
	return &TraceRuns{NewRunScopes(0, func(id trace.TraceID) *adapter.RunOptions {
		return &adapter.RunOptions{ID: prefix + id.String()}
	})}
}

// Context returns ctx with a run scope: the caller's own
// ([adapter.WithRun]), else the one of ctx's trace; a call outside any
// trace is left to the executor, as a call outside any run.
func (r *TraceRuns) Context(ctx context.Context) context.Context {
	sc := trace.SpanContextFromContext(ctx)
	return r.scopes.Context(ctx, sc.TraceID(), sc.HasTraceID())
}
