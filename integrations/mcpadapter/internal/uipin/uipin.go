// Package uipin keeps what a connection knows of the pins of an MCP
// App's ui:// resources: the URIs of the server's first listing, those it
// pinned, and the quarantines kept for review, within bounds the server
// cannot raise. What a pin covers and when a read is refused is
// mcpadapter's (uipin.go); this is the bookkeeping, under one lock.
//
//	var pins uipin.Pins[Quarantine]
//	pins.NoteListing(resources)
//	if isNew, full := pins.Unpinned(uri, named); isNew { ... }
//
// It is internal to the module.
package uipin

import (
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// IsUI reports whether uri names an MCP App's resource (schemes are
// case-insensitive).
func IsUI(uri string) bool {
	return len(uri) >= 5 && strings.EqualFold(uri[:5], "ui://")
}

// Bounds of what one server's ui:// resources may cost: the pins this run
// creates (of URIs the server lists or its tools name: the server decides
// how many, not a caller) and the quarantines kept for review.
const (
	MaxPins = 1024
	MaxHeld = 256
)

// Pins is what a connection knows of its ui:// resources' pins, Q being
// its record of a quarantine. The zero value is ready to use.
type Pins[Q any] struct {
	mu sync.Mutex
	// baseline are the ui:// URIs of the first resources listing: on a
	// server whose new items wait for review, only these are pinned on
	// first use. Nil before that listing.
	baseline map[string]bool
	pinned   map[string]bool // URIs this connection pinned
	held     map[string]*Q   // by URI
}

// NoteListing records the first listing's ui:// URIs.
func (u *Pins[Q]) NoteListing(res []*mcp.Resource) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.baseline != nil {
		return
	}
	u.baseline = map[string]bool{}
	for _, r := range res {
		if r != nil && IsUI(r.URI) {
			u.baseline[r.URI] = true
		}
	}
}

// Unpinned reports, of a uri without a pin, whether it is new (a served
// tool names it not, and the first listing had it not) and whether this
// connection has pinned as many URIs as it may.
func (u *Pins[Q]) Unpinned(uri string, named bool) (isNew, full bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	// A URI a served tool names was reviewed with the tool.
	isNew = !named && u.baseline != nil && !u.baseline[uri]
	full = len(u.pinned) >= MaxPins && !u.pinned[uri]
	return isNew, full
}

// Mine records that this connection pinned uri.
func (u *Pins[Q]) Mine(uri string) {
	u.mu.Lock()
	u.mine(uri)
	u.mu.Unlock()
}

// mine is Mine with u.mu held.
func (u *Pins[Q]) mine(uri string) {
	if u.pinned == nil {
		u.pinned = map[string]bool{}
	}
	u.pinned[uri] = true
}

// Clear drops the quarantine of uri: the server is back to the pinned
// envelope.
func (u *Pins[Q]) Clear(uri string) {
	u.mu.Lock()
	delete(u.held, uri)
	u.mu.Unlock()
}

// Hold keeps q for uri, and reports whether it is kept anew: when no
// quarantine is kept for uri (and fewer than MaxHeld are), or the one kept
// is not the same (same(old) false). Reported once per envelope, and only
// while kept: a server listing URI after URI must not make a report (and
// a store write of the gateway) per read.
func (u *Pins[Q]) Hold(uri string, q *Q, same func(old *Q) bool) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	old := u.held[uri]
	fresh := (old == nil || !same(old)) && (old != nil || len(u.held) < MaxHeld)
	if fresh {
		if u.held == nil {
			u.held = map[string]*Q{}
		}
		u.held[uri] = q
	}
	return fresh
}

// Held returns the quarantines kept, in no order.
func (u *Pins[Q]) Held() []*Q {
	u.mu.Lock()
	defer u.mu.Unlock()
	qs := make([]*Q, 0, len(u.held))
	for _, q := range u.held {
		qs = append(qs, q)
	}
	return qs
}

// Get returns the quarantine kept for uri, or nil.
func (u *Pins[Q]) Get(uri string) *Q {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.held[uri]
}

// Drop drops the quarantine of uri if it is still q.
func (u *Pins[Q]) Drop(uri string, q *Q) {
	u.mu.Lock()
	if u.held[uri] == q {
		delete(u.held, uri)
	}
	u.mu.Unlock()
}

// Accepted drops the quarantine of uri if it is still q, and records
// that this connection pinned uri when the quarantine was of a new URI.
func (u *Pins[Q]) Accepted(uri string, q *Q, wasNew bool) {
	u.mu.Lock()
	if u.held[uri] == q {
		delete(u.held, uri)
	}
	if wasNew {
		u.mine(uri)
	}
	u.mu.Unlock()
}
