package genkitadapter

import (
	"context"

	"go.opentelemetry.io/otel/trace"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

// runScopes maps a genkit trace to its run scope, for the tools built
// together (one Tools or DefineTools call, or one NewTool). Genkit hands a
// tool only the context of the turn, and every turn of a generation (every
// generation of a flow) is a span of one trace: the trace is the agent
// run's identity. A generation whose scope was forgotten (after
// kit.DefaultMaxRuns newer ones) starts a new one.
type runScopes struct{ *kit.RunScopes[trace.TraceID] }

func newRunScopes() *runScopes {
	return &runScopes{kit.NewRunScopes(0, func(id trace.TraceID) *adapter.RunOptions {
		return &adapter.RunOptions{ID: "genkit_" + id.String()}
	})}
}

// context returns ctx with a run scope: the caller's own (see
// adapter.WithRun), or else the one of the genkit trace, so that the calls
// of all turns of a generation, or of all generations of a flow run, share
// one scope and its limits. A call outside any trace is left to the
// executor, as a call outside any run.
func (rs *runScopes) context(ctx context.Context) context.Context {
	sc := trace.SpanContextFromContext(ctx)
	return rs.Context(ctx, sc.TraceID(), sc.HasTraceID())
}
