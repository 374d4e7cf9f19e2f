package mcpadapter

import (
	"context"
	"errors"
	"iter"
	"maps"
	"slices"
	"sync"
)

// Pin is a tool's accepted definition hash ([DefinitionHash]) under its
// [PinKey].
type Pin struct {
	Key, Hash string
}

// A PinStore keeps the pins of imported tools. Managers sharing a store
// (replicas of a service on one database) compare every definition with
// the same pins: they quarantine the same changed tool, and an
// [Manager.Accept] through one of them releases it in all (each notices on
// the tool's next call or [Manager.SyncPins]). Implementations must be
// safe for concurrent use; SetIfAbsent must be atomic. The adaptertest
// package checks an implementation.
type PinStore interface {
	// Get returns the pin stored under key.
	Get(ctx context.Context, key string) (hash string, ok bool, err error)
	// SetIfAbsent stores hash under key unless a pin is there, and returns
	// the pin stored now.
	SetIfAbsent(ctx context.Context, key, hash string) (string, error)
	// Set stores hash under key, replacing any pin (an accepted change).
	Set(ctx context.Context, key, hash string) error
	// All yields every pin, ordered by key.
	All(ctx context.Context) iter.Seq2[Pin, error]
}

// MemoryPinStore is the in-memory [PinStore], the default of a [Manager].
type MemoryPinStore struct {
	mu   sync.Mutex
	pins map[string]string
}

// NewMemoryPinStore returns a store holding pins (which it copies).
func NewMemoryPinStore(pins map[string]string) *MemoryPinStore {
	m := &MemoryPinStore{pins: maps.Clone(pins)}
	if m.pins == nil {
		m.pins = map[string]string{}
	}
	return m
}

// Get implements [PinStore].
func (m *MemoryPinStore) Get(_ context.Context, key string) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h, ok := m.pins[key]
	return h, ok, nil
}

// SetIfAbsent implements [PinStore].
func (m *MemoryPinStore) SetIfAbsent(_ context.Context, key, hash string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if h, ok := m.pins[key]; ok {
		return h, nil
	}
	m.pins[key] = hash
	return hash, nil
}

// Set implements [PinStore].
func (m *MemoryPinStore) Set(_ context.Context, key, hash string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pins[key] = hash
	return nil
}

// All implements [PinStore].
func (m *MemoryPinStore) All(context.Context) iter.Seq2[Pin, error] {
	m.mu.Lock()
	out := make([]Pin, 0, len(m.pins))
	for _, k := range slices.Sorted(maps.Keys(m.pins)) {
		out = append(out, Pin{k, m.pins[k]})
	}
	m.mu.Unlock()
	return func(yield func(Pin, error) bool) {
		for _, p := range out {
			if !yield(p, nil) {
				return
			}
		}
	}
}

// acceptedElsewhere reports whether a quarantined tool's new definition was
// accepted through another manager sharing the pin store; if so it accepts
// it here too and returns the new import.
func (m *Manager) acceptedElsewhere(c *conn, q *Quarantine) (*imported, bool) {
	h, ok, err := m.pins.Get(context.Background(), PinKey(q.Server, q.RemoteName))
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
		h, ok, err := m.pins.Get(ctx, PinKey(q.Server, q.RemoteName))
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
