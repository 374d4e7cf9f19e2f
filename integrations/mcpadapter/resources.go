package mcpadapter

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/pages"
)

// Resources lists the resources of the named server, every page (capped
// like tools/list).
func (m *Manager) Resources(ctx context.Context, server string) ([]*mcp.Resource, error) {
	s, err := m.live(ctx, server)
	if err != nil {
		return nil, err
	}
	return pages.Collect(ctx, m.maxPages(), func(cursor string) ([]*mcp.Resource, string, error) {
		r, err := s.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	})
}

// ReadResource reads one resource of the named server.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error) {
	s, err := m.live(ctx, server)
	if err != nil {
		return nil, err
	}
	return s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
}

// Prompts lists the prompts of the named server, every page (capped like
// tools/list).
func (m *Manager) Prompts(ctx context.Context, server string) ([]*mcp.Prompt, error) {
	s, err := m.live(ctx, server)
	if err != nil {
		return nil, err
	}
	return pages.Collect(ctx, m.maxPages(), func(cursor string) ([]*mcp.Prompt, string, error) {
		r, err := s.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	})
}

// GetPrompt renders a prompt of the named server with arguments.
func (m *Manager) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	s, err := m.live(ctx, server)
	if err != nil {
		return nil, err
	}
	return s.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
}

// live returns a session to server, reconnecting if needed, under the
// server's call timeout unless ctx has a deadline.
func (m *Manager) live(ctx context.Context, server string) (*mcp.ClientSession, error) {
	c, err := m.conn(server)
	if err != nil {
		return nil, err
	}
	return c.ensure(ctx)
}

// maxPages bounds the pages of a listing (ManagerOptions.MaxPages).
func (m *Manager) maxPages() int {
	if m.opts.MaxPages <= 0 {
		return DefaultMaxPages
	}
	return m.opts.MaxPages
}
