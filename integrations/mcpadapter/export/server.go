package export

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/reqstate"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/schema"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/sdklog"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/tasks"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/wire"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

// Integration is the name the export gives the executor for its calls
// ([adapter.Request.Integration], [adapter.ToolCall.Integration]).
const Integration = adapter.TargetMCP

// Default implementation name and version reported to clients.
const (
	DefaultServerName    = "agentadapter"
	DefaultServerVersion = "v0.0.0"
)

// Options configure a [Server]. The zero value is a valid
// configuration: every spec of the registry whose targets include MCP is
// served, under the name "agentadapter", with no approval asked of the client.
type Options struct {
	// Name and Version identify the server to clients; zero values mean
	// DefaultServerName and DefaultServerVersion.
	Name, Version string
	// Title is the server's human-readable name.
	Title string
	// Instructions are sent to clients on initialization.
	Instructions string
	// Filter further selects the specs to serve; its Target is always
	// adapter.TargetMCP.
	Filter registry.Filter
	// Timeout bounds each call, overriding the spec's and the executor's
	// timeout; zero leaves theirs.
	Timeout time.Duration
	// Approver, if set, lets the client's user decide calls the executor
	// holds for approval: a call that comes back approval_pending is put to
	// the user through elicitation (see the package documentation for which
	// protocol versions get what), and the answer approves or denies the
	// ticket. Nil means a pending call answers with an isError result naming
	// the ticket, to be decided out of band (an anonymous 2026-07-28 caller
	// that declares elicitation is asked to wait for that decision instead;
	// see the package documentation). *adapter.Deferred is an Approver.
	Approver approval.Decider
	// RequestStateKey is the HMAC-SHA256 key that signs the requestState
	// of approval questions, which binds an answer to the caller, the
	// session, the tool, the arguments, the ticket and an expiry; at least
	// 32 bytes, else NewServer fails. Nil means a random key per
	// Server: a question then cannot be answered after a restart nor at
	// another replica; give replicas one key (the gateway keeps its key in
	// its store).
	RequestStateKey []byte
	// Logger receives the export's warnings and the go-sdk's logs (its
	// info lines, one per session connected or gone, which is every
	// request of the 2026-07-28 era, at debug level); nil means
	// slog.Default() for the export's and none for the go-sdk's.
	Logger *slog.Logger
	// Configure, if set, is called with the go-sdk server options before the
	// server is made, to set what these options do not cover (handlers for
	// completion, subscriptions, keep-alive...). Tools are always the
	// registry's.
	Configure func(*mcp.ServerOptions)
	// Upstreams, if set, also serves the resources, resource templates,
	// prompts and completions of a manager's servers, governed like calls,
	// and relays their resource updates, log messages and list changes
	// (see [Upstreams]). Nil serves tools only.
	Upstreams *Upstreams
	// Tasks, if set, serves the tasks extension ([TasksExtension]) to
	// clients that negotiate it: the calls its Support says run as
	// tasks answer at once with a task to poll. Nil serves every call
	// synchronously and does not advertise the extension.
	Tasks *TaskOptions
}

// Server serves the specs of a registry as MCP tools, calling every one
// through an executor. It follows the registry: specs registered, replaced
// or unregistered later are added to, replaced on or removed from the MCP
// server, which notifies connected clients with notifications/tools/list_changed.
//
// Create one with [NewServer]; serve it over stdio with [Server.Serve], over
// streamable HTTP with [Server.Handler] or [Server.ListenAndServe]. Close it
// to stop following the registry.
type Server struct {
	// sessions maps each live *mcp.ServerSession to its scope (see
	// sessionScope).
	sessions sync.Map
	reg      *registry.Registry
	exec     *adapter.Executor
	opts     Options
	filter   registry.Filter
	mcp      *mcp.Server
	logger   *slog.Logger

	mu     sync.Mutex // serialises the initial load with registry changes
	served map[string]bool
	cancel func()
	up     *upExport    // nil without Options.Upstreams
	tasks  *tasks.Store // nil without Options.Tasks
	topts  TaskOptions  // a copy of Options.Tasks

	askMu    sync.Mutex
	asked    map[any]map[string]askedTicket // asking session → ticket id → the question put to it
	askSwept time.Time                      // when expired questions of stateless callers were last dropped
	states   *stateSealer                   // signs the requestState of approval questions
}

