// Package ticketwait is how the database stores wait for an approval
// decision: a [Waker] that a store's decisions (or notifications from
// other processes) ring, and [Wait], which re-reads the ticket at each
// ring and at a polling interval, for decisions no ring announces.
//
//	w := ticketwait.NewWaker()
//	t, err := ticketwait.Wait(ctx, w, time.Second, func(ctx context.Context) (*approval.Ticket, error) { return store.Get(ctx, id) })
package ticketwait

import (
	"context"
	"sync"
	"time"

	"github.com/agentadapter/agentadapter/adapter/approval"
)

// Waker tells waiters that a ticket changed. It is safe for concurrent use.
type Waker struct {
	mu sync.Mutex
	ch chan struct{}
}

// NewWaker returns a Waker.
func NewWaker() *Waker { return &Waker{ch: make(chan struct{})} }

// Changed returns a channel closed at the next Notify.
func (w *Waker) Changed() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ch
}

// Notify wakes every waiter.
func (w *Waker) Notify() {
	w.mu.Lock()
	close(w.ch)
	w.ch = make(chan struct{})
	w.mu.Unlock()
}

// Wait returns the ticket get reads once it is no longer pending (or
// get's error, or ctx's), reading it again at each Notify of w and every
// poll.
func Wait(ctx context.Context, w *Waker, poll time.Duration, get func(context.Context) (*approval.Ticket, error)) (*approval.Ticket, error) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		changed := w.Changed() // before reading: no wake-up is missed
		tk, err := get(ctx)
		if err != nil || tk.State != approval.TicketPending {
			return tk, err
		}
		select {
		case <-changed:
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
