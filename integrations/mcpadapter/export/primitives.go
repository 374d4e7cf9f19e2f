package export

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/bridge"
)

// Upstreams makes a [Server] serve, beside the registry's tools, what
// the servers of a mcpadapter.Manager offer: their resources and resource templates
// (list, read, subscribe), prompts (list, get) and completions, and relay
// their resource updates, log messages and list changes to the clients.
//
// Names: a resource keeps the URI its server gave it (links in tool
// results stay readable); a read is routed to the server that lists the
// URI, else to the one with a template matching it, first by server name
// when two claim it (a warning is logged). A prompt is named as a tool of
// its server would be: mcpadapter.Upstream.Allow and Upstream.Deny apply to its remote
// name, Upstream.Prefix prefixes it, then Rename. What the export's own
// go-sdk server holds ([Server.MCPServer]) comes first: an upstream
// resource or prompt of the same URI or name is not served.
//
// Visibility: [Options.Filter] decides, as for tools, on a spec
// describing the primitive: a prompt's is named as the prompt and tagged
// TagPrompt; the resources of a server are one spec named ResourceSpecName
// and tagged TagResource. Both have the server as Source.Server.
//
// Governance: every read, subscribe, prompt get and completion is one call
// of the executor (approval, guards, limits, timeout, one ledger record):
// the record names the MCP method ("resources/read",
// "resources/subscribe", "prompts/get", "completion/complete") and its
// arguments the URI, the prompt's name and arguments, or the completed
// reference. Policy sees the describing spec, closed-world and not
// destructive, so the default approval policy (by annotations) holds none
// of them and an approval rule can; a subscribe sees the resources' spec
// as a read does, but neither read-only nor idempotent (it holds a
// subscription, so it is never cached nor joined to another). A result
// larger than ManagerOptions.MaxResultBytes (default 4 MiB) is refused
// with a tool_error. An error reaches the client as a JSON-RPC error whose
// data is {"kind": ..., "ticket": ...}.
//
// Notifications: resources/updated reaches the sessions subscribed to the
// URI; a session holds at most 256 subscriptions and the exports at most
// 256 distinct URIs on one server (from 2026-07-28 on each is a stream of
// its own to the server), of which one caller at most 32 (the caller a
// task is bound to: its verified subject, else its session, else on the
// stateless endpoint its address), a subscribe past any of these refused
// with run_limit_exceeded; a caller's places come back as it unsubscribes
// or its session ends. List changes reach every session; a server's log
// messages reach every session that asked for them with logging/setLevel,
// each filtered by its own level (the server is asked for the most
// verbose level a live session asked, "emergency" once none does). A
// manager holds one session per server, shared by every caller, so a
// server's log messages are not told apart by caller: leave a server whose
// logs may carry one caller's data out of an export other callers use.
// 2026-07-28 clients get no log messages between requests (that era has
// no session to send them to).
type Upstreams struct {
	// Manager holds the servers (a *mcpadapter.Manager); nil serves
	// nothing more.
	Manager Source
	// Rename, if set, returns the name clients see for the prompt remote of
	// server, given the name it has otherwise (mcpadapter.LocalName); an empty
	// result keeps that name.
	Rename func(server, remote, name string) string
}

// Source is the servers an [Upstreams] serves: a *mcpadapter.Manager,
// the one implementation (its method's result is internal to the module).
type Source interface {
	// ExportServers returns the servers, nil for none.
	ExportServers() bridge.Servers
}

// Tags and the spec name the export gives the specs describing imported
// primitives (see [Upstreams]).
const (
	TagPrompt        = "mcp:prompt"
	TagResource      = "mcp:resource"
	ResourceSpecName = "resources_read"
)

// The MCP methods a ledger record of a primitive names.
const (
	methodRead      = "resources/read"
	methodGet       = "prompts/get"
	methodComplete  = "completion/complete"
	methodSubscribe = "resources/subscribe"
)

// Placeholders the export adds and removes at once to have the go-sdk send
// list_changed: it has no other public way to notify its sessions.
const (
	placeholderURI    = "agentadapter://list-changed"
	placeholderPrompt = "agentadapter-list-changed"
)

// maxSubscriptions bounds one session's resource subscriptions.
const maxSubscriptions = 256