// NewServer returns a server for the MCP-targeted specs of reg, calling
// them through exec, which is required: a nil exec is an error, so that no
// policy is dropped in silence. opts may be nil.
func NewServer(reg *registry.Registry, exec *adapter.Executor, opts *Options) (*Server, error) {
	if reg == nil {
		return nil, errors.New("mcpadapter: NewExporter with a nil registry")
	}
	if exec == nil {
		return nil, errors.New("mcpadapter: NewExporter with a nil executor (pass the *adapter.Executor whose policy the calls must follow)")
	}
	s := &Server{reg: reg, exec: exec, served: map[string]bool{}, asked: map[any]map[string]askedTicket{}}
	if opts != nil {
		s.opts = *opts
	}
	var err error
	if s.states, err = reqstate.NewSealer(s.opts.RequestStateKey); err != nil {
		return nil, err
	}
	s.filter = s.opts.Filter
	s.filter.Target = adapter.TargetMCP
	s.logger = s.opts.Logger
	if s.logger == nil {
		s.logger = slog.Default()
	}
	impl := &mcp.Implementation{Name: s.opts.Name, Title: s.opts.Title, Version: s.opts.Version}
	if impl.Name == "" {
		impl.Name = DefaultServerName
	}
	if impl.Version == "" {
		impl.Version = DefaultServerVersion
	}
	// The go-sdk logs every session at info level: at debug (sdklog).
	mopts := &mcp.ServerOptions{Instructions: s.opts.Instructions, Logger: sdklog.Demoted(s.opts.Logger), HasTools: true}
	if s.opts.Configure != nil {
		s.opts.Configure(mopts)
	}
	mopts.HasTools = true // an empty registry still has a (live) tool list
	mopts.SetCacheable = s.cacheHints(mopts.SetCacheable)
	if s.opts.Tasks != nil {
		tasks.Enable(mopts)
	}
	s.up = newUpExport(s, mopts)
	s.mcp = mcp.NewServer(impl, mopts)
	s.up.start()
	s.mcp.AddReceivingMiddleware(s.unknownTools, discoverVersions(mopts.SupportedProtocolVersions))
	// Outside the middleware that answers calls, reads and gets itself.
	s.mcp.AddReceivingMiddleware(wire.CompleteResultType, s.appNames)
	if s.opts.Tasks != nil {
		if err := tasks.Register(s.mcp); err != nil {
			return nil, err
		}
		s.topts = *s.opts.Tasks
		s.tasks = tasks.NewStore(taskOptions(&s.topts), errorResult)
		s.mcp.AddReceivingMiddleware(s.taskMiddleware)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	// Subscribe before listing: a change racing with the load is applied
	// again by the listener, which waits for s.mu, and applying is idempotent.
	s.cancel = reg.Subscribe(s.onChange)
	for spec := range reg.List(s.filter) {
		s.add(spec)
	}
	return s, nil
}

// MCPServer returns the go-sdk server, to add prompts or resources, or
// middleware, or to connect it to a transport of your own.
func (s *Server) MCPServer() *mcp.Server { return s.mcp }

// Close stops following the registry. Sessions already connected keep the
// tools they have; close them through their transports. Running tasks
// (Options.Tasks) are cancelled, and Close waits up to 10 s for
// their calls to return.
func (s *Server) Close() error {
	s.cancel()
	s.up.close()
	s.tasks.Close()
	return nil
}

// Serve serves one session over t (for example &mcp.StdioTransport{}) until
// the client disconnects or ctx is done.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	err := s.mcp.Run(ctx, t)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil
	}
	return err
}

func (s *Server) onChange(c registry.Change) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch c.Op {
	case registry.Added, registry.Replaced:
		if s.filter.Match(c.New) {
			s.add(c.New)
		} else {
			s.remove(c.Name)
		}
	case registry.Removed:
		s.remove(c.Name)
	}
}

// add installs or replaces a spec's tool; s.mu is held. A tool go-sdk
// refuses is not served, and a tool it replaced is withdrawn.
func (s *Server) add(spec *adapter.Spec) {
	if err := addTool(s.mcp, toolToMCP(spec), s.handler(spec.Name)); err != nil {
		s.remove(spec.Name)
		s.logger.Warn("mcpadapter: tool not exported", "tool", spec.Name, "error", err)
		return
	}
	s.served[spec.Name] = true
}

// addTool adds t to srv, turning go-sdk's refusal into an error. go-sdk
// panics on a definition it refuses (for one, an x-mcp-header annotation on
// a property that is not a string, integer or boolean); a panic is right for
// a server's own tools, but a spec imported from an upstream server carries
// that server's definition, and a hostile one must not stop the gateway.
func addTool(srv *mcp.Server, t *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprint(r)
			if len(msg) > 512 {
				msg = strings.ToValidUTF8(msg[:512], "") + "..."
			}
			err = fmt.Errorf("go-sdk refuses its definition: %s", msg)
		}
	}()
	srv.AddTool(t, h)
	return nil
}

// remove drops a tool if it is served; s.mu is held.
func (s *Server) remove(name string) {
	if s.served[name] {
		delete(s.served, name)
		s.mcp.RemoveTools(name)
	}
}

// toolToMCP describes a spec as an MCP tool, sharing its schemas (they are
// never modified).
func toolToMCP(spec *adapter.Spec) *mcp.Tool {
	t := &mcp.Tool{
		Name:        spec.Name,
		Title:       spec.Title,
		Description: spec.Description,
		Annotations: wire.ToolAnnotationsToMCP(spec.Title, spec.Annotations),
		Meta:        mcp.Meta(spec.Meta),
	}
	in := spec.InputSchema
	if in.Type == "" {
		// The spec may spell the object type as types: ["object"]; go-sdk
		// wants type: "object".
		c := *in
		c.Type, c.Types = "object", nil
		in = &c
	}
	t.InputSchema = schema.Wire(in)
	if spec.OutputSchema != nil {
		t.OutputSchema = schema.Wire(spec.OutputSchema)
	}
	return t
}

// RequestFromContext returns the MCP request a tool handler is serving when
// it is called through the export, or nil. Handlers use it to reach the
// client: logging (req.Session.Log), sampling, elicitation.
func RequestFromContext(ctx context.Context) *mcp.CallToolRequest {
	if c := adapter.ToolCallFromContext(ctx); c != nil {
		r, _ := c.Native.(*mcp.CallToolRequest)
		return r
	}
	return nil
}
