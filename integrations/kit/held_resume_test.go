package kit_test

import (
	"encoding/json"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

// FuzzDecodeResume checks the restart envelope parser on arbitrary tool
// input, which a model controls: it never panics, and it only unwraps a
// well-formed envelope with a ticket.
func FuzzDecodeResume(f *testing.F) {
	f.Add([]byte(`{"$agentadapter_resume":{"ticket":"tkt_1","ref":"r","args":{"a":1}}}`))
	f.Add([]byte(`{"$agentadapter_resume":{"ticket":"","args":{}}}`))
	f.Add([]byte(`{"$agentadapter_resume":{"ticket":"t","args":{}},"x":1}`))
	f.Add([]byte(`{"$agentadapter_resume":null}`))
	f.Add([]byte(`{"a":1}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, ok := kit.DecodeResume(in)
		if !ok {
			return
		}
		if r.Ticket == "" {
			t.Fatalf("unwrapped %s without a ticket", in)
		}
		if len(r.Args) > 0 && !json.Valid(r.Args) {
			t.Fatalf("unwrapped invalid args %q from %s", r.Args, in)
		}
	})
}

func TestDecodeResume(t *testing.T) {
	tests := []struct {
		in     string
		ok     bool
		ticket string
		args   string
	}{
		{`{"$agentadapter_resume":{"ticket":"tkt_1","ref":"r","args":{"a":1}}}`, true, "tkt_1", `{"a":1}`},
		{`{"$agentadapter_resume":{"ticket":"","args":{}}}`, false, "", ""},
		{`{"$agentadapter_resume":{"ticket":"t","args":{}},"x":1}`, false, "", ""},
		{`{"$agentadapter_resume":{"ticket":"t","args":{},"extra":1}}`, false, "", ""},
		{`{"$agentadapter_resume":null}`, false, "", ""},
		{`{"a":1}`, false, "", ""},
		{` {"$agentadapter_resume":{"ticket":"t","args":{}}}`, false, "", ""},
	}
	for _, tt := range tests {
		r, ok := kit.DecodeResume([]byte(tt.in))
		if ok != tt.ok || ok && (r.Ticket != tt.ticket || string(r.Args) != tt.args) {
			t.Errorf("DecodeResume(%s) = %+v, %v; want ticket %q args %s, %v", tt.in, r, ok, tt.ticket, tt.args, tt.ok)
		}
	}
}

// TestResumeRoundTrip: the envelope Input writes is the one DecodeResume
// unwraps.
func TestResumeRoundTrip(t *testing.T) {
	in := kit.Resume{Ticket: "tkt_1", Ref: "r", Args: json.RawMessage(`{"a":1}`)}
	b, err := json.Marshal(in.Input())
	if err != nil {
		t.Fatal(err)
	}
	r, ok := kit.DecodeResume(b)
	if !ok || r.Ticket != in.Ticket || r.Ref != in.Ref || string(r.Args) != string(in.Args) {
		t.Errorf("DecodeResume(%s) = %+v, %v; want %+v", b, r, ok, in)
	}
}

func TestHeldMetadata(t *testing.T) {
	h := kit.HeldOf(&adapter.Error{Kind: adapter.KindApprovalPending, Tool: "t", CallID: "c1", Ticket: "tkt_1", Message: "held"})
	if want := (kit.HeldCall{Tool: "t", CallID: "c1", Ticket: "tkt_1", Message: "held"}); h != want {
		t.Fatalf("HeldOf = %+v, want %+v", h, want)
	}
	m := h.Metadata()
	if m["kind"] != "approval_pending" || m["ticket"] != "tkt_1" {
		t.Errorf("Metadata = %v, want kind approval_pending and the ticket", m)
	}
	if got, ok := kit.HeldFromMetadata(m); !ok || got != (kit.HeldCall{Tool: "t", Ticket: "tkt_1", Message: "held"}) {
		t.Errorf("HeldFromMetadata(Metadata()) = %+v, %v; want %+v", got, ok, h)
	}
	for _, bad := range []map[string]any{nil, {"kind": "other", "ticket": "t"}, {"kind": "approval_pending", "ticket": ""}} {
		if got, ok := kit.HeldFromMetadata(bad); ok {
			t.Errorf("HeldFromMetadata(%v) = %+v, true; want not held", bad, got)
		}
	}
}
