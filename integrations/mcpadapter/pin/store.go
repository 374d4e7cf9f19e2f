package pin

import (
	"context"
	"iter"
	"maps"
	"slices"
	"sync"
)

// Pin is a tool's accepted definition hash (mcpadapter.DefinitionHash)
// under its [Key].
type Pin struct {
	Key, Hash string
}

// A Store keeps the pins of imported tools. Managers sharing a store
// (replicas of a service on one database) compare every definition with
// the same pins: they quarantine the same changed tool, and an
// mcpadapter.Manager.Accept through one of them releases it in all (each
// notices on the tool's next call or mcpadapter.Manager.SyncPins).
// Implementations must be safe for concurrent use; SetIfAbsent must be
// atomic. mcpadaptertest.TestPinStore checks an implementation.
type Store interface {
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

// MemoryStore is the in-memory [Store], the default of an
// mcpadapter.Manager. The zero value holds no pins.
type MemoryStore struct {
	mu   sync.Mutex
	pins map[string]string
}

// NewMemoryStore returns a store holding pins (which it copies).
func NewMemoryStore(pins map[string]string) *MemoryStore {
	m := &MemoryStore{pins: maps.Clone(pins)}
	if m.pins == nil {
		m.pins = map[string]string{}
	}
	return m
}

// Get implements [Store].
func (m *MemoryStore) Get(_ context.Context, key string) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h, ok := m.pins[key]
	return h, ok, nil
}

// SetIfAbsent implements [Store].
func (m *MemoryStore) SetIfAbsent(_ context.Context, key, hash string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if h, ok := m.pins[key]; ok {
		return h, nil
	}
	if m.pins == nil {
		m.pins = map[string]string{}
	}
	m.pins[key] = hash
	return hash, nil
}

// Set implements [Store].
func (m *MemoryStore) Set(_ context.Context, key, hash string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pins == nil {
		m.pins = map[string]string{}
	}
	m.pins[key] = hash
	return nil
}

// All implements [Store].
func (m *MemoryStore) All(context.Context) iter.Seq2[Pin, error] {
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
