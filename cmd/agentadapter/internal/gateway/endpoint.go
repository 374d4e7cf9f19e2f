package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/toolsearch"

	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
)

// endpoint is one MCP endpoint: /mcp (name "") or /mcp/<name>.
type endpoint struct {
	name   string
	def    endpointDef // what it was built from
	exec   *adapter.Executor
	exp    *export.Server
	limits *limiter
	http   http.Handler
	// filter is what the endpoint's clients may list, find and call
	// (allows, through selectsFor).
	filter registry.Filter
	// view is a search virtual server's listing (search.go); nil for
	// another endpoint.
	view *searchView
	// inForce is set once a configuration holding the endpoint is in
	// force (see selectsFor).
	inForce atomic.Bool
}

// endpointDef is everything an endpoint is built from; an endpoint is
// rebuilt on reload when it changes.
type endpointDef struct {
	Virtual  *config.Virtual
	Policy   *config.Policy
	Approver string // "operator" or "client"
}

// Endpoints lists the endpoint names: "" for /mcp, then virtual servers.
func (g *Gateway) Endpoints() []string {
	eps := g.eps()
	return sortedKeys(eps)
}

func (g *Gateway) buildEndpoints(cfg *config.Config, old map[string]*endpoint) (map[string]*endpoint, error) {
	defs := map[string]endpointDef{"": {Policy: cfg.Gateway.Policy, Approver: approverOf(cfg.Gateway, nil)}}
	for name, v := range cfg.Gateway.Virtual {
		p := v.Policy
		if p == nil {
			p = cfg.Gateway.Policy
		}
		defs[name] = endpointDef{Virtual: v, Policy: p, Approver: approverOf(cfg.Gateway, v)}
	}
	eps := map[string]*endpoint{}
	for name, def := range defs {
		if ep, ok := old[name]; ok && reflect.DeepEqual(ep.def, def) {
			eps[name] = ep
			continue
		}
		ep, err := g.newEndpoint(name, def)
		if err != nil {
			for n, made := range eps {
				if old[n] != made {
					made.close()
				}
			}
			return nil, err
		}
		eps[name] = ep
	}
	return eps, nil
}

func (g *Gateway) newEndpoint(name string, def endpointDef) (*endpoint, error) {
	p := def.Policy
	if p == nil {
		p = &config.Policy{}
	}
	ep := &endpoint{name: name, def: def, limits: newLimiter(p.Limits)}
	ep.filter = registry.Filter{Target: adapter.TargetMCP, Func: func(s *adapter.Spec) bool { return g.selectsFor(ep, s) }}
	opts := &adapter.ExecutorOptions{
		Timeout: time.Duration(p.Timeout),
		Approval: adapter.ApprovalOptions{
			Port: g.stand,
			Policy: func(ctx context.Context, c *adapter.ToolCall) bool {
				// A search lists what the endpoint lists anyway: never held.
				return !(ep.view != nil && c.Spec == ep.view.meta[toolsearch.SearchToolsName]) && needsApproval(p.Approval, c)
			},
		},
		Hooks:  []adapter.Hook{ep.limits.hook},
		Ledger: g.ledger,
		Logger: g.log,
	}
	if len(p.Cache) > 0 {
		tools := map[string]time.Duration{}
		for t, d := range p.Cache {
			tools[t] = time.Duration(d)
		}
		opts.Cache = &adapter.CacheOptions{Tools: tools, Store: g.opts.Store.Cache()}
	}
	ep.exec = adapter.NewExecutor(g.reg, opts)
	srvName := "agentadapter"
	if name != "" {
		srvName += "-" + name
	}
	var approver approval.Decider // nil: held calls answer with their ticket, for an operator
	if def.Approver == approverClient {
		approver = clientApprover{g}
	}
	serves, filter := g.reg, ep.filter
	if def.Virtual != nil && def.Virtual.Search {
		view, err := g.newSearchView(ep)
		if err != nil {
			ep.exec.Close()
			return nil, err
		}
		ep.view = view
		serves, filter = view.reg, registry.Filter{Func: func(s *adapter.Spec) bool { return view.lists(g, ep, s) }}
	}
	exp, err := export.NewServer(serves, ep.exec, &export.Options{
		Approver: approver,
		Name:     srvName,
		Version:  g.opts.Version,
		Filter:   filter,
		Logger:   g.log,
		// Resources, templates, prompts and completions of the servers,
		// selected and governed like their tools (see primitives.go).
		Upstreams: &export.Upstreams{Manager: g.mgr, Rename: g.promptName},

		// One key for every endpoint, the store's (see Gateway.stateKey).
		RequestStateKey: g.stateKey,
		// An upstream's task-supporting tools run as tasks for the clients
		// that negotiate the extension, as the upstream declares them. A
		// task-only one is required of a 2026-07-28 caller (which declares
		// the extension per request): without it the call gets -32021, as
		// from the upstream. To a session-era caller (2025-11-25 and
		// before, most of which know no tasks) it is listed as optional
		// and, without the extension, run to completion: the import awaits
		// the upstream's task.
		Tasks: &export.TaskOptions{OptionalForSessions: true,
			Support: func(s *adapter.Spec, _ *mcp.CallToolRequest) export.TaskSupport { return g.mgr.TaskSupport(s) }},
	})
	if err != nil {
		if ep.view != nil {
			ep.view.close()
		}
		ep.exec.Close()
		return nil, err
	}
	ep.exp = exp
	return ep, nil
}

