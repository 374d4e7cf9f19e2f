// Package state opens the gateway's durable state: approval tickets, the
// ledger and definition pins, shared by a running gateway and the
// approvals, ledger and pins commands.
package state

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
)

// Store is what the gateway keeps between runs and shares between
// processes.
type Store interface {
	// Tickets keeps approval tickets.
	Tickets() adapter.TicketStore
	// Ledger records calls.
	Ledger() adapter.Ledger
	// Records yields ledger records matching q, oldest first.
	Records(ctx context.Context, q Query) iter.Seq2[*adapter.Record, error]
	// Pins returns the accepted definition hashes (mcpadapter.PinKey).
	Pins(ctx context.Context) (map[string]string, error)
	// SetPin accepts a definition hash.
	SetPin(ctx context.Context, key, hash string) error
	// Quarantines returns the changed definitions awaiting acceptance, as
	// the gateway last reported them.
	Quarantines(ctx context.Context) ([]Quarantine, error)
	// SetQuarantines replaces them.
	SetQuarantines(ctx context.Context, q []Quarantine) error
	Close() error
}

// Quarantine is a tool whose definition changed after it was pinned.
type Quarantine struct {
	Server     string          `json:"server"`
	Tool       string          `json:"tool"`
	RemoteName string          `json:"remote_name"`
	Pinned     string          `json:"pinned"`
	Got        string          `json:"got"`
	Definition json.RawMessage `json:"definition,omitempty"`
	Previous   json.RawMessage `json:"previous,omitempty"`
}

// Query selects ledger records; zero fields select all.
type Query struct {
	Tool, Subject, Outcome, Run string
	Since, Until                time.Time
	Limit                       int
}

// Match reports whether r passes q (Limit aside).
func (q Query) Match(r *adapter.Record) bool {
	return (q.Tool == "" || r.Tool == q.Tool) && (q.Subject == "" || r.Subject == q.Subject) &&
		(q.Outcome == "" || r.Outcome == q.Outcome) && (q.Run == "" || r.RunID == q.Run) &&
		(q.Since.IsZero() || !r.Time.Before(q.Since)) && (q.Until.IsZero() || r.Time.Before(q.Until))
}

// Open opens a store from its configuration string: "memory:" (this
// process only) or "sqlite:PATH".
func Open(ctx context.Context, spec string) (Store, error) {
	scheme, rest, _ := strings.Cut(spec, ":")
	if opener, ok := openers[scheme]; ok {
		return opener(ctx, rest)
	}
	return nil, fmt.Errorf("store %q: this build supports %s", spec, strings.Join(schemes(), ", "))
}

var openers = map[string]func(ctx context.Context, rest string) (Store, error){
	"memory": func(context.Context, string) (Store, error) { return NewMemory(), nil },
}

func schemes() []string {
	var out []string
	for k := range openers {
		out = append(out, k+":")
	}
	return out
}

// Memory is a Store in process memory, for tests and "memory:".
type Memory struct {
	tickets *adapter.MemoryTicketStore
	ledger  *adapter.MemoryLedger
	mu      sync.Mutex
	pins    map[string]string
	quar    []Quarantine
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{tickets: adapter.NewMemoryTicketStore(), ledger: adapter.NewMemoryLedger(0), pins: map[string]string{}}
}

func (m *Memory) Tickets() adapter.TicketStore { return m.tickets }
func (m *Memory) Ledger() adapter.Ledger       { return m.ledger }
func (m *Memory) Records(ctx context.Context, q Query) iter.Seq2[*adapter.Record, error] {
	return func(yield func(*adapter.Record, error) bool) {
		n := 0
		for _, r := range m.ledger.Records() {
			if !q.Match(&r) {
				continue
			}
			if q.Limit > 0 && n == q.Limit {
				return
			}
			n++
			if !yield(&r, nil) {
				return
			}
		}
	}
}
func (m *Memory) Pins(context.Context) (map[string]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]string, len(m.pins))
	for k, v := range m.pins {
		out[k] = v
	}
	return out, nil
}
func (m *Memory) SetPin(_ context.Context, key, hash string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pins[key] = hash
	return nil
}
func (m *Memory) Quarantines(context.Context) ([]Quarantine, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Quarantine(nil), m.quar...), nil
}
func (m *Memory) SetQuarantines(_ context.Context, q []Quarantine) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.quar = append([]Quarantine(nil), q...)
	return nil
}
func (m *Memory) Close() error { return nil }
