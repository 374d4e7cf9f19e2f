// Package fanout hands each event to every listener: the manager's
// upstream events (list changes, resource updates, logs) go to the exports
// that relay them.
//
//	var hub fanout.Hub[Event]
//	cancel := hub.Listen(func(e Event) { ... }) // must not block
//	defer cancel()
//	hub.Emit(e)
//
// It is internal to the module.
package fanout

import "sync"

// Hub fans events out to its listeners. The zero value is ready to use.
type Hub[E any] struct {
	mu   sync.Mutex
	seq  int
	subs map[int]func(E)
}

// Listen adds fn as a listener until cancel is called.
func (h *Hub[E]) Listen(fn func(E)) (cancel func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = map[int]func(E){}
	}
	h.seq++
	id := h.seq
	h.subs[id] = fn
	return func() {
		h.mu.Lock()
		delete(h.subs, id)
		h.mu.Unlock()
	}
}

// Emit calls every listener with e, outside the hub's lock.
func (h *Hub[E]) Emit(e E) {
	h.mu.Lock()
	fns := make([]func(E), 0, len(h.subs))
	for _, fn := range h.subs {
		fns = append(fns, fn)
	}
	h.mu.Unlock()
	for _, fn := range fns {
		fn(e)
	}
}