// maxWarned bounds the URIs warned about as claimed twice.
const maxWarned = 1024

// maxSpecs bounds the describing specs an export keeps.
const maxSpecs = 4096

// relistEvery bounds how often a read of an unknown URI lists a server's
// resources again.
const relistEvery = time.Second

type op int

const (
	opRead op = iota
	opGet
	opCompletePrompt
	opCompleteResource
	opSubscribe
)

type specKey struct {
	c            bridge.Server
	op           op
	remote, name string
}

// upExport is an exporter's side of Upstreams.
type upExport struct {
	s      *Server
	m      bridge.Servers
	rename func(server, remote, name string) string

	userSub      func(context.Context, *mcp.SubscribeRequest) error
	userUnsub    func(context.Context, *mcp.UnsubscribeRequest) error
	userComplete func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)

	specs   sync.Map // specKey → *adapter.Spec
	nspecs  atomic.Int64
	events  chan bridge.Event
	stop    chan struct{}
	done    chan struct{}
	cancel  func()
	dropped atomic.Int64

	mu       sync.Mutex
	subs     map[*mcp.ServerSession]map[string]subHold // session → URI → its subscription
	leveled  map[*mcp.ServerSession]bool               // sessions that set a log level
	warned   map[string]bool
	listedAt map[bridge.Server]time.Time
}

// subHold is a session's subscription to a URI: the server that has the
// URI, and the caller it is counted against there (taskOwner).
type subHold struct {
	c     bridge.Server
	owner string
}

// newUpExport sets what the go-sdk server needs for Upstreams in o, before
// the server is made; nil without Upstreams.
func newUpExport(s *Server, o *mcp.ServerOptions) *upExport {
	u := s.opts.Upstreams
	if u == nil || u.Manager == nil {
		return nil
	}
	m := u.Manager.ExportServers()
	if m == nil {
		return nil
	}
	x := &upExport{s: s, m: m, rename: u.Rename, subs: map[*mcp.ServerSession]map[string]subHold{},
		warned: map[string]bool{}, listedAt: map[bridge.Server]time.Time{}, leveled: map[*mcp.ServerSession]bool{}}
	o.HasResources, o.HasPrompts = true, true
	x.userComplete = o.CompletionHandler
	o.CompletionHandler = x.complete
	if (o.SubscribeHandler == nil) == (o.UnsubscribeHandler == nil) {
		x.userSub, x.userUnsub = o.SubscribeHandler, o.UnsubscribeHandler
		o.SubscribeHandler, o.UnsubscribeHandler = x.subscribe, x.unsubscribe
	}
	return x
}

// start installs the middleware on the server and follows the manager.
func (x *upExport) start() {
	if x == nil {
		return
	}
	x.s.mcp.AddReceivingMiddleware(x.middleware)
	x.events = make(chan bridge.Event, 256)
	x.stop, x.done = make(chan struct{}), make(chan struct{})
	x.cancel = x.m.Listen(func(e bridge.Event) {
		select {
		case x.events <- e:
		default: // a slow client must not hold the upstream's reader
			if x.dropped.Add(1) == 1 {
				x.s.logger.Warn("mcpadapter: upstream notifications dropped: the export's clients are too slow", "server", e.Server.Name())
			}
		}
	})
	go x.run()
}

// close stops following the manager and drops the export's upstream
// subscriptions.
func (x *upExport) close() {
	if x == nil {
		return
	}
	x.cancel()
	close(x.stop)
	<-x.done
	x.mu.Lock()
	subs := x.subs
	x.subs = map[*mcp.ServerSession]map[string]subHold{}
	x.mu.Unlock()
	for _, m := range subs {
		for uri, h := range m {
			h.c.Unsubscribe(context.Background(), h.owner, uri)
		}
	}
}

func (x *upExport) run() {
	defer close(x.done)
	for {
		select {
		case <-x.stop:
			return
		case e := <-x.events:
			x.handle(e)
		}
	}
}

