package kit_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestDataURL(t *testing.T) {
	if got, want := kit.DataURL("image/png", []byte("hi")), "data:image/png;base64,aGk="; got != want {
		t.Errorf("DataURL = %q, want %q", got, want)
	}
}

func TestOmitNull(t *testing.T) {
	for in, want := range map[string]string{"": "", " null\n": "", "{}": "{}", `{"a":null}`: `{"a":null}`} {
		if got := kit.OmitNull(json.RawMessage(in)); string(got) != want || (want == "") != (got == nil) {
			t.Errorf("OmitNull(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTextValue(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want any
	}{
		{`{"a":1}`, json.RawMessage(`{"a":1}`)},
		{" [1,2]\n", json.RawMessage(`[1,2]`)},
		{`{"a":`, `{"a":`},
		{"42", "42"},
		{"plain text", "plain text"},
		{"", ""},
	} {
		if got := kit.TextValue(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("TextValue(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestMarshal(t *testing.T) {
	b, err := kit.Marshal(map[string]string{"t": "<a & b>"})
	if err != nil || string(b) != `{"t":"<a & b>"}` {
		t.Errorf("Marshal = %s, %v; want no HTML escaping and no newline", b, err)
	}
	if _, err := kit.Marshal(func() {}); err == nil {
		t.Error("Marshal(func) succeeded")
	}
}

func TestFaultPayload(t *testing.T) {
	err := &adapter.Error{Kind: adapter.KindConnection, Tool: "t", Message: "dial tcp 10.0.0.1: refused", Err: errors.New("secret")}
	got := kit.FaultPayload(err)
	if want := `{"error":{"kind":"connection","message":"the tool is unavailable"}}`; got != want {
		t.Errorf("FaultPayload = %s, want %s", got, want)
	}
	if got := kit.FaultPayload(errors.New("plain")); got != `{"error":{"kind":"internal","message":"the tool is unavailable"}}` {
		t.Errorf("FaultPayload(plain) = %s, want kind internal", got)
	}
}
