package adapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/canonical"
)

// TestDuplicateKeysRejected is issue 12 item 3: an object that repeats a
// key validates as one value and may be read as another, so it is refused,
// naming the key, before anything else sees it.
func TestDuplicateKeysRejected(t *testing.T) {
	var ran bool
	spec := rawTool("rm", func(context.Context, json.RawMessage) (*adapter.Result, error) {
		ran = true
		return adapter.TextResult("done"), nil
	}, nil)
	e, ml := newExec(t, nil, spec)
	for _, tt := range []struct{ args, key string }{
		{`{"x":1,"s":"/etc/passwd","s":"/tmp/a"}`, `"s"`},
		{`{"x":1,"s":"/tmp/a","\u0073":"/etc/passwd"}`, `"s"`},
		{`{"x":1,"nested":{"k":1,"k":2}}`, `"k" in the object at $.nested`},
	} {
		_, err := e.Call(context.Background(), "rm", json.RawMessage(tt.args))
		ae := asAdapterError(t, err)
		if ae.Kind != adapter.KindArgsInvalid || !strings.Contains(ae.Message, "duplicate key "+tt.key) {
			t.Errorf("%s: %v, want args_invalid naming duplicate key %s", tt.args, err, tt.key)
		}
	}
	if ran {
		t.Error("the handler ran with duplicate keys")
	}
	for _, r := range records(t, e, ml) {
		if r.Outcome != string(adapter.KindArgsInvalid) {
			t.Errorf("record outcome %s", r.Outcome)
		}
	}
}

// TestOneArgumentValue: the bytes the handler gets are the bytes hashed for
// approval, recorded in the ledger and shown on the ticket: one canonical
// value, whatever the spelling (white space, key order, escapes).
func TestOneArgumentValue(t *testing.T) {
	var got json.RawMessage
	spec := rawTool("rm", func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		got = append(json.RawMessage(nil), args...)
		return adapter.TextResult("done"), nil
	}, &adapter.ToolOptions{})
	var asked *approval.Request
	port := approval.Func(func(_ context.Context, r *approval.Request) (approval.Decision, error) {
		asked = r
		return approval.Decision{Verdict: approval.VerdictApproved}, nil
	})
	e, ml := newExec(t, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: port}, Redact: func(_ string, a json.RawMessage) json.RawMessage { return a }}, spec)
	in := `{ "\u0073" : "caf\u00e9 <b>", "x" : 10 }`
	if _, err := e.Call(context.Background(), "rm", json.RawMessage(in)); err != nil {
		t.Fatal(err)
	}
	want, err := canonical.JSON(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("handler got %s, want the canonical value %s", got, want)
	}
	hash, _ := canonical.Hash(got)
	if asked == nil || asked.ArgsHash != hash || string(asked.Args) != string(got) {
		t.Errorf("approval saw %+v, want the handler's bytes and their hash", asked)
	}
	recs := records(t, e, ml)
	if len(recs) != 1 || string(recs[0].Args) != string(got) {
		t.Errorf("ledger args %s, want %s", recs[0].Args, got)
	}
}