func (x *upExport) handle(e bridge.Event) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	switch e.Kind {
	case bridge.EventPrompts:
		x.specs.Range(func(k, _ any) bool {
			if k.(specKey).c == e.Server && k.(specKey).op != opRead && k.(specKey).op != opCompleteResource {
				x.specs.Delete(k)
			}
			return true
		})
		x.s.mcp.AddPrompt(&mcp.Prompt{Name: placeholderPrompt}, placeholderGet)
		x.s.mcp.RemovePrompts(placeholderPrompt)
	case bridge.EventResources:
		if x.selects(e.Server) {
			x.s.mcp.AddResource(&mcp.Resource{URI: placeholderURI, Name: placeholderURI}, placeholderRead)
			x.s.mcp.RemoveResources(placeholderURI)
		}
	case bridge.EventUpdated:
		if x.selects(e.Server) {
			_ = x.s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: e.URI})
		}
	case bridge.EventLog:
		if !x.selects(e.Server) {
			return
		}
		p := *e.Log
		p.Meta = nil
		p.Logger = e.Server.Name()
		if e.Log.Logger != "" {
			p.Logger += "/" + e.Log.Logger
		}
		for ss := range x.s.mcp.Sessions() {
			_ = ss.Log(ctx, &p)
		}
	}
}

func placeholderGet(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return nil, fmt.Errorf("%w: unknown prompt %q", errInvalidParams, r.Params.Name)
}

func placeholderRead(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return nil, mcp.ResourceNotFoundError(r.Params.URI)
}

var errInvalidParams = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params"}

var primitiveArgs = &jsonschema.Schema{Type: "object"}

// spec returns the spec describing a primitive of c, made once.
func (x *upExport) spec(c bridge.Server, o op, remote, name string) *adapter.Spec {
	k := specKey{c: c, op: o, remote: remote, name: name}
	if v, ok := x.specs.Load(k); ok {
		return v.(*adapter.Spec)
	}
	f := false
	sp := &adapter.Spec{
		Name: name, InputSchema: primitiveArgs,
		Annotations: adapter.Annotations{ReadOnly: true, Idempotent: true, Destructive: &f, OpenWorld: &f},
		Targets:     []string{adapter.TargetMCP},
		Source:      adapter.Source{Server: c.Name(), RemoteName: remote, Trusted: c.Trusted(), Credential: c.Credential()},
	}
	if o == opSubscribe && sp.Source.Credential != "" {
		sp.Source.Credential = "shared" // subscriptions are the server's, not a caller's
	}
	switch o {
	case opRead, opCompleteResource, opSubscribe:
		sp.Name, sp.Tags = ResourceSpecName, []string{TagResource}
		sp.Description = fmt.Sprintf("Resources of MCP server %s", c.Name())
	default:
		sp.Tags = []string{TagPrompt}
		sp.Description = fmt.Sprintf("Prompt %s of MCP server %s", remote, c.Name())
	}
	switch o {
	case opRead:
		sp.Handler = func(ctx context.Context, args json.RawMessage) (*adapter.Result, error) {
			var a struct {
				URI string `json:"uri"`
			}
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			r, err := c.ReadResource(ctx, a.URI)
			if err != nil {
				return nil, err
			}
			return &adapter.Result{Structured: r}, nil
		}
	case opGet:
		sp.Handler = func(ctx context.Context, args json.RawMessage) (*adapter.Result, error) {
			var a struct {
				Arguments map[string]string `json:"arguments"`
			}
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			r, err := c.GetPrompt(ctx, remote, a.Arguments)
			if err != nil {
				return nil, err
			}
			return &adapter.Result{Structured: r}, nil
		}
	case opSubscribe:
		// Never cached nor joined to a concurrent one: each holds a
		// subscription of its own.
		sp.Annotations.ReadOnly, sp.Annotations.Idempotent = false, false
		sp.Handler = func(ctx context.Context, args json.RawMessage) (*adapter.Result, error) {
			var a struct {
				URI string `json:"uri"`
			}
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			h, _ := ctx.Value(heldKey{}).(*held)
			if h == nil {
				h = &held{}
			}
			if err := c.Subscribe(ctx, h.owner, a.URI); err != nil {
				return nil, err
			}
			if !h.take() {
				c.Unsubscribe(ctx, h.owner, a.URI) // the caller gave up meanwhile
			}
			return &adapter.Result{}, nil
		}
	default:
		sp.Handler = func(ctx context.Context, args json.RawMessage) (*adapter.Result, error) {
			var p mcp.CompleteParams
			if err := json.Unmarshal(args, &p); err != nil {
				return nil, err
			}
			if p.Ref != nil && p.Ref.Type == "ref/prompt" {
				p.Ref.Name = remote
			}
			r, err := c.Complete(ctx, &p)
			if err != nil {
				return nil, err
			}
			return &adapter.Result{Structured: r}, nil
		}
	}
	if x.nspecs.Add(1) > maxSpecs {
		// Servers come and go (reloads) and prompts change: start again
		// rather than keep the specs of conns long closed.
		x.specs.Clear()
		x.nspecs.Store(1)
	}
	v, _ := x.specs.LoadOrStore(k, sp)
	return v.(*adapter.Spec)
}

