package kit

import "fmt"

// HeldCall is a call held for approval, as the info of a framework's
// interrupt: approve Ticket (approval.Deferred.Approve) and resume the run;
// the resumed call runs exactly the approved arguments.
type HeldCall struct {
	Ticket string
	Tool   string
	CallID string
	// Args are the arguments held, as the model sent them.
	Args string
	// Message is the executor's explanation of the hold.
	Message string
	// InterruptID is the framework's id of the interrupt to resume.
	InterruptID string
}

// String describes the held call.
func (h *HeldCall) String() string {
	return fmt.Sprintf("tool %s (call %s) awaits approval of ticket %s", h.Tool, h.CallID, h.Ticket)
}

// HeldCalls returns copies of the held calls among a framework's
// interrupts, in order, each with its interrupt id; of returns an
// interrupt's info and id.
func HeldCalls[I any](interrupts []I, of func(I) (info any, id string)) []*HeldCall {
	var out []*HeldCall
	for _, i := range interrupts {
		info, id := of(i)
		if h, ok := info.(*HeldCall); ok && h != nil {
			c := *h
			c.InterruptID = id
			out = append(out, &c)
		}
	}
	return out
}
