package gateway

import (
	"path"
	"sort"
	"sync"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/toolsearch"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
)

// A virtual server with "search": true lists search_tools and call_tool
// (toolsearch's meta-tools over the gateway's one index) and its
// alwaysLoaded tools, in place of its selection. The seams:
//
//   - what search_tools finds and call_tool runs is allows: the virtual
//     server's selection (selects, read from the configuration in force,
//     as the listing of a flat endpoint) less the quarantined tools. It
//     is the endpoint's filter, Selects (call, inspect) and the index's
//     policy at once;
//   - call_tool is a call of the endpoint's executor (toolsearch forwards
//     it): its approval rules, limits, cache and ledger see the real tool;
//   - the listing is a registry of the endpoint's own (view), the meta-tools
//     and the alwaysLoaded tools of the selection, kept current from the
//     gateway's registry; the export serves it with the endpoint's
//     executor as a flat endpoint serves the gateway's.

// allows is the one predicate of what a virtual server's clients may
// list (flat), find and call (search).
func (g *Gateway) allows(v *config.Virtual, s *adapter.Spec) bool {
	return selects(v, s) && !(v.Search && g.isQuarantined(s))
}

// isQuarantined reports an imported tool held for review (its definition
// changed since it was pinned): the registry keeps its old spec, whose
// calls the manager refuses, so only the manager's list tells.
func (g *Gateway) isQuarantined(s *adapter.Spec) bool {
	if s.Source.Server == "" {
		return false
	}
	q := g.quar.Load()
	return q != nil && (*q)[pinKey(s.Source.Server, s.Source.RemoteName)]
}

// noteQuarantines reads the manager's quarantines into the set
// isQuarantined reads: after a quarantine, an accept, a pin synced from
// the store, and on each tick of watchPins while any is held (a server
// back to its pinned definition lifts one without a word). Never from a
// registry listener: the manager may hold its locks while it publishes.
func (g *Gateway) noteQuarantines() {
	set := map[string]bool{}
	for _, q := range g.mgr.Quarantined() {
		set[pinKey(q.Server, q.RemoteName)] = true
	}
	g.quar.Store(&set)
}

// quarantinesHeld reports whether isQuarantined hides any tool.
func (g *Gateway) quarantinesHeld() bool {
	q := g.quar.Load()
	return q != nil && len(*q) > 0
}

// searchView is a search endpoint's listing: the meta-tools and the
// alwaysLoaded tools of its selection, followed from the gateway's
// registry.
type searchView struct {
	reg    *registry.Registry
	meta   map[string]*adapter.Spec
	mu     sync.Mutex // orders the initial load before the changes
	cancel func()
}

// newSearchView builds ep's listing; the endpoint's filter (ep.filter)
// must be set.
func (g *Gateway) newSearchView(ep *endpoint) (*searchView, error) {
	meta := g.index.Tools(&toolsearch.ToolsOptions{Filter: ep.filter})
	sv := &searchView{reg: registry.New(), meta: map[string]*adapter.Spec{}}
	for _, m := range meta {
		sv.meta[m.Name] = m
	}
	if err := sv.reg.Register(meta...); err != nil {
		return nil, err
	}
	loaded := func(s *adapter.Spec) bool {
		return sv.meta[s.Name] == nil && alwaysLoaded(ep.def.Virtual, s.Name) && g.selectsFor(ep, s)
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.cancel = g.reg.Subscribe(func(c registry.Change) {
		sv.mu.Lock()
		defer sv.mu.Unlock()
		sv.follow(c.Name, c.New, loaded)
	})
	for s := range g.reg.List(registry.Filter{}) {
		sv.follow(s.Name, s, loaded)
	}
	return sv, nil
}

// follow puts s (nil: gone) in the view if loaded takes it, else takes
// name out; sv.mu is held.
func (sv *searchView) follow(name string, s *adapter.Spec, loaded func(*adapter.Spec) bool) {
	if sv.meta[name] != nil {
		return // a tool named as a meta-tool is never listed beside it
	}
	if s != nil && loaded(s) {
		_ = sv.reg.Replace(s) // checked by the gateway's registry already
		return
	}
	if _, ok := sv.reg.Lookup(name); ok {
		_ = sv.reg.Unregister(name)
	}
}

// lists is the view's export filter: a meta-tool, an alwaysLoaded tool
// the selection (read at call time, as a flat endpoint's) still takes, or
// a prompt or resource of the selection (served as at a flat endpoint:
// search is for tools).
func (sv *searchView) lists(g *Gateway, ep *endpoint, s *adapter.Spec) bool {
	if s.HasTag(export.TagPrompt) || s.HasTag(export.TagResource) {
		return g.selectsFor(ep, s)
	}
	if m := sv.meta[s.Name]; m != nil {
		return m == s
	}
	return alwaysLoaded(ep.def.Virtual, s.Name) && g.selectsFor(ep, s)
}

func (sv *searchView) close() {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.cancel()
}

// alwaysLoaded reports whether a search virtual server lists the tool
// called name beside the meta-tools (config Virtual.AlwaysLoaded).
func alwaysLoaded(v *config.Virtual, name string) bool {
	for _, pat := range v.AlwaysLoaded {
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// Listed returns the tools the clients of an endpoint list, by name: for a
// search virtual server its meta-tools and alwaysLoaded tools, for another
// its selection. ok is false for an unknown endpoint.
func (g *Gateway) Listed(name string) (specs []*adapter.Spec, ok bool) {
	ep, ok := g.eps()[name]
	if !ok {
		return nil, false
	}
	reg, match := g.reg, func(s *adapter.Spec) bool { return g.selectsFor(ep, s) }
	if ep.view != nil {
		reg, match = ep.view.reg, func(s *adapter.Spec) bool { return ep.view.lists(g, ep, s) }
	}
	for s := range reg.List(registry.Filter{Target: adapter.TargetMCP, Func: match}) {
		specs = append(specs, s)
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	return specs, true
}

// Searchable returns the tools search_tools may find and call_tool may run
// at a search virtual server (its selection less the quarantined tools),
// by name; search is false for another endpoint.
func (g *Gateway) Searchable(name string) (specs []*adapter.Spec, search bool) {
	ep, ok := g.eps()[name]
	if !ok || ep.view == nil {
		return nil, false
	}
	for s := range g.reg.List(ep.filter) {
		if ep.view.meta[s.Name] == nil {
			specs = append(specs, s)
		}
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	return specs, true
}