// selects reports whether the export serves c's resources.
func (x *upExport) selects(c bridge.Server) bool {
	return x.s.filter.Match(x.spec(c, opRead, "", ResourceSpecName))
}

// live returns the connected servers, by name. A listing leaves out a
// server that is down; a read reconnects it (see owner).
func (x *upExport) live() []bridge.Server {
	var out []bridge.Server
	for _, c := range x.m.All() {
		if c.Connected() {
			out = append(out, c)
		}
	}
	return out
}

func (x *upExport) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "resources/list":
			return x.listResources(ctx, next, method, req)
		case "resources/templates/list":
			return x.listTemplates(ctx, next, method, req)
		case "resources/read":
			return x.read(ctx, next, method, req)
		case "prompts/list":
			return x.listPrompts(ctx, next, method, req)
		case "prompts/get":
			return x.get(ctx, next, method, req)
		case "logging/setLevel":
			res, err := next(ctx, method, req)
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); err == nil && ok {
				x.setLevel(ctx, req, p.Level)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

func (x *upExport) warnTwice(kind, key string, first, other bridge.Server) {
	x.mu.Lock()
	warn := !x.warned[key] && len(x.warned) < maxWarned
	if warn {
		x.warned[key] = true
	}
	x.mu.Unlock()
	if warn {
		x.s.logger.Warn("mcpadapter: two servers offer one "+kind+"; the first by name is served", kind, key, "served", first.Name(), "hidden", other.Name())
	}
}

func (x *upExport) listResources(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	lr, ok := res.(*mcp.ListResourcesResult)
	if err != nil || !ok || lr.NextCursor != "" {
		return res, err
	}
	seen := map[string]bridge.Server{}
	out := lr.Resources[:0:0]
	for _, r := range lr.Resources {
		if r.URI != placeholderURI {
			out = append(out, r)
			seen[r.URI] = nil
		}
	}
	for _, c := range x.live() {
		if !x.selects(c) {
			continue
		}
		rs, _, err := c.Resources(ctx, false)
		if err != nil {
			x.s.logger.Warn("mcpadapter: listing an upstream's resources failed", "server", c.Name(), "error", err)
			continue
		}
		for _, r := range rs {
			if first, dup := seen[r.URI]; dup {
				if first != nil {
					x.warnTwice("resource", r.URI, first, c)
				}
				continue
			}
			seen[r.URI] = c
			out = append(out, r)
		}
	}
	lr.Resources = out
	return lr, nil
}

func (x *upExport) listTemplates(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	lt, ok := res.(*mcp.ListResourceTemplatesResult)
	if err != nil || !ok || lt.NextCursor != "" {
		return res, err
	}
	seen := map[string]bool{}
	for _, t := range lt.ResourceTemplates {
		seen[t.URITemplate] = true
	}
	for _, c := range x.live() {
		if !x.selects(c) {
			continue
		}
		_, ts, err := c.Resources(ctx, false)
		if err != nil {
			x.s.logger.Warn("mcpadapter: listing an upstream's resource templates failed", "server", c.Name(), "error", err)
			continue
		}
		for _, t := range ts {
			if !seen[t.URITemplate] {
				seen[t.URITemplate] = true
				lt.ResourceTemplates = append(lt.ResourceTemplates, t)
			}
		}
	}
	return lt, nil
}

// owner returns the server a URI is read from: the first (by name) that
// lists it, else the first with a template matching it. A URI no server
// lists has the servers' lists read again, at most once a relistEvery
// each (a resource may have appeared since).
func (x *upExport) owner(ctx context.Context, uri string) bridge.Server {
	var conns []bridge.Server
	for _, c := range x.m.All() {
		if !x.selects(c) {
			continue
		}
		if !c.Connected() {
			if err := c.Ensure(ctx); err != nil {
				continue
			}
		}
		conns = append(conns, c)
	}
	for pass := 0; pass < 2; pass++ {
		var byTemplate bridge.Server
		for _, c := range conns {
			relist := false
			if pass == 1 {
				x.mu.Lock()
				relist = time.Since(x.listedAt[c]) >= relistEvery
				if relist {
					if len(x.listedAt) >= maxSpecs {
						clear(x.listedAt)
					}
					x.listedAt[c] = time.Now()
				}
				x.mu.Unlock()
				if !relist {
					continue
				}
			}
			rs, _, err := c.Resources(ctx, relist)
			if err != nil {
				continue
			}
			for _, r := range rs {
				if r.URI == uri {
					return c
				}
			}
			if byTemplate == nil && c.TemplateMatches(uri) {
				byTemplate = c
			}
		}
		if byTemplate != nil {
			return byTemplate
		}
	}
	return nil
}

// templateOwner returns the first server (by name) with this URI template.
func (x *upExport) templateOwner(ctx context.Context, tmpl string) bridge.Server {
	for _, c := range x.live() {
		if !x.selects(c) {
			continue
		}
		_, ts, err := c.Resources(ctx, false)
		if err != nil {
			continue
		}
		for _, t := range ts {
			if t.URITemplate == tmpl {
				return c
			}
		}
	}
	return x.owner(ctx, tmpl)
}

func (x *upExport) read(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	p, ok := req.GetParams().(*mcp.ReadResourceParams)
	if !ok || p == nil || p.URI == placeholderURI {
		return next(ctx, method, req)
	}
	res, err := next(ctx, method, req)
	var we *jsonrpc.Error
	if err == nil || !errors.As(err, &we) || we.Code != mcp.CodeResourceNotFound {
		return res, err // ours
	}
	ctx = x.scope(ctx, req)
	args, _ := json.Marshal(map[string]string{"uri": p.URI})
	c := x.owner(ctx, p.URI)
	if c == nil {
		nf := x.s.exec.Unknown(ctx, &adapter.Request{Tool: methodRead, Args: args, Integration: Integration, Native: p})
		return nil, resourceError(nf, p.URI)
	}
	if rr, ok := req.(*mcp.ReadResourceRequest); ok && rr.Session != nil {
		// The upstream's questions go to this caller (resource_relay.go).
		var err error
		if ctx, err = x.s.withReadCall(ctx, rr); err != nil {
			return nil, err
		}
	}
	r, err := x.s.exec.Do(ctx, &adapter.Request{Spec: x.spec(c, opRead, "", ResourceSpecName), Tool: methodRead, Args: args, Integration: Integration, Native: p})
	if err != nil {
		if out, aerr := x.s.askRead(ctx, p, err); out != nil || aerr != nil {
			return out, aerr
		}
		return nil, resourceError(err, p.URI)
	}
	out, err := structuredAs[mcp.ReadResourceResult](r)
	if err != nil {
		return nil, err
	}
	// The client, not a shared cache, keeps what this caller may read.
	out.Cacheable = mcp.Cacheable{CacheScope: "private"}
	out.Meta = withoutServerInfo(out.Meta)
	return out, nil
}

// prompt finds the upstream prompt clients know as name: its server and
// remote name. Names in local are the export's own.
func (x *upExport) prompt(ctx context.Context, name string) (bridge.Server, string) {
	var found bridge.Server
	remote := ""
	x.eachPrompt(ctx, nil, func(c bridge.Server, p *mcp.Prompt, local string) bool {
		if local == name {
			found, remote = c, p.Name
			return false
		}
		return true
	})
	return found, remote
}

// eachPrompt calls fn with every upstream prompt the export serves, under
// the name clients see, first server (by name) first, skipping names in
// taken and those already seen; fn returns false to stop.
func (x *upExport) eachPrompt(ctx context.Context, taken map[string]bool, fn func(c bridge.Server, p *mcp.Prompt, name string) bool) {
	seen := map[string]bridge.Server{}
	for _, c := range x.live() {
		ps, err := c.Prompts(ctx)
		if err != nil {
			x.s.logger.Warn("mcpadapter: listing an upstream's prompts failed", "server", c.Name(), "error", err)
			continue
		}
		for _, p := range ps {
			if p == nil || !c.ImportsPrompt(p.Name) {
				continue
			}
			name := c.LocalName(p.Name)
			if x.rename != nil {
				if n := x.rename(c.Name(), p.Name, name); n != "" {
					name = n
				}
			}
			if taken[name] {
				continue
			}
			if first, dup := seen[name]; dup {
				x.warnTwice("prompt", name, first, c)
				continue
			}
			if !x.s.filter.Match(x.spec(c, opGet, p.Name, name)) {
				continue
			}
			seen[name] = c
			if !fn(c, p, name) {
				return
			}
		}
	}
}

func (x *upExport) listPrompts(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	lp, ok := res.(*mcp.ListPromptsResult)
	if err != nil || !ok || lp.NextCursor != "" {
		return res, err
	}
	taken := map[string]bool{}
	out := lp.Prompts[:0:0]
	for _, p := range lp.Prompts {
		if p.Name != placeholderPrompt {
			out = append(out, p)
			taken[p.Name] = true
		}
	}
	x.eachPrompt(ctx, taken, func(c bridge.Server, p *mcp.Prompt, name string) bool {
		cp := *p
		cp.Name = name
		out = append(out, &cp)
		return true
	})
	lp.Prompts = out
	return lp, nil
}

func (x *upExport) get(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	p, ok := req.GetParams().(*mcp.GetPromptParams)
	if !ok || p == nil || p.Name == placeholderPrompt {
		return next(ctx, method, req)
	}
	if x.localPrompt(ctx, next, req, p.Name) {
		return next(ctx, method, req)
	}
	ctx = x.scope(ctx, req)
	args, err := json.Marshal(map[string]any{"name": p.Name, "arguments": p.Arguments})
	if err != nil {
		return nil, err
	}
	c, remote := x.prompt(ctx, p.Name)
	if c == nil {
		nf := x.s.exec.Unknown(ctx, &adapter.Request{Tool: methodGet, Args: args, Integration: Integration, Native: p})
		return nil, primitiveError(nf, jsonrpc.CodeInvalidParams)
	}
	if gr, ok := req.(*mcp.GetPromptRequest); ok && gr.Session != nil {
		// The upstream's questions go to this caller (prompt_relay.go).
		if ctx, err = x.s.withPromptCall(ctx, gr); err != nil {
			return nil, err
		}
	}
	r, err := x.s.exec.Do(ctx, &adapter.Request{Spec: x.spec(c, opGet, remote, p.Name), Tool: methodGet, Args: args, Integration: Integration, Native: p})
	if err != nil {
		if out, aerr := x.s.askPrompt(ctx, p, err); out != nil || aerr != nil {
			return out, aerr
		}
		return nil, primitiveError(err, jsonrpc.CodeInvalidParams)
	}
	out, err := structuredAs[mcp.GetPromptResult](r)
	if err != nil {
		return nil, err
	}
	out.Meta = withoutServerInfo(out.Meta)
	return out, nil
}

// localPrompt reports whether the export's own go-sdk server has the
// prompt.
func (x *upExport) localPrompt(ctx context.Context, next mcp.MethodHandler, req mcp.Request, name string) bool {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	res, err := next(ctx, "prompts/list", &mcp.ListPromptsRequest{Session: ss, Params: &mcp.ListPromptsParams{}})
	lp, ok := res.(*mcp.ListPromptsResult)
	if err != nil || !ok {
		return false
	}
	for _, p := range lp.Prompts {
		if p.Name == name {
			return true
		}
	}
	return false
}

func (x *upExport) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ref := req.Params.Ref
	if ref == nil { // go-sdk checks, unless told not to (MCPGODEBUG)
		ref = &mcp.CompleteReference{}
	}
	var c bridge.Server
	var sp *adapter.Spec
	switch ref.Type {
	case "ref/prompt":
		var remote string
		if c, remote = x.prompt(ctx, ref.Name); c != nil {
			sp = x.spec(c, opCompletePrompt, remote, ref.Name)
		}
	case "ref/resource":
		if c = x.templateOwner(ctx, ref.URI); c != nil {
			sp = x.spec(c, opCompleteResource, "", ResourceSpecName)
		}
	}
	if c == nil {
		if x.userComplete != nil {
			return x.userComplete(ctx, req)
		}
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
	}
	ctx = x.scope(ctx, req)
	p := *req.Params
	p.Meta = nil
	args, err := json.Marshal(&p)
	if err != nil {
		return nil, err
	}
	r, err := x.s.exec.Do(ctx, &adapter.Request{Spec: sp, Tool: methodComplete, Args: args, Integration: Integration, Native: &p})
	if err != nil {
		return nil, primitiveError(err, jsonrpc.CodeInvalidParams)
	}
	return structuredAs[mcp.CompleteResult](r)
}

