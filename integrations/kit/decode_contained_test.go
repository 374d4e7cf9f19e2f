package kit

import "testing"

type panicky struct{}

func (*panicky) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		panic("a null")
	}
	return nil
}

func TestUnmarshalContained(t *testing.T) {
	dec := UnmarshalContained[panicky]("the decoder")
	var v panicky
	if err := dec([]byte(`{}`), &v); err != nil {
		t.Errorf("decode({}) = %v", err)
	}
	if err := dec([]byte(`null`), &v); err == nil || err.Error() != "the decoder failed: a null" {
		t.Errorf("decode(null) = %v; want the panic as an error", err)
	}
	if err := dec([]byte(`{`), &v); err == nil {
		t.Error("decode({) succeeded")
	}
}
