package genkitadapter

import (
	"context"

	lru "github.com/hashicorp/golang-lru/v2"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentadapter/agentadapter/adapter"
)

// maxRuns bounds the run scopes remembered by trace; a generation whose
// scope was evicted (after 4096 newer ones) starts a new one.
const maxRuns = 4096

// runScopes maps a genkit trace to its run scope, for the tools built
// together (one Tools or DefineTools call, or one NewTool). Genkit hands a
// tool only the context of the turn, and every turn of a generation (every
// generation of a flow) is a span of one trace: the trace is the agent
// run's identity.
type runScopes struct {
	byTrace *lru.Cache[trace.TraceID, *adapter.Run]
}

func newRunScopes() *runScopes {
	c, _ := lru.New[trace.TraceID, *adapter.Run](maxRuns) // fails only for a size <= 0
	return &runScopes{byTrace: c}
}

// context returns ctx with a run scope: the caller's own (see
// adapter.WithRun), or else the one of the genkit trace, so that the calls
// of all turns of a generation, or of all generations of a flow run, share
// one scope and its limits. A call outside any trace is left to the
// executor, as a call outside any run.
func (rs *runScopes) context(ctx context.Context) context.Context {
	if adapter.RunFromContext(ctx) != nil {
		return ctx
	}
	sc := trace.SpanContextFromContext(ctx)
	if !sc.HasTraceID() {
		return ctx
	}
	id := sc.TraceID()
	r, ok := rs.byTrace.Get(id)
	if !ok {
		fresh := adapter.NewRun(&adapter.RunOptions{ID: "genkit_" + id.String()})
		prev, found, _ := rs.byTrace.PeekOrAdd(id, fresh)
		r = fresh
		if found { // a parallel call of the same turn got there first
			r = prev
		}
	}
	return adapter.ContextWithRun(ctx, r)
}