func (x *upExport) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	c := x.owner(ctx, uri)
	if c == nil {
		if x.userSub != nil {
			return x.userSub(ctx, req)
		}
		args, _ := json.Marshal(map[string]any{"uri": uri, "subscribe": true})
		nf := x.s.exec.Unknown(x.scope(ctx, req), &adapter.Request{Tool: methodSubscribe, Args: args, Integration: Integration, Native: req.Params})
		return resourceError(nf, uri)
	}
	if req.Extra == nil {
		// A subscriptions/listen stream's subscribes carry no Extra: the
		// caller's token is in the context. On the stateless endpoint
		// (a session without an id) the stream is counted against the
		// client's address, as a request there is (taskOwner).
		r := *req
		r.Extra = &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(ctx)}
		if _, http := ctx.Value(clientAddrKey{}).(string); http {
			r.Extra.Header = map[string][]string{}
		}
		req = &r
	}
	owner := x.s.taskOwner(ctx, req)
	x.mu.Lock()
	m := x.subs[req.Session]
	if m == nil {
		m = map[string]subHold{}
		x.subs[req.Session] = m
		if ss := req.Session; ss != nil {
			go func() {
				_ = ss.Wait()
				x.dropSession(ss)
			}()
		}
	}
	_, again := m[uri]
	full := !again && len(m) >= maxSubscriptions
	if !again && !full {
		m[uri] = subHold{c: c, owner: owner}
	}
	x.mu.Unlock()
	if again {
		return nil
	}
	if full {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: a session may hold at most %d resource subscriptions", adapter.KindRunLimitExceeded, maxSubscriptions)}
	}
	// A subscribe tells the caller what exists and when it changes: it is
	// governed as a read of the URI is, and recorded. Its arguments differ
	// from the read's, so an approval of one is no approval of the other.
	h := &held{owner: owner}
	args, _ := json.Marshal(map[string]any{"uri": uri, "subscribe": true})
	_, err := x.s.exec.Do(context.WithValue(x.scope(ctx, req), heldKey{}, h),
		&adapter.Request{Spec: x.spec(c, opSubscribe, "", ResourceSpecName), Tool: methodSubscribe, Args: args, Integration: Integration, Native: req.Params})
	if err != nil {
		x.mu.Lock()
		if x.subs[req.Session] != nil && x.subs[req.Session][uri].c == c {
			delete(x.subs[req.Session], uri)
		}
		x.mu.Unlock()
		if h.drop() {
			c.Unsubscribe(ctx, owner, uri) // held, but refused after (a guard on the result)
		}
		return resourceError(err, uri)
	}
	return nil
}

