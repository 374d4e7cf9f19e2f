package kit

import (
	"bytes"
	"encoding/json"

	"github.com/agentadapter/agentadapter/adapter"
)

// HeldOf returns the held call of an approval_pending error ([Outcome]'s
// Pending): its tool, call id, ticket and the executor's explanation.
func HeldOf(e *adapter.Error) HeldCall {
	return HeldCall{Tool: e.Tool, CallID: e.CallID, Ticket: e.Ticket, Message: e.Message}
}

// Metadata returns h as interrupt metadata, for a framework whose
// interrupts carry a map:
//
//	{"kind":"approval_pending","ticket":"tkt_...","tool":"...","message":"..."}
func (h *HeldCall) Metadata() map[string]any {
	return map[string]any{
		"kind":    string(adapter.KindApprovalPending),
		"ticket":  h.Ticket,
		"tool":    h.Tool,
		"message": h.Message,
	}
}

// HeldFromMetadata reads what [HeldCall.Metadata] wrote (its ticket, tool
// and message); ok is false for metadata of another interrupt or without a
// ticket.
func HeldFromMetadata(meta map[string]any) (h HeldCall, ok bool) {
	if meta["kind"] != string(adapter.KindApprovalPending) {
		return HeldCall{}, false
	}
	h.Ticket, _ = meta["ticket"].(string)
	h.Tool, _ = meta["tool"].(string)
	h.Message, _ = meta["message"].(string)
	return h, h.Ticket != ""
}

// ResumeKey is the one key of the envelope in which a restarted call
// carries its ticket, for a framework whose only value handed to a tool
// on restart is its input:
//
//	{"$agentadapter_resume":{"ticket":"tkt_...","ref":"...","args":{...}}}
//
// A model that forged it would gain nothing: a ticket only admits the
// arguments it was issued for.
const ResumeKey = "$agentadapter_resume"

var resumePrefix = []byte(`{"` + ResumeKey + `":`)

// Resume is a restarted call: the ticket it presents, the framework's
// reference of the call, the arguments.
type Resume struct {
	Ticket string          `json:"ticket"`
	Ref    string          `json:"ref,omitempty"`
	Args   json.RawMessage `json:"args"`
}

// Input returns r in its envelope, as the restarted call's input.
func (r Resume) Input() map[string]any { return map[string]any{ResumeKey: r} }

// DecodeResume unwraps a restarted call's input. ok is false for any other
// input: one that does not start with the envelope, has other fields, or
// has no ticket.
func DecodeResume(input json.RawMessage) (r *Resume, ok bool) {
	if !bytes.HasPrefix(input, resumePrefix) {
		return nil, false
	}
	var env struct {
		R *Resume `json:"$agentadapter_resume"`
	}
	d := json.NewDecoder(bytes.NewReader(input))
	d.DisallowUnknownFields()
	if d.Decode(&env) != nil || env.R == nil || env.R.Ticket == "" {
		return nil, false
	}
	return env.R, true
}
