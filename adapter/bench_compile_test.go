package adapter_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
)

// BenchmarkCompile: what the first call of an imported tool (a literal
// spec) pays once to compile its schemas, for an add-like tool with input
// and output schemas as go-sdk infers them.
func BenchmarkCompile(b *testing.B) {
	var in, out jsonschema.Schema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"a":{"type":"integer","description":"first addend"},"b":{"type":"integer","description":"second addend"}},"required":["a","b"],"additionalProperties":false}`), &in); err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"],"additionalProperties":false}`), &out); err != nil {
		b.Fatal(err)
	}
	h := func(context.Context, json.RawMessage) (*adapter.Result, error) { return adapter.TextResult(""), nil }
	b.ReportAllocs()
	for b.Loop() {
		s := &adapter.Spec{Name: "add", InputSchema: &in, OutputSchema: &out, Handler: h}
		if err := s.Compile(); err != nil {
			b.Fatal(err)
		}
	}
}