// heldKey carries a subscribe's *held to its handler.
type heldKey struct{}

// held settles who owns a subscription the handler took: the subscribe,
// or, once the subscribe has failed or given up, nobody (it is dropped).
type held struct {
	owner      string // the caller it is counted against (taskOwner)
	mu         sync.Mutex
	done, have bool
}

// take hands the subscription to the subscribe; false if it is over.
func (h *held) take() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.have = !h.done
	return h.have
}

// drop ends the subscribe, reporting whether it held a subscription.
func (h *held) drop() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done = true
	return h.have
}

// setLevel follows a session's logging/setLevel on the servers the export
// serves, and forgets it when the session ends.
func (x *upExport) setLevel(ctx context.Context, req mcp.Request, level mcp.LoggingLevel) {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if ss == nil {
		return
	}
	x.mu.Lock()
	watch := !x.leveled[ss]
	if watch {
		x.leveled[ss] = true
	}
	x.mu.Unlock()
	if watch {
		go func() {
			_ = ss.Wait()
			x.mu.Lock()
			delete(x.leveled, ss)
			x.mu.Unlock()
			for _, c := range x.m.All() {
				c.SetLevel(context.Background(), ss, "")
			}
		}()
	}
	for _, c := range x.live() {
		if x.selects(c) {
			c.SetLevel(ctx, ss, level)
		}
	}
}

