package toolsearch

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/agentadapter/agentadapter/adapter"
)

// MaxFound bounds the names an index remembers per run (see
// [Index.Loaded]); past it, the earliest found are forgotten.
const MaxFound = 100

// foundSets are the names search_tools returned, per run scope. A run is
// held weakly: its record goes when the run is collected.
type foundSets struct {
	mu   sync.Mutex
	runs map[weak.Pointer[adapter.Run]][]string // in the order first found
}

// add records names as found in run (none outside a run).
func (f *foundSets) add(run *adapter.Run, names []string) {
	if run == nil || len(names) == 0 {
		return
	}
	k := weak.Make(run)
	f.mu.Lock()
	defer f.mu.Unlock()
	got, ok := f.runs[k]
	if !ok {
		if f.runs == nil {
			f.runs = map[weak.Pointer[adapter.Run]][]string{}
		}
		runtime.AddCleanup(run, f.forget, k)
	}
	for _, n := range names {
		if !slices.Contains(got, n) {
			got = append(got, n)
		}
	}
	if len(got) > MaxFound {
		got = slices.Clone(got[len(got)-MaxFound:])
	}
	f.runs[k] = got
}

func (f *foundSets) forget(k weak.Pointer[adapter.Run]) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.runs, k)
}

// Found returns the names search_tools returned earlier in ctx's run scope
// ([adapter.WithRun]), in the order first found (at most MaxFound, the
// latest), whatever the policy now says of them; nil outside a run.
func (ix *Index) Found(ctx context.Context) []string {
	run := adapter.RunFromContext(ctx)
	if run == nil {
		return nil
	}
	ix.found.mu.Lock()
	defer ix.found.mu.Unlock()
	return slices.Clone(ix.found.runs[weak.Make(run)])
}

// Loaded returns which tool definitions to send the model on this turn of
// ctx's run, for an integration that narrows what it sends (a model
// middleware or wrapper, per turn) from the tools of [Index.Tools] with
// opts.Deferred: the two meta-tools, the tools of opts.Always, and those
// search_tools returned earlier in the run (see [Index.Found]), each only
// while it is registered and the policy of opts (Allowed with ctx
// included) admits it. The rest stay hidden until a search returns them.
// Keep the definitions in the order Tools returned them. Loaded narrows
// what the model is sent, not what it may call: a tool the policy admits
// runs when called by its name, found or not, as it would through
// call_tool.
//
// The run is ctx's ([adapter.WithRun]): open it around the agent's run so
// that the model's turns and the tools' calls share it; outside a run
// nothing is remembered and only the meta-tools and the always-loaded
// tools are sent.
func (ix *Index) Loaded(ctx context.Context, opts *ToolsOptions) func(name string) bool {
	if opts == nil {
		opts = &ToolsOptions{}
	}
	o := *opts
	found := map[string]bool{} // this turn's: one lock, not one per definition
	for _, n := range ix.Found(ctx) {
		found[n] = true
	}
	allowed := o.allowed(ctx)
	return func(name string) bool {
		if name == SearchToolsName || name == CallToolName {
			return true
		}
		if !found[name] && !o.always(name) {
			return false
		}
		_, ok := ix.lookup(name, allowed)
		return ok
	}
}
