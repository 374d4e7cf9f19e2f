// Package cow holds the copy-on-write map shards of the executor's
// result cache and argument memo: lock-free reads, small copies on write.
// Only adapter imports it.
package cow

import (
	"sync"
	"sync/atomic"
)

// A Shard is a copy-on-write map: lock-free reads, writes serialised by
// Mu. Shards are kept small (Target entries) so that a copy is cheap.
type Shard[V any] struct {
	Mu  sync.Mutex
	m   atomic.Pointer[map[string]V]
	Cap int      // entries before a Put evicts
	_   [40]byte // keep shards off each other's cache lines
}

// Target is the number of entries a shard is sized for.
const Target = 16

// Get returns the value under key.
func (s *Shard[V]) Get(key string) (V, bool) {
	var zero V
	m := s.m.Load()
	if m == nil {
		return zero, false
	}
	v, ok := (*m)[key]
	return v, ok
}

// GetBytes is Get without converting key to a string (and allocating).
func (s *Shard[V]) GetBytes(key []byte) (V, bool) {
	var zero V
	m := s.m.Load()
	if m == nil {
		return zero, false
	}
	v, ok := (*m)[string(key)]
	return v, ok
}

// Put stores v under key, first dropping the entry victim chooses if the
// shard is full. s.Mu is held.
func (s *Shard[V]) Put(key string, v V, victim func(map[string]V) string) {
	old := map[string]V{}
	if m := s.m.Load(); m != nil {
		old = *m
	}
	drop, skip := "", false
	if _, ok := old[key]; !ok && len(old) >= s.Cap && len(old) > 0 {
		drop, skip = victim(old), true
	}
	m := make(map[string]V, len(old)+1)
	for k, e := range old {
		if !skip || k != drop {
			m[k] = e
		}
	}
	m[key] = v
	s.m.Store(&m)
}

// Len returns the number of entries.
func (s *Shard[V]) Len() int {
	if p := s.m.Load(); p != nil {
		return len(*p)
	}
	return 0
}

// For returns the number of shards (a power of two) for size entries.
func For(size int) int {
	n := 1
	for n*Target < size && n < 4096 {
		n *= 2
	}
	return n
}

// FNV64 is the FNV-1a hash of key.
func FNV64[T string | []byte](key T) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return h
}
