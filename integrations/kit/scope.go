package kit

import (
	"container/list"
	"context"
	"sync"

	"github.com/agentadapter/agentadapter/adapter"
)

// DefaultMaxRuns is the number of run scopes a [RunScopes] remembers when
// its Max is zero.
const DefaultMaxRuns = 4096

// RunScopes maps a framework's identity of an agent run (a trace id, a
// session, a thread) to one [adapter.Run], for a framework that hands a
// tool only the context of a turn. The least recently used scope is
// forgotten past Max; a run whose scope was forgotten starts a new one.
// The zero value is not usable: use [NewRunScopes].
type RunScopes[K comparable] struct {
	max  int
	opts func(K) *adapter.RunOptions

	mu    sync.Mutex
	order *list.List // of *scope[K], most recent first
	byKey map[K]*list.Element
}

type scope[K comparable] struct {
	key K
	run *adapter.Run
}

// NewRunScopes returns scopes that open a run with opts(key) (nil: the
// zero options) and remember at most max of them (zero: DefaultMaxRuns).
func NewRunScopes[K comparable](max int, opts func(K) *adapter.RunOptions) *RunScopes[K] {
	if max <= 0 {
		max = DefaultMaxRuns
	}
	return &RunScopes[K]{max: max, opts: opts, order: list.New(), byKey: map[K]*list.Element{}}
}

// Run returns the scope of key, opening it on first use. Parallel calls
// with one key share one scope.
func (rs *RunScopes[K]) Run(key K) *adapter.Run {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if el, ok := rs.byKey[key]; ok {
		rs.order.MoveToFront(el)
		return el.Value.(*scope[K]).run
	}
	var o *adapter.RunOptions
	if rs.opts != nil {
		o = rs.opts(key)
	}
	r := adapter.NewRun(o)
	rs.byKey[key] = rs.order.PushFront(&scope[K]{key: key, run: r})
	if rs.order.Len() > rs.max {
		last := rs.order.Back()
		rs.order.Remove(last)
		delete(rs.byKey, last.Value.(*scope[K]).key)
	}
	return r
}

// Context returns ctx with a run scope: the caller's own (see
// adapter.WithRun), else the scope of key when ok, else ctx unchanged (a
// call outside any run, left to the executor).
func (rs *RunScopes[K]) Context(ctx context.Context, key K, ok bool) context.Context {
	if !ok || adapter.RunFromContext(ctx) != nil {
		return ctx
	}
	return adapter.ContextWithRun(ctx, rs.Run(key))
}

// ContinueRun returns ctx in a run scope, and the scope: ctx's own, else
// run when it is not nil (a conversation resumed in the scope it began in),
// else a new one ([adapter.WithRun]).
func ContinueRun(ctx context.Context, run *adapter.Run) (context.Context, *adapter.Run) {
	if adapter.RunFromContext(ctx) == nil && run != nil {
		ctx = adapter.ContextWithRun(ctx, run)
	}
	return adapter.WithRun(ctx, nil)
}
