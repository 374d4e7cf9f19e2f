package kit

import "testing"

func TestHeldCallString(t *testing.T) {
	h := &HeldCall{Ticket: "tkt_1", Tool: "transfer", CallID: "call_1", Args: `{"amount":5}`, InterruptID: "i1"}
	const want = "tool transfer (call call_1) awaits approval of ticket tkt_1"
	if got := h.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
