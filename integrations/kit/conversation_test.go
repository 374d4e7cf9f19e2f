package kit_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

// result is a framework's tool result, for HeldAmong: its call id and text.
type result struct{ id, text string }

func ofResult(r result) (string, string, bool) { return r.id, r.text, r.text != "" }

// TestConversationStop: what a call's outcome reads, in a conversation and
// outside one, and what it records there.
func TestConversationStop(t *testing.T) {
	pending := &adapter.Error{Kind: adapter.KindApprovalPending, Tool: "delete", Ticket: "tkt_1", Message: "held"}
	fault := &adapter.Error{Kind: adapter.KindConnection, Tool: "up", Message: "gone"}
	denied := &adapter.Error{Kind: adapter.KindApprovalDenied, Tool: "delete", Message: "no"}
	pendingText, _ := adapter.ModelPayload(pending)
	deniedText, _ := adapter.ModelPayload(denied)
	for _, tt := range []struct {
		name       string
		o          kit.Outcome
		text       string
		failed     bool // in a conversation
		stops      bool
		outsideErr bool // outside one: whether it reads as a failure
	}{
		{"result", kit.Outcome{}, "", false, false, false},
		{"payload", kit.Outcome{Payload: deniedText}, deniedText, true, false, true},
		{"held", kit.Outcome{Pending: pending}, pendingText, false, true, true},
		{"fault", kit.Outcome{Err: fault}, kit.FaultPayload(fault), true, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c kit.Conversation
			if text, failed := c.Stop(tt.o, `{"path":"/a"}`); text != tt.text || failed != tt.failed {
				t.Errorf("Stop = %q, %v; want %q, %v", text, failed, tt.text, tt.failed)
			}
			if c.Stopped() != tt.stops {
				t.Errorf("Stopped = %v, want %v", c.Stopped(), tt.stops)
			}
			if text, failed := (*kit.Conversation)(nil).Stop(tt.o, `{}`); text != tt.text || failed != tt.outsideErr {
				t.Errorf("outside a conversation, Stop = %q, %v; want %q, %v", text, failed, tt.text, tt.outsideErr)
			}
		})
	}
}

// TestConversationHeld: held calls are found by their placeholders, in the
// results' order, with the results' call ids and the arguments held; the
// first fault is the one kept; a nil conversation holds nothing.
func TestConversationHeld(t *testing.T) {
	var c kit.Conversation
	held := func(ticket string) kit.Outcome {
		return kit.Outcome{Pending: &adapter.Error{Kind: adapter.KindApprovalPending, Tool: "delete", Ticket: ticket}}
	}
	p1, _ := c.Stop(held("tkt_1"), `{"path":"/a"}`)
	p2, _ := c.Stop(held("tkt_2"), `{"path":"/b"}`)
	first := errors.New("first")
	c.Stop(kit.Outcome{Err: first}, `{}`)
	c.Stop(kit.Outcome{Err: errors.New("second")}, `{}`)
	if c.Fault() != first {
		t.Errorf("Fault = %v, want the first", c.Fault())
	}
	got := kit.HeldAmong(&c, []result{{"toolu_2", p2}, {"toolu_x", "n=1"}, {"toolu_y", ""}, {"toolu_1", p1}}, ofResult)
	want := []kit.HeldCall{
		{Tool: "delete", Ticket: "tkt_2", CallID: "toolu_2", Args: `{"path":"/b"}`},
		{Tool: "delete", Ticket: "tkt_1", CallID: "toolu_1", Args: `{"path":"/a"}`},
	}
	if !slices.Equal(got, want) {
		t.Errorf("HeldAmong = %+v\nwant %+v", got, want)
	}
	var none *kit.Conversation
	if none.Stopped() || none.Fault() != nil || kit.HeldAmong(none, []result{{"toolu_1", p1}}, ofResult) != nil || none.IDs().Take("delete", nil) != "" {
		t.Error("a nil conversation holds something")
	}
}

// TestConversationContext: the loop's tools find their conversation in
// their context; a handler's context is outside it.
func TestConversationContext(t *testing.T) {
	bg := context.Background()
	if kit.ConversationOf(bg) != nil || kit.WithoutConversation(bg) != bg {
		t.Error("a bare context has a conversation")
	}
	ctx, c := kit.NewConversation(bg)
	if kit.ConversationOf(ctx) != c || c == nil {
		t.Fatal("the tools do not find their conversation")
	}
	if kit.ConversationOf(kit.WithoutConversation(ctx)) != nil {
		t.Error("a handler's context is still in the conversation")
	}
	c.IDs().Add("echo", []byte(`{}`), "toolu_1")
	if id := kit.ConversationOf(ctx).IDs().Take("echo", []byte(`{}`)); id != "toolu_1" {
		t.Errorf("the conversation's call id is %q, want toolu_1", id)
	}
}

// TestConversationParallel: parallel calls of one turn hold and fail the
// conversation together.
func TestConversationParallel(t *testing.T) {
	var c kit.Conversation
	var wg sync.WaitGroup
	texts := make([]string, 16)
	for i := range texts {
		wg.Go(func() {
			o := kit.Outcome{Pending: &adapter.Error{Kind: adapter.KindApprovalPending, Tool: "t", Ticket: string(rune('a' + i))}}
			if i%4 == 0 {
				o = kit.Outcome{Err: errors.New("fault")}
			}
			texts[i], _ = c.Stop(o, "{}")
			c.Stopped()
		})
	}
	wg.Wait()
	var rs []result
	for _, text := range texts {
		rs = append(rs, result{"id", text})
	}
	if n := len(kit.HeldAmong(&c, rs, ofResult)); n != 12 || c.Fault() == nil {
		t.Errorf("%d held calls and fault %v, want 12 and a fault", n, c.Fault())
	}
}