// Selects reports whether the endpoint serves a tool: lists it, or at a
// search virtual server finds and runs it through call_tool (a
// quarantined tool aside, see allows); call --endpoint uses it too. It
// reads the configuration in force, so a reload that drops a tool from a
// virtual server refuses it at once, in live sessions too.
func (g *Gateway) Selects(name string, s *adapter.Spec) bool {
	if name == "" {
		return true
	}
	v, ok := g.Config().Gateway.Virtual[name]
	return ok && g.allows(v, s)
}

// selectsFor is an endpoint's filter. Until a reload puts the endpoint in
// force, it selects by the virtual server it is built from: its exporter
// lists the tools when built, while the old configuration is still in
// force, and would otherwise start with the old selection.
func (g *Gateway) selectsFor(ep *endpoint, s *adapter.Spec) bool {
	if ep.name == "" {
		return true
	}
	if ep.inForce.Load() {
		return g.Selects(ep.name, s)
	}
	return g.allows(ep.def.Virtual, s)
}

func selects(v *config.Virtual, s *adapter.Spec) bool {
	if len(v.Servers) > 0 && !contains(v.Servers, s.Source.Server) {
		return false
	}
	if len(v.Tools) == 0 || s.HasTag(export.TagResource) {
		return true
	}
	for _, pat := range v.Tools {
		if ok, _ := path.Match(pat, s.Name); ok {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// needsApproval evaluates the approval rules: the first matching rule
// decides, then the default (by annotations).
func needsApproval(a *config.Approval, c *adapter.ToolCall) bool {
	if a == nil {
		return adapter.ApproveByAnnotations(context.Background(), c)
	}
	for _, r := range a.Rules {
		if ruleMatches(&r, c) {
			return r.Approve == "required"
		}
	}
	switch a.Default {
	case "always":
		return true
	case "never":
		return false
	}
	return adapter.ApproveByAnnotations(context.Background(), c)
}

func ruleMatches(r *config.Rule, c *adapter.ToolCall) bool {
	if r.Tool != "" {
		if ok, _ := path.Match(r.Tool, c.Spec.Name); !ok {
			return false
		}
	}
	if r.Server != "" {
		if ok, _ := path.Match(r.Server, c.Spec.Source.Server); !ok {
			return false
		}
	}
	a := c.Spec.Annotations
	switch r.Annotation {
	case "readOnly":
		if !a.ReadOnly {
			return false
		}
	case "destructive":
		if !a.IsDestructive() {
			return false
		}
	case "idempotent":
		if !a.Idempotent {
			return false
		}
	case "openWorld":
		if !a.IsOpenWorld() {
			return false
		}
	}
	if len(r.Args) > 0 {
		var args map[string]any
		if json.Unmarshal(c.Args, &args) != nil {
			return false
		}
		for k, pat := range r.Args {
			v, ok := args[k]
			if !ok {
				return false
			}
			text, isStr := v.(string)
			if !isStr {
				b, _ := json.Marshal(v)
				text = string(b)
			}
			if ok, _ := path.Match(pat, text); !ok {
				return false
			}
		}
	}
	return true
}

// limiter bounds calls per identity and per tool with token buckets:
// a burst of Calls, refilled at Calls per Window. Callers that proved no
// identity (Identity.Anonymous: without auth, each session or stateless
// request is its own "anonymous:<id>") share one bucket, "anonymous", as
// the config documents: a client could otherwise take a fresh bucket per
// request.
type limiter struct {
	cfg   *config.Limits
	mu    sync.Mutex
	perID map[string]*rate.Limiter
	tools map[string]*rate.Limiter
	swept time.Time // when bucket last looked for idle buckets to drop
}

// maxIdentities bounds the buckets kept per map (a flood of made-up
// subjects cannot grow memory). A bucket refilled whole (idle for its
// window) is as good as a new one, so a full map drops those; only while
// every kept identity called within its window do new ones share one
// bucket, until some fall idle.
const maxIdentities = 10000

// sweepEvery spaces the scans of a full map for idle buckets.
const sweepEvery = time.Second

func newLimiter(l *config.Limits) *limiter {
	return &limiter{cfg: l, perID: map[string]*rate.Limiter{}, tools: map[string]*rate.Limiter{}}
}

func (l *limiter) bucket(m map[string]*rate.Limiter, key string, r *config.Rate) *rate.Limiter {
	if b, ok := m[key]; ok {
		return b
	}
	if now := time.Now(); len(m) >= maxIdentities && now.Sub(l.swept) >= sweepEvery {
		l.swept = now
		for k, b := range m {
			if b.TokensAt(now) >= float64(b.Burst()) {
				delete(m, k)
			}
		}
	}
	if len(m) >= maxIdentities {
		key = "\x00overflow"
		if b, ok := m[key]; ok {
			return b
		}
	}
	b := rate.NewLimiter(rate.Limit(float64(r.Calls)/time.Duration(r.Window).Seconds()), r.Calls)
	m[key] = b
	return b
}

func (l *limiter) hook(next adapter.Invoker) adapter.Invoker {
	if l.cfg == nil {
		return next
	}
	return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
		subject, key := "anonymous", "\x00anonymous" // no token's subject
		if id := c.Identity; id != nil && id.Subject != "" && !id.Anonymous {
			subject, key = id.Subject, id.Subject
		}
		l.mu.Lock()
		var refuse string
		if r := l.cfg.PerIdentity; r != nil && !l.bucket(l.perID, key, r).Allow() {
			refuse = fmt.Sprintf("%s may make at most %d calls per %s", subject, r.Calls, time.Duration(r.Window))
		}
		if r := l.cfg.Tools[c.Spec.Name]; refuse == "" && r != nil && !l.bucket(l.tools, c.Spec.Name, r).Allow() {
			refuse = fmt.Sprintf("%s may be called at most %d times per %s", c.Spec.Name, r.Calls, time.Duration(r.Window))
		}
		l.mu.Unlock()
		if refuse != "" {
			return nil, &adapter.Error{Kind: adapter.KindRunLimitExceeded, Tool: c.Tool, CallID: c.CallID, Message: refuse}
		}
		return next(ctx, c)
	}
}

func (ep *endpoint) close() {
	ep.exp.Close()
	if ep.view != nil {
		ep.view.close()
	}
	ep.exec.Close()
}

// ServeStdio serves one endpoint over standard input and output until the
// client disconnects or ctx is done.
func (g *Gateway) ServeStdio(ctx context.Context, name string) error {
	ep, ok := g.eps()[name]
	if !ok {
		return fmt.Errorf("no endpoint %q", name)
	}
	return ep.exp.Serve(ctx, &mcp.StdioTransport{})
}