func (x *upExport) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	uri := req.Params.URI
	x.mu.Lock()
	h, ok := x.subs[req.Session][uri]
	if ok {
		delete(x.subs[req.Session], uri)
	}
	x.mu.Unlock()
	if !ok {
		if x.userUnsub != nil {
			return x.userUnsub(ctx, req)
		}
		return nil
	}
	h.c.Unsubscribe(ctx, h.owner, uri)
	return nil
}

// dropSession drops the subscriptions of a session that ended.
func (x *upExport) dropSession(ss *mcp.ServerSession) {
	x.mu.Lock()
	m := x.subs[ss]
	delete(x.subs, ss)
	x.mu.Unlock()
	for uri, h := range m {
		h.c.Unsubscribe(context.Background(), h.owner, uri)
	}
}

// scope carries the caller's identity and session scope, as a call's.
func (x *upExport) scope(ctx context.Context, req mcp.Request) context.Context {
	if e := req.GetExtra(); e != nil && e.TokenInfo != nil {
		ti := e.TokenInfo
		ctx = adapter.WithIdentity(ctx, &adapter.Identity{Subject: ti.UserID, Scopes: ti.Scopes, Extra: ti.Extra})
	}
	ss, _ := req.GetSession().(*mcp.ServerSession)
	return x.s.sessionScope(ctx, ss)
}

