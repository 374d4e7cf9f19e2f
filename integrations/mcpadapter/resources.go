package mcpadapter

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resources lists the resources of the named server, every page (capped
// like tools/list).
func (m *Manager) Resources(ctx context.Context, server string) ([]*mcp.Resource, error) {
	s, err := m.live(ctx, server)
	if err != nil {
		return nil, err
	}
	return collect(ctx, m, func(cursor string) ([]*mcp.Resource, string, error) {
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
	return collect(ctx, m, func(cursor string) ([]*mcp.Prompt, string, error) {
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

func collect[T any](ctx context.Context, m *Manager, page func(cursor string) ([]*T, string, error)) ([]*T, error) {
	maxPages := m.opts.MaxPages
	if maxPages <= 0 {
		maxPages = DefaultMaxPages
	}
	var out []*T
	seen := map[string]bool{}
	cursor := ""
	for i := 0; i < maxPages; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		items, next, err := page(cursor)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("mcpadapter: server repeated cursor %q", next)
		}
		seen[next] = true
		cursor = next
	}
	return nil, fmt.Errorf("mcpadapter: listing has more than %d pages", maxPages)
}
