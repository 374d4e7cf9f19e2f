package adapter

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/agentadapter/agentadapter/adapter/caller"
)

// ToolCall describes one tool call as it passes through the executor:
// ToolCall is the [Request] after lookup, validation and scope. The caller
// owns the Request; the executor builds the ToolCall, and hooks, guards and
// approval policies receive it; handlers read it with [ToolCallFromContext].
type ToolCall struct {
	// CallID identifies the call: the framework's tool call id when it has
	// one ([Request.CallID]), otherwise one made up by the executor.
	CallID string
	// ID holds the same value as CallID.
	//
	// Deprecated: use CallID, the name every type that refers to a call
	// uses (Request, Record, Ticket, Error).
	ID string
	// RunID is the id of the run scope the call belongs to (see [WithRun]),
	// or "".
	RunID string
	// Tool is the name the tool was called by.
	Tool string
	// Spec is the tool's spec.
	Spec *Spec
	// Args are the validated arguments. A hook may replace them; the
	// executor validates replaced arguments again.
	Args json.RawMessage
	// Integration names the calling framework: "eino", "genkit",
	// "langchaingo", "mcp", or "" for direct calls.
	Integration string
	// Native is the framework's own object for the call (its tool value or
	// request), for handlers that need it.
	Native any
	// Identity is the verified caller, when the integration authenticates
	// one (the MCP export with bearer auth does), or an anonymous caller
	// told apart by its session (Identity.Anonymous: the MCP export
	// without auth).
	Identity *caller.Identity
	// Ticket is the approval ticket the caller presents to resume a call
	// that was pending approval.
	Ticket string
	// Session identifies the caller's session (see [caller.WithSession]), such as
	// one MCP client connection, or "".
	Session string

	// decoded is the typed value a strict decoder made of decodedFrom while
	// validating it; the handler takes it while Args are still those bytes.
	decoded     any
	decodedFrom json.RawMessage
}

type callKey struct{}

// ToolCallFromContext returns the call a handler is serving, or nil outside a
// tool call.
func ToolCallFromContext(ctx context.Context) *ToolCall {
	c, _ := ctx.Value(callKey{}).(*ToolCall)
	return c
}

func withCall(ctx context.Context, c *ToolCall) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// callCtx is a handler's context when the caller's context can never be
// cancelled (its Done is nil): it carries the call and its deadline in
// the call's own allocation, where context.WithTimeout plus
// context.WithValue cost five allocations. Its Done channel and the timer
// that closes it are made only when someone asks for Done: a handler that
// never waits on its context (and runs on the caller's goroutine, see
// Spec.HonorsContext) costs neither, and Err still reports the deadline
// once it has passed. (Timers are not pooled: a timer made inside a
// testing/synctest bubble must not be reset outside it, and the reverse.)
type callCtx struct {
	parent   context.Context
	call     *ToolCall
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

// start arms c for a call that must end by deadline.
func (c *callCtx) start(parent context.Context, call *ToolCall, deadline time.Time) {
	c.parent, c.call = parent, call
	c.deadline = deadline.UnixNano()
}

func (c *callCtx) expire() { c.end(ctxExpired) }

// stop ends c once the call returns, as the cancel func of a
// context.WithTimeout would: Done closes, Err is context.Canceled, and
// anything the handler left waiting on ctx is released.
func (c *callCtx) stop() { c.end(ctxStopped) }

func (c *callCtx) end(state int32) {
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

func (c *callCtx) Deadline() (time.Time, bool) { return time.Unix(0, c.deadline), true }

func (c *callCtx) Done() <-chan struct{} {
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

func (c *callCtx) Err() error {
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

func (c *callCtx) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return c.call
	}
	return c.parent.Value(key)
}

func (c *callCtx) String() string { return "adapter.callCtx" }
