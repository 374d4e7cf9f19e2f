package mcpadapter

import (
	"context"
	"errors"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
)

// acceptedElsewhere reports whether a quarantined tool's new definition was
// accepted through another manager sharing the pin store; if so it accepts
// it here too and returns the new import.
func (m *Manager) acceptedElsewhere(c *conn, q *Quarantine) (*imported, bool) {
	h, ok, err := m.pins.Get(context.Background(), pin.Key(q.Server, q.RemoteName))
	if err != nil || !ok || h != q.Got {
		return nil, false
	}
	if err := m.Accept(q.Server, q.Tool, h); err != nil {
		m.logger.Warn("mcpadapter: accepting a definition accepted elsewhere failed", "server", q.Server, "tool", q.Tool, "error", err)
	}
	c.mu.Lock()
	imp := c.tools[q.RemoteName]
	c.mu.Unlock()
	if imp == nil || imp.quarantine.Load() != nil {
		return nil, false
	}
	return imp, true
}

// SyncPins releases every quarantined tool whose new definition was
// accepted through another manager sharing the pin store (a quarantined
// tool's next call does the same for that tool alone).
func (m *Manager) SyncPins(ctx context.Context) error {
	var errs []error
	for _, q := range m.Quarantined() {
		h, ok, err := m.pins.Get(ctx, pin.Key(q.Server, q.RemoteName))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok && h == q.Got {
			if err := m.Accept(q.Server, q.Tool, h); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
