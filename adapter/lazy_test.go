package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

// TestLazyCompile: a literal spec (as an import makes) is only checked on
// registration; its schemas compile on the first call. A schema that does
// not compile — a $ref loop that would overflow the validator's stack, a
// dangling $ref, an invalid pattern, or a huge hostile one — passes Check
// and registration, then fails Compile and every call (concurrent first
// calls included, under -race) with the same bounded tool_error, before
// the handler runs; nothing panics.
func TestLazyCompile(t *testing.T) {
	huge := `{"type":"object","properties":{"p":{"type":"string","pattern":"(` + strings.Repeat("a", 100_000) + `"}}}`
	for _, tc := range []struct{ name, schema string }{
		{"ref loop", `{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`},
		{"root loop through allOf", `{"type":"object","allOf":[{"$ref":"#"}]}`},
		{"dangling ref", `{"type":"object","properties":{"p":{"$ref":"#/$defs/missing"}}}`},
		{"invalid pattern", `{"type":"object","properties":{"p":{"type":"string","pattern":"("}}}`},
		{"huge invalid pattern", huge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s jsonschema.Schema
			if err := json.Unmarshal([]byte(tc.schema), &s); err != nil {
				t.Fatal(err)
			}
			var ran atomic.Int32
			spec := &adapter.Spec{Name: "t", InputSchema: &s, Handler: func(context.Context, json.RawMessage) (*adapter.Result, error) {
				ran.Add(1)
				return adapter.TextResult("ok"), nil
			}}
			if err := spec.Check(); err != nil {
				t.Fatalf("Check: %v", err)
			}
			reg := registry.New()
			if err := reg.Register(spec); err != nil {
				t.Fatalf("Register: %v", err)
			}
			ex := adapter.NewExecutor(reg, nil)
			defer ex.Close()
			errs := make([]error, 8)
			var wg sync.WaitGroup
			for i := range errs {
				wg.Go(func() {
					if i%2 == 0 {
						_, errs[i] = ex.Call(context.Background(), "t", json.RawMessage(`{"x":{},"p":"a"}`))
					} else {
						_, errs[i] = spec.CallDirect(context.Background(), json.RawMessage(`{"x":{},"p":"a"}`))
					}
				})
			}
			wg.Wait()
			for _, err := range errs {
				var ae *adapter.Error
				if !errors.As(err, &ae) || ae.Kind != adapter.KindToolError || ae.Message != "the tool cannot be called: its schema is invalid" {
					t.Fatalf("call: %v, want the schema's tool_error", err)
				}
				if n := len(ae.Err.Error()); n > 1100 {
					t.Errorf("cause of %d bytes", n)
				}
			}
			cerr := spec.Compile()
			if cerr == nil || !strings.Contains(cerr.Error(), `tool "t": input schema`) {
				t.Fatalf("Compile: %v", cerr)
			}
			if cerr.Error() != errors.Unwrap(errs[0]).Error() {
				t.Errorf("Compile says %q, calls %q", cerr, errors.Unwrap(errs[0]))
			}
			if n := ran.Load(); n != 0 {
				t.Errorf("the handler ran %d times", n)
			}
			// NewRawTool compiles at construction.
			if _, err := adapter.NewRawTool("t", "", &s, func(context.Context, json.RawMessage) (*adapter.Result, error) { return nil, nil }, nil); err == nil {
				t.Error("NewRawTool accepted the schema")
			}
		})
	}
}

// TestLazyCompileValid: concurrent first calls of a literal spec with a
// valid schema (defaults, $ref) all validate alike, under -race.
func TestLazyCompileValid(t *testing.T) {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(`{"type":"object","$defs":{"n":{"type":"integer","minimum":0}},"properties":{"n":{"$ref":"#/$defs/n"},"unit":{"type":"string","default":"m"}},"required":["n"]}`), &s); err != nil {
		t.Fatal(err)
	}
	spec := &adapter.Spec{Name: "t", InputSchema: &s, Handler: func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		return adapter.TextResult(string(args)), nil
	}}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if i%2 == 0 {
				r, err := spec.CallDirect(context.Background(), json.RawMessage(`{"n":3}`))
				if err != nil || r.Text() != `{"n":3,"unit":"m"}` {
					t.Errorf("valid call: %v, %v", r, err)
				}
				return
			}
			if _, err := spec.CallDirect(context.Background(), json.RawMessage(`{"n":-1}`)); adapter.KindOf(err) != adapter.KindArgsInvalid {
				t.Errorf("invalid call: %v, want args_invalid", err)
			}
		})
	}
	wg.Wait()
}
