package adapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

type fuzzIn struct {
	Name  string            `json:"name"`
	Count int               `json:"count,omitempty"`
	Tags  []string          `json:"tags,omitempty"`
	Meta  map[string]string `json:"meta,omitempty"`
	Inner *struct {
		On bool `json:"on"`
	} `json:"inner,omitempty"`
}

// FuzzExecutorArgs sends raw argument bytes through the whole pipeline
// (hooks, approval, cache, ledger with redaction) of a typed tool and a raw
// tool with defaults: it must never panic, and must always return either a
// result or an *adapter.Error with a known kind, never both.
func FuzzExecutorArgs(f *testing.F) {
	for _, s := range []string{
		`{"name":"a"}`, `{"name":"a","count":3,"tags":["x"],"meta":{"password":"p"},"inner":{"on":true}}`,
		`{}`, ``, `null`, `[]`, `"str"`, `1`, `{"name":1}`, `{"name":"a",}`, `{"x":1,"s":"d"}`,
		`{"name":"\ud800"}`, `{"name":"a"} trailing`, "\xff\xfe", `{"a":{"b":{"c":{"d":[[[[]]]]}}}}`,
		`{"count":1e400}`, `{"count":-0}`, `{"name":"a","name":"b"}`,
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
	}
	typed := adapter.MustTool("typed", "", func(_ context.Context, in fuzzIn) (map[string]any, error) {
		return map[string]any{"name": in.Name, "n": in.Count}, nil
	}, &adapter.ToolOptions{Annotations: readOnly})
	raw := adapter.MustRawTool("raw", "", &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"x": {Type: "integer", Default: json.RawMessage(`0`)},
			"s": {Type: "string", Default: json.RawMessage(`"d"`), MaxLength: jsonschema.Ptr(20)},
		},
		AdditionalProperties: &jsonschema.Schema{Type: "string"},
	}, echo, &adapter.ToolOptions{Annotations: readOnly})
	ml := ledger.NewMemory(16)
	e := adapter.NewExecutor(catalog{typed, raw}, &adapter.ExecutorOptions{
		Ledger: ml, Logger: discard, MaxArgBytes: 4096,
		Cache: &adapter.CacheOptions{Tools: map[string]time.Duration{"typed": 0, "raw": 0}},
		Hooks: []adapter.Hook{hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
			return next(ctx, c)
		})},
		Approval: adapter.ApprovalOptions{Policy: adapter.ApproveAlways, Port: approval.Func(func(context.Context, *approval.Request) (approval.Decision, error) {
			return approval.Decision{Verdict: approval.VerdictApproved}, nil
		})},
	})
	f.Cleanup(func() { e.Close() })
	known := map[adapter.Kind]bool{}
	for _, k := range []adapter.Kind{adapter.KindArgsInvalid, adapter.KindToolError, adapter.KindApprovalDenied, adapter.KindApprovalPending,
		adapter.KindGuardrailBlocked, adapter.KindRunLimitExceeded, adapter.KindTimeout, adapter.KindNotFound, adapter.KindConnection, adapter.KindInternal} {
		known[k] = true
	}
	f.Fuzz(func(t *testing.T, args []byte, which uint8) {
		tool := "typed"
		if which%2 == 1 {
			tool = "raw"
		}
		res, err := e.Call(context.Background(), tool, args)
		if err != nil {
			var ae *adapter.Error
			if !errors.As(err, &ae) {
				t.Fatalf("%q: error %v (%T) is not an *adapter.Error", args, err, err)
			}
			if !known[ae.Kind] || res != nil {
				t.Fatalf("%q: kind %q, result %v", args, ae.Kind, res)
			}
			if ae.Kind != adapter.KindArgsInvalid {
				t.Fatalf("%q: only args_invalid is expected from bad arguments, got %v", args, err)
			}
			return
		}
		if res == nil {
			t.Fatalf("%q: no result and no error", args)
		}
		if !json.Valid(args) && len(bytes.TrimSpace(args)) > 0 { // empty means {}
			t.Fatalf("%q: invalid JSON accepted", args)
		}
	})
}
