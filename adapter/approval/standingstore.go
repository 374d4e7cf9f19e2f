package approval

import (
	"cmp"
	"context"
	"iter"
	"slices"
	"strings"
	"sync"
)

// A StandingStore keeps standing decisions, one per tool and subject,
// where every replica and every later start sees them. [Standing] writes
// through it (Set, Revoke) and reloads from it ([Standing.Sync]).
// Implementations are safe for concurrent use.
type StandingStore interface {
	// Put stores r, replacing any decision for the same Tool and Subject.
	Put(ctx context.Context, r StandingRule) error
	// Delete removes the decision for tool and subject, reporting whether
	// there was one.
	Delete(ctx context.Context, tool, subject string) (bool, error)
	// All yields every decision, ordered by tool, then subject. An error
	// ends the sequence.
	All(ctx context.Context) iter.Seq2[StandingRule, error]
}

// MemoryStandingStore is a [StandingStore] in memory, shared by every
// Standing given the same one: for tests, and for replicas in one process.
// The zero value is an empty store.
type MemoryStandingStore struct {
	mu    sync.Mutex
	rules map[standingKey]StandingRule
}

// NewMemoryStandingStore returns an empty MemoryStandingStore.
func NewMemoryStandingStore() *MemoryStandingStore {
	return &MemoryStandingStore{rules: map[standingKey]StandingRule{}}
}

// Put implements [StandingStore].
func (m *MemoryStandingStore) Put(ctx context.Context, r StandingRule) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rules == nil {
		m.rules = map[standingKey]StandingRule{}
	}
	m.rules[standingKey{r.Tool, r.Subject}] = r
	return nil
}

// Delete implements [StandingStore].
func (m *MemoryStandingStore) Delete(ctx context.Context, tool, subject string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := standingKey{tool, subject}
	_, ok := m.rules[k]
	delete(m.rules, k)
	return ok, nil
}

// All implements [StandingStore].
func (m *MemoryStandingStore) All(ctx context.Context) iter.Seq2[StandingRule, error] {
	m.mu.Lock()
	out := make([]StandingRule, 0, len(m.rules))
	for _, r := range m.rules {
		out = append(out, r)
	}
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b StandingRule) int {
		return cmp.Or(strings.Compare(a.Tool, b.Tool), strings.Compare(a.Subject, b.Subject))
	})
	return func(yield func(StandingRule, error) bool) {
		for _, r := range out {
			if !yield(r, nil) {
				return
			}
		}
	}
}