// primitiveError is the JSON-RPC error a refused read, get or completion
// answers with: notFound as the code of a not_found or args_invalid
// error, internal otherwise, and the kind (and ticket) as data.
func primitiveError(err error, notFound int64) error {
	kind := adapter.KindOf(err)
	msg := "internal error"
	data := map[string]any{"kind": string(kind)}
	if e := exportError(err); e != nil {
		if e.Message != "" {
			msg = e.Message
		}
		if e.Ticket != "" {
			data["ticket"] = e.Ticket
		}
	}
	code := int64(jsonrpc.CodeInternalError)
	if kind == adapter.KindNotFound || kind == adapter.KindArgsInvalid {
		code = notFound
	}
	b, _ := json.Marshal(data)
	return &jsonrpc.Error{Code: code, Message: fmt.Sprintf("%s: %s", kind, msg), Data: b}
}

// resourceError is primitiveError for a request naming uri: a miss
// carries the URI in its data, as go-sdk's ResourceNotFoundError does
// (SEP-2164).
func resourceError(err error, uri string) error {
	e := primitiveError(err, mcp.CodeResourceNotFound).(*jsonrpc.Error)
	if e.Code == mcp.CodeResourceNotFound {
		var data map[string]any
		if json.Unmarshal(e.Data, &data) != nil || data == nil {
			data = map[string]any{}
		}
		data["uri"] = uri
		e.Data, _ = json.Marshal(data)
	}
	return e
}

// withoutServerInfo drops the upstream's server info from a relayed
// result's _meta, as from a relayed tool result's: it would name the wrong
// server to our clients.
func withoutServerInfo(m mcp.Meta) mcp.Meta {
	if _, ok := m[MetaKeyServerInfo]; !ok {
		return m
	}
	c := maps.Clone(m)
	delete(c, MetaKeyServerInfo)
	if len(c) == 0 {
		return nil
	}
	return c
}

// structuredAs returns a copy of the go-sdk result a primitive's handler
// made (the ledger encodes the original after the call, and the go-sdk
// sets fields of what it sends); a result that went through a cache store
// that encodes comes back as JSON.
func structuredAs[T any](r *adapter.Result) (*T, error) {
	if v, ok := r.Structured.(*T); ok {
		cp := *v
		return &cp, nil
	}
	b, err := r.StructuredJSON()
	if err != nil {
		return nil, err
	}
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		return nil, err
	}
	return v, nil
}
