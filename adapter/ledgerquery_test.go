package adapter_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/canonical"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// durableMemory is a MemoryLedger that asks for synchronous writes.
type durableMemory struct{ *ledger.Memory }

func (durableMemory) Durable() bool { return true }

// A DurableLedger's record is written before the call returns: no Flush.
func TestDurableLedgerWritesBeforeReturn(t *testing.T) {
	l := durableMemory{ledger.NewMemory(10)}
	e := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Ledger: l})
	defer e.Close()
	spec := adapter.MustRawTool("echo", "", &jsonschema.Schema{Type: "object"}, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		return adapter.TextResult("hi"), nil
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
	for i := range 3 {
		if _, err := e.Do(context.Background(), &adapter.Request{Spec: spec, Args: json.RawMessage(`{"token":"s3cret","b":1}`)}); err != nil {
			t.Fatal(err)
		}
		recs := l.Records()
		if len(recs) != i+1 {
			t.Fatalf("after call %d returned, %d records; want %d", i+1, len(recs), i+1)
		}
		r := recs[i]
		want, _ := canonical.Hash(json.RawMessage(`{"b":1,"token":"s3cret"}`))
		if r.ArgsHash != want || r.ResultHash != adapter.ResultHash(adapter.TextResult("hi")) {
			t.Errorf("hashes %s %s; want the unredacted arguments' and the result's", r.ArgsHash, r.ResultHash)
		}
		if string(r.Args) == `{"b":1,"token":"s3cret"}` {
			t.Errorf("arguments not redacted: %s", r.Args)
		}
	}
	if err := l.Verify(context.Background()); err != nil {
		t.Errorf("Verify: %v", err)
	}
}

func TestResultRoundTrip(t *testing.T) {
	size := int64(42)
	in := &adapter.Result{
		Content: []adapter.Content{
			&adapter.TextContent{Text: "t", Annotations: &adapter.ContentAnnotations{Audience: []string{"user"}, Priority: 0.5}},
			&adapter.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"},
			&adapter.AudioContent{Data: []byte{4}, MIMEType: "audio/wav"},
			&adapter.ResourceLink{URI: "file:///x", Name: "x", Size: &size},
			&adapter.EmbeddedResource{Resource: &adapter.ResourceContents{URI: "file:///y", Blob: []byte("b")}},
		},
		Structured: map[string]any{"n": 1.0},
		Meta:       map[string]any{"k": "v"},
	}
	b, err := adapter.MarshalResult(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := adapter.UnmarshalResult(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := adapter.MarshalResult(out)
	if string(b) != string(b2) {
		t.Errorf("round trip changed the result:\n%s\n%s", b, b2)
	}
	if _, err := adapter.UnmarshalResult([]byte(`{"content":[{"type":"video"}]}`)); err == nil {
		t.Error("an unknown content type decoded")
	}
	if _, err := adapter.UnmarshalResult([]byte(`{`)); err == nil {
		t.Error("malformed input decoded")
	}
}
