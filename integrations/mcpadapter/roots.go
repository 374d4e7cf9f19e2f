package mcpadapter

import (
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Roots are the directories or files (file:// URIs) a server may work in,
// advertised to servers that ask (roots/list). A manager gives every server
// ManagerOptions.Roots, and each server its own Server.Roots besides.

// SetRoots replaces the roots every server is given (ManagerOptions.Roots)
// and notifies connected servers with notifications/roots/list_changed.
// Each server's own Server.Roots stay.
func (m *Manager) SetRoots(roots ...*mcp.Root) {
	m.mu.Lock()
	m.roots = slices.Clone(roots)
	conns := make([]*conn, 0, len(m.conns))
	for _, c := range m.conns {
		conns = append(conns, c)
	}
	m.mu.Unlock()
	for _, c := range conns {
		c.setRoots(roots)
	}
}

// Roots returns the roots every server is given.
func (m *Manager) Roots() []*mcp.Root {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.roots)
}

// setRoots makes the client's roots the server's own plus shared,
// notifying the server only of what changed.
func (c *conn) setRoots(shared []*mcp.Root) {
	want := append(slices.Clone(c.cfg.Roots), shared...)
	c.rootsMu.Lock()
	defer c.rootsMu.Unlock()
	var gone []string
	for _, o := range c.roots {
		if !slices.ContainsFunc(want, func(r *mcp.Root) bool { return r.URI == o.URI }) {
			gone = append(gone, o.URI)
		}
	}
	var changed []*mcp.Root
	for _, r := range want {
		if !slices.ContainsFunc(c.roots, func(o mcp.Root) bool { return o.URI == r.URI && o.Name == r.Name }) {
			changed = append(changed, r)
		}
	}
	if len(gone) > 0 {
		c.client.RemoveRoots(gone...)
	}
	if len(changed) > 0 {
		c.client.AddRoots(changed...)
	}
	c.roots = c.roots[:0]
	for _, r := range want {
		c.roots = append(c.roots, *r)
	}
}
