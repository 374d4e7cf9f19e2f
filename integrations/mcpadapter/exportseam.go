package mcpadapter

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/bridge"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/tasks"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/taskwire"
)

// The seam between the import (this package) and the export (package
// export, which must not import this one): a Manager's servers as the
// export sees them (bridge.Servers), and the names of the tasks extension
// the import shares with the export's task store (internal/tasks).

var _ export.Source = (*Manager)(nil)

// ExportServers returns m's servers as an export serves them
// ([export.Upstreams]); nil for a nil m.
func (m *Manager) ExportServers() bridge.Servers {
	if m == nil {
		return nil
	}
	return exportServers{m}
}

// exportServers is a Manager as a bridge.Servers.
type exportServers struct{ m *Manager }

func (s exportServers) All() []bridge.Server {
	all := s.m.all()
	out := make([]bridge.Server, len(all))
	for i, c := range all {
		out[i] = exportConn{c}
	}
	return out
}

func (s exportServers) Listen(fn func(bridge.Event)) (cancel func()) {
	return s.m.relay.listen(func(e upstreamEvent) {
		fn(bridge.Event{Server: exportConn{e.conn}, Kind: exportEventKind(e.kind), URI: e.uri, Log: e.log})
	})
}

func exportEventKind(k eventKind) bridge.EventKind {
	switch k {
	case eventResources:
		return bridge.EventResources
	case eventPrompts:
		return bridge.EventPrompts
	case eventUpdated:
		return bridge.EventUpdated
	}
	return bridge.EventLog
}

// exportConn is a conn as a bridge.Server: a value, equal for one conn.
type exportConn struct{ c *conn }

func (x exportConn) Name() string       { return x.c.cfg.Name }
func (x exportConn) Trusted() bool      { return x.c.cfg.Trust }
func (x exportConn) Credential() string { return x.c.cfg.OAuth.Credential() }
func (x exportConn) LocalName(remote string) string {
	return localName(x.c.cfg.Name, remote, x.c.cfg.Prefix)
}
func (x exportConn) Connected() bool                  { return x.c.session() != nil }
func (x exportConn) TemplateMatches(uri string) bool  { return x.c.templateMatches(uri) }
func (x exportConn) ImportsPrompt(remote string) bool { return x.c.importsPrompt(remote) }

func (x exportConn) Ensure(ctx context.Context) error {
	_, err := x.c.ensure(ctx)
	return err
}

func (x exportConn) Resources(ctx context.Context, relist bool) ([]*mcp.Resource, []*mcp.ResourceTemplate, error) {
	return x.c.upstreamResources(ctx, relist)
}

func (x exportConn) Prompts(ctx context.Context) ([]*mcp.Prompt, error) {
	return x.c.upstreamPrompts(ctx)
}

func (x exportConn) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	return x.c.readResource(ctx, uri)
}

func (x exportConn) GetPrompt(ctx context.Context, remote string, args map[string]string) (*mcp.GetPromptResult, error) {
	return x.c.getPrompt(ctx, remote, args)
}

func (x exportConn) Complete(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	return x.c.complete(ctx, p)
}

func (x exportConn) Subscribe(ctx context.Context, owner, uri string) error {
	return x.c.subscribe(ctx, owner, uri)
}

func (x exportConn) Unsubscribe(ctx context.Context, owner, uri string) {
	x.c.unsubscribe(ctx, owner, uri)
}

func (x exportConn) SetLevel(ctx context.Context, ss *mcp.ServerSession, level mcp.LoggingLevel) {
	x.c.setLevel(ctx, ss, level)
}

type (
	taskError = taskwire.Error
	taskKey   = tasks.Key
	taskRef   = tasks.Ref
)

// mintTask mints the export's task of the imported call ctx belongs to
// (see internal/tasks.Mint).
func mintTask(ctx context.Context) (context.Context, error) { return tasks.Mint(ctx) }
