// Package callctx holds the context a tool handler runs under when the
// caller's context can never be cancelled: a deadline and one value in a
// single allocation, the executor's own. Only adapter imports it, as
// Ctx[callKey, *ToolCall].
package callctx

import (
	"context"
	"sync"
	"time"
)

// Ctx is a handler's context when the caller's context can never be
// cancelled (its Done is nil): it carries one value (under any key of type
// K) and its deadline in the call's own allocation, where
// context.WithTimeout plus context.WithValue cost five allocations. Its
// Done channel and the timer that closes it are made only when someone asks
// for Done: a handler that never waits on its context (and runs on the
// caller's goroutine, see Spec.HonorsContext) costs neither, and Err still
// reports the deadline once it has passed. (Timers are not pooled: a timer
// made inside a testing/synctest bubble must not be reset outside it, and
// the reverse.)
type Ctx[K, V any] struct {
	parent   context.Context
	val      V
	deadline int64 // unix nanoseconds

	mu    sync.Mutex
	state int32         // ctxLive, then ctxExpired or ctxStopped
	done  chan struct{} // made by the first Done
	timer *time.Timer   // armed with done
}

const (
	ctxLive int32 = iota
	ctxExpired
	ctxStopped
)

// Start arms c for a call that must end by deadline, carrying val.
func (c *Ctx[K, V]) Start(parent context.Context, val V, deadline time.Time) {
	c.parent, c.val = parent, val
	c.deadline = deadline.UnixNano()
}

func (c *Ctx[K, V]) expire() { c.end(ctxExpired) }

// Stop ends c once the call returns, as the cancel func of a
// context.WithTimeout would: Done closes, Err is context.Canceled, and
// anything the handler left waiting on ctx is released.
func (c *Ctx[K, V]) Stop() { c.end(ctxStopped) }

func (c *Ctx[K, V]) end(state int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != ctxLive {
		return
	}
	c.state = state
	if c.timer != nil {
		c.timer.Stop()
	}
	if c.done != nil {
		close(c.done)
	}
}

// Deadline is the deadline given to Start.
func (c *Ctx[K, V]) Deadline() (time.Time, bool) { return time.Unix(0, c.deadline), true }

// Done is closed at the deadline or by Stop, whichever comes first.
func (c *Ctx[K, V]) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		switch left := time.Until(time.Unix(0, c.deadline)); {
		case c.state != ctxLive:
			close(c.done)
		case left <= 0:
			c.state = ctxExpired
			close(c.done)
		default:
			c.timer = time.AfterFunc(left, c.expire)
		}
	}
	return c.done
}

// Err is context.DeadlineExceeded once the deadline has passed,
// context.Canceled after Stop, and nil before either.
func (c *Ctx[K, V]) Err() error {
	c.mu.Lock()
	state := c.state
	c.mu.Unlock()
	if state == ctxLive && time.Now().UnixNano() >= c.deadline {
		c.end(ctxExpired) // Done closes with it, if anyone holds it
		return c.Err()
	}
	switch state {
	case ctxExpired:
		return context.DeadlineExceeded
	case ctxStopped:
		return context.Canceled
	}
	return nil
}

// Value is the value given to Start for a key of type K, and the parent's
// value for any other key.
func (c *Ctx[K, V]) Value(key any) any {
	if _, ok := key.(K); ok {
		return c.val
	}
	return c.parent.Value(key)
}

// String names the context as it always has in adapter.
func (c *Ctx[K, V]) String() string { return "adapter.callCtx" }
