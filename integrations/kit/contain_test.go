package kit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestContain(t *testing.T) {
	errPass := errors.New("interrupt")
	pass := func(err error) bool { return errors.Is(err, errPass) }
	fault := &adapter.Error{Kind: adapter.KindConnection, Message: "gone"}
	for _, tt := range []struct {
		name    string
		call    func() (string, error)
		want    string
		payload string
		err     error
	}{
		{name: "success", call: func() (string, error) { return "ok", nil }, want: "ok"},
		{name: "failure is a payload", call: func() (string, error) { return "partial", errors.New("boom") },
			payload: `{"error":{"kind":"tool_error","message":"boom","tool":"foreign"}}`},
		{name: "panic is a payload", call: func() (string, error) { panic("bug") },
			payload: `{"error":{"kind":"tool_error","message":"the tool failed unexpectedly (it panicked)","tool":"foreign"}}`},
		{name: "pass keeps the error", call: func() (string, error) { return "o", errPass }, want: "o", err: errPass},
		{name: "fault stays an error", call: func() (string, error) { return "o", fault }, want: "o", err: fault},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o, p, err := kit.Contain(context.Background(), "foreign", "c1", pass, tt.call)
			if o != tt.want || p != tt.payload || err != tt.err {
				t.Errorf("got (%q, %s, %v), want (%q, %s, %v)", o, p, err, tt.want, tt.payload, tt.err)
			}
		})
	}
	if _, p, err := kit.Contain(context.Background(), "foreign", "c1", nil, func() (int, error) { return 0, errPass }); p == "" || err != nil {
		t.Errorf("nil pass: got (%s, %v), want a payload", p, err)
	}
}

func TestTriageHold(t *testing.T) {
	held := &adapter.Error{Kind: adapter.KindApprovalPending, Tool: "t", Ticket: "tkt_1", Message: "held"}
	if o := kit.TriageHold(held, true); o.Pending != held {
		t.Errorf("hold: %+v, want Pending", o)
	}
	if o := kit.TriageHold(held, false); o.Pending != nil || o.Payload == "" {
		t.Errorf("no hold: %+v, want a payload", o)
	}
}
