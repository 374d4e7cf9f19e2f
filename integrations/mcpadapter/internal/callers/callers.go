// Package callers keeps the upstream sessions of a server reached with
// each caller's own credentials (OAuth.PerCaller): one session per caller
// subject, opened on first use, bounded, closed on eviction and shutdown.
package callers

import (
	"context"
	"sync"
	"time"

	"github.com/agentadapter/agentadapter/adapter/caller"
)

// Subject is the verified caller's subject on ctx, "" for none or an
// anonymous caller: such a call is given no caller's credentials.
func Subject(ctx context.Context) string {
	if id := caller.IdentityFrom(ctx); id != nil && !id.Anonymous {
		return id.Subject
	}
	return ""
}

// Session is what is kept: a go-sdk client session.
type Session interface {
	comparable
	Close() error
	Wait() error
}

// DefaultMax bounds the sessions kept when Sessions.Max is 0.
const DefaultMax = 256

// Sessions are the sessions of one server by caller subject. Past Max, the
// least recently used is closed (a call running on it fails as a lost
// connection; its caller's next call opens another). The zero value is
// ready; WG, if set, counts the goroutine watching each session.
type Sessions[S Session] struct {
	Max int
	WG  *sync.WaitGroup

	mu     sync.Mutex
	bySub  map[string]*entry[S]
	closed bool
}

// entry is one caller's session; ready is closed once it is dialled (sess
// set, ok true) or failed (err set).
type entry[S Session] struct {
	ready chan struct{}
	sess  S
	ok    bool
	err   error
	used  time.Time // guarded by Sessions.mu
}

// Get returns subject's session, dialling it with dial on first use (one
// dial at a time per subject; a failed dial is not kept).
func (c *Sessions[S]) Get(ctx context.Context, subject string, closedErr error, dial func(context.Context) (S, error)) (S, error) {
	var zero S
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return zero, closedErr
		}
		e := c.bySub[subject]
		if e == nil {
			e = &entry[S]{ready: make(chan struct{}), used: time.Now()}
			if c.bySub == nil {
				c.bySub = map[string]*entry[S]{}
			}
			c.bySub[subject] = e
			victim, evicted := c.evict(e)
			c.mu.Unlock()
			if evicted {
				victim.Close()
			}
			c.dial(ctx, subject, e, closedErr, dial)
			return e.sess, e.err
		}
		e.used = time.Now()
		c.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return zero, ctx.Err()
		}
		if e.err == nil {
			return e.sess, nil
		}
		// Its dial failed (and it is gone from the map): dial anew.
	}
}

func (c *Sessions[S]) dial(ctx context.Context, subject string, e *entry[S], closedErr error, dial func(context.Context) (S, error)) {
	defer close(e.ready)
	s, err := dial(ctx)
	c.mu.Lock()
	switch {
	case err != nil:
		e.err = err
	case c.closed:
		e.err = closedErr
	default:
		e.sess, e.ok = s, true
		if c.WG != nil {
			c.WG.Add(1) // under mu: before CloseAll lets the owner wait
		}
	}
	if e.err != nil && c.bySub[subject] == e {
		delete(c.bySub, subject)
	}
	c.mu.Unlock()
	if err == nil && e.err != nil {
		s.Close()
	}
	if e.ok {
		go func() {
			if c.WG != nil {
				defer c.WG.Done()
			}
			s.Wait()
			c.Drop(s)
		}()
	}
}

// evict removes the least recently used dialled entry other than keep once
// there are more than Max, and returns its session to close. c.mu is held.
func (c *Sessions[S]) evict(keep *entry[S]) (S, bool) {
	var zero S
	max := c.Max
	if max <= 0 {
		max = DefaultMax
	}
	if len(c.bySub) <= max {
		return zero, false
	}
	oldest := ""
	var at time.Time
	for sub, e := range c.bySub {
		if e == keep || !e.ok {
			continue
		}
		if oldest == "" || e.used.Before(at) {
			oldest, at = sub, e.used
		}
	}
	if oldest == "" {
		return zero, false
	}
	s := c.bySub[oldest].sess
	delete(c.bySub, oldest)
	return s, true
}

// Drop forgets and closes s if it is a caller's session, and reports
// whether it was.
func (c *Sessions[S]) Drop(s S) bool {
	c.mu.Lock()
	found := false
	for sub, e := range c.bySub {
		if e.ok && e.sess == s {
			delete(c.bySub, sub)
			found = true
			break
		}
	}
	c.mu.Unlock()
	if found {
		s.Close()
	}
	return found
}

// Len returns how many sessions are kept or being dialled.
func (c *Sessions[S]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.bySub)
}

// CloseAll closes every session; none is opened after.
func (c *Sessions[S]) CloseAll() {
	c.mu.Lock()
	c.closed = true
	var ss []S
	for _, e := range c.bySub {
		if e.ok {
			ss = append(ss, e.sess)
		}
	}
	c.bySub = nil
	c.mu.Unlock()
	for _, s := range ss {
		s.Close()
	}
}
