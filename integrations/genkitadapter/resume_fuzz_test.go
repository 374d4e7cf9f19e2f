package genkitadapter

import (
	"encoding/json"
	"testing"
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
		r, ok := decodeResume(in)
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
		r, ok := decodeResume([]byte(tt.in))
		if ok != tt.ok || ok && (r.Ticket != tt.ticket || string(r.Args) != tt.args) {
			t.Errorf("decodeResume(%s) = %+v, %v; want ticket %q args %s, %v", tt.in, r, ok, tt.ticket, tt.args, tt.ok)
		}
	}
}
