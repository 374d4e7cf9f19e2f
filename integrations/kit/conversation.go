package kit

import (
	"cmp"
	"context"
	"sync"
)

// Conversation is one conversation of a framework whose loop runs tools
// that can neither stop it nor learn the id of their call (the Anthropic
// SDK's tool runner), as its tools tell the integration that drives the
// loop: the calls held for approval, each under the placeholder its result
// reads, and the first fault ([Conversation.Stop]); the ids of the calls
// the loop runs next ([Conversation.IDs]). The integration fails the loop's
// next request once [Conversation.Stopped], and finds the held calls by
// their placeholders ([HeldAmong]). The loop's tools find it in their
// context ([ConversationOf]); a nil *Conversation is that of a call outside
// any. The zero value is ready; it is safe for concurrent use.
type Conversation struct {
	ids   CallIDs
	mu    sync.Mutex
	held  map[string]HeldCall // by placeholder
	fault error
}

type conversationKey struct{}

// NewConversation returns ctx with a new Conversation, for the loop's tools.
func NewConversation(ctx context.Context) (context.Context, *Conversation) {
	c := &Conversation{}
	return context.WithValue(ctx, conversationKey{}, c), c
}

// ConversationOf returns ctx's Conversation, nil outside one.
func ConversationOf(ctx context.Context) *Conversation {
	c, _ := ctx.Value(conversationKey{}).(*Conversation)
	return c
}

// WithoutConversation returns ctx outside its Conversation, for the handler a
// tool runs: a loop the handler starts with it is no part of ctx's.
func WithoutConversation(ctx context.Context) context.Context {
	if ConversationOf(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, conversationKey{}, (*Conversation)(nil))
}

// Stop returns what the model reads in place of the result of a call on
// args whose outcome is o, and whether it reads as a failure: a held
// call's approval_pending payload, which in c is the placeholder of its
// result (not a failure) and holds c; a fault's [FaultPayload], the first
// fault stopping c; a model-facing failure's payload. The zero Outcome
// reads nothing ("", false): the call's result stands.
func (c *Conversation) Stop(o Outcome, args string) (text string, failed bool) {
	switch {
	case o.Pending != nil:
		text = TriagePayload(o.Pending).Payload
		if c == nil {
			return text, true
		}
		h := HeldOf(o.Pending)
		h.Args = args
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.held == nil {
			c.held = map[string]HeldCall{}
		}
		c.held[text] = h
		return text, false
	case o.Err != nil:
		if c != nil {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.fault = cmp.Or(c.fault, o.Err)
		}
		return FaultPayload(o.Err), true
	}
	return o.Payload, o.Payload != ""
}

// Stopped reports whether a held call or a fault stops c.
func (c *Conversation) Stopped() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.held) > 0 || c.fault != nil
}

// Fault returns the fault that stops c, if one does.
func (c *Conversation) Fault() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fault
}

// IDs returns the ids of the calls c's loop runs next, nil for a nil c
// (whose Take finds none).
func (c *Conversation) IDs() *CallIDs {
	if c == nil {
		return nil
	}
	return &c.ids
}

// HeldAmong returns the calls held in c whose placeholders results read,
// in the results' order, each with its result's call id: of reads a
// result's call id and its text (ok false: not text alone).
func HeldAmong[R any](c *Conversation, results []R, of func(R) (callID, text string, ok bool)) []HeldCall {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []HeldCall
	for _, r := range results {
		if id, text, ok := of(r); ok {
			if h, held := c.held[text]; held {
				h.CallID = id
				out = append(out, h)
			}
		}
	}
	return out
}