// FuzzArgsOneValue: whatever bytes arrive, a call either fails with
// args_invalid in a bounded message, or its handler gets exactly the
// canonical form of the arguments, which decodes to the value that was
// validated, and the input repeated no key.
func FuzzArgsOneValue(f *testing.F) {
	for _, s := range []string{
		`{"x":1}`, `{ "x" : 1 , "s" : "a" }`, `{"x":1,"x":2}`, `{"x":1,"\u0078":2}`, `{"x":1,"s":"\u00e9<>&"}`,
		`{"x":1,"nested":{"a":[1,{"b":2,"b":3}]}}`, `{"x":1e2}`, `{"x":-0}`, `{"x":1,"s":"\ud800"}`, "{\"x\":1,\"s\":\"\xff\"}",
		`{"x":1}{}`, `[1]`, `{"x":1,"s":"` + strings.Repeat("k", 2000) + `"}`,
	} {
		f.Add([]byte(s))
	}
	var got json.RawMessage
	spec := adapter.MustRawTool("t", "", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"x": {Type: "number"}}, Required: []string{"x"}},
		func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
			got = append(got[:0], args...)
			return adapter.TextResult("ok"), nil
		}, &adapter.ToolOptions{Annotations: readOnly})
	e := adapter.NewExecutor(catalog{spec}, &adapter.ExecutorOptions{Logger: discard})
	f.Cleanup(func() { e.Close() })
	f.Fuzz(func(t *testing.T, in []byte) {
		got = got[:0]
		_, err := e.Call(context.Background(), "t", in)
		if err != nil {
			ae := asAdapterError(t, err)
			if ae.Kind != adapter.KindArgsInvalid || len(ae.Message) > 1100 {
				t.Fatalf("%q: %v (message %d bytes), want a bounded args_invalid", in, ae.Kind, len(ae.Message))
			}
			return
		}
		canon, cerr := canonical.JSON(in)
		if cerr != nil || string(got) != string(canon) {
			t.Fatalf("%q: handler got %q, canonical form %q (%v)", in, got, canon, cerr)
		}
		var validated, handed any
		if len(bytes.TrimSpace(in)) > 0 {
			if err := json.Unmarshal(in, &validated); err != nil {
				t.Fatalf("%q accepted but does not decode: %v", in, err)
			}
		} else {
			validated = map[string]any{}
		}
		if err := json.Unmarshal(got, &handed); err != nil || !reflect.DeepEqual(validated, handed) {
			t.Fatalf("%q: the handler's value %v differs from the validated one %v", in, handed, validated)
		}
		if dup := repeatsKey(in); dup {
			t.Fatalf("%q repeats a key but was accepted", in)
		}
	})
}

// repeatsKey reports whether a JSON text repeats a key in some object,
// decoding it token by token (an independent reading from the adapter's).
func repeatsKey(in []byte) bool {
	d := json.NewDecoder(bytes.NewReader(in))
	type frame struct {
		obj  bool
		keys map[string]bool
		key  bool // the next string token is a key
	}
	var stack []*frame
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		isKey := top != nil && top.obj && top.key
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, keys: map[string]bool{}, key: true})
			if top != nil && top.obj {
				top.key = true
			}
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			if top != nil && top.obj {
				top.key = true
			}
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return false
			}
			continue
		}
		if isKey {
			k := tok.(string)
			if top.keys[k] {
				return true
			}
			top.keys[k] = true
			top.key = false
		} else if top != nil && top.obj {
			top.key = true
		}
	}
}

// TestErrorMessagesBounded is issue 12 item 10: 100,000 unknown keys (or
// one huge one) give a short message naming a few keys and the count, to
// the model and to the ledger alike.
func TestErrorMessagesBounded(t *testing.T) {
	f := false
	spec := adapter.MustRawTool("strict", "", &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}, Properties: map[string]*jsonschema.Schema{"a": {Type: "string"}}},
		echo, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &f}})
	e, ml := newExec(t, &adapter.ExecutorOptions{MaxArgBytes: 4 << 20}, spec)
	var b strings.Builder
	b.WriteString(`{"a":"x"`)
	for i := range 100_000 {
		fmt.Fprintf(&b, `,"k%d":1`, i)
	}
	b.WriteString("}")
	huge := `{"` + strings.Repeat("é", 200_000) + `":1}`
	for name, args := range map[string]string{"many keys": b.String(), "huge key": huge} {
		_, err := e.Do(context.Background(), &adapter.Request{Tool: "strict", Args: json.RawMessage(args), CallID: name})
		ae := asAdapterError(t, err)
		if ae.Kind != adapter.KindArgsInvalid || len(ae.Message) > adapter.MaxMessageBytes || !utf8.ValidString(ae.Message) {
			t.Errorf("%s: %v: %d-byte message, want args_invalid within %d bytes", name, ae.Kind, len(ae.Message), adapter.MaxMessageBytes)
		}
		if p, _ := adapter.ModelPayload(err); len(p) > adapter.MaxMessageBytes+200 {
			t.Errorf("%s: payload of %d bytes", name, len(p))
		}
		if name == "many keys" && !strings.Contains(ae.Message, "and 99997 more") {
			t.Errorf("%s: message %q does not give the count of the keys left out", name, ae.Message)
		}
	}
	for _, r := range records(t, e, ml) {
		if len(r.Message) > adapter.MaxMessageBytes {
			t.Errorf("%s: ledger message of %d bytes", r.CallID, len(r.Message))
		}
	}
}
