package kit

import "testing"

func TestHeldCallString(t *testing.T) {
	h := &HeldCall{Ticket: "tkt_1", Tool: "transfer", CallID: "call_1", Args: `{"amount":5}`, InterruptID: "i1"}
	const want = "tool transfer (call call_1) awaits approval of ticket tkt_1"
	if got := h.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestHeldCalls(t *testing.T) {
	type interrupt struct {
		info any
		id   string
	}
	h := &HeldCall{Ticket: "tkt_1", Tool: "t"}
	got := HeldCalls([]interrupt{{h, "i1"}, {"other", "i2"}, {(*HeldCall)(nil), "i3"}, {nil, "i4"}, {h, "i5"}},
		func(i interrupt) (any, string) { return i.info, i.id })
	if len(got) != 2 || got[0].InterruptID != "i1" || got[1].InterruptID != "i5" || got[0].Ticket != "tkt_1" || got[0] == h {
		t.Errorf("HeldCalls = %+v; want copies of h with ids i1 and i5", got)
	}
	if h.InterruptID != "" {
		t.Errorf("HeldCalls set the original's id: %+v", h)
	}
}
