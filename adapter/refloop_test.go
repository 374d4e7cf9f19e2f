package adapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// TestRefLoopRejected: schemas whose $refs loop without consuming input
// would overflow the validator's stack (a crash no recover can catch); they
// are refused at construction. Recursion through properties or items is a
// legitimate recursive type and is accepted.
func TestRefLoopRejected(t *testing.T) {
	noop := func(context.Context, json.RawMessage) (*adapter.Result, error) { return adapter.TextResult("ok"), nil }
	for _, tc := range []struct {
		name, schema string
		loop         bool
	}{
		{"two refs", `{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, true},
		{"self ref", `{"type":"object","$defs":{"a":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, true},
		{"root through allOf", `{"type":"object","allOf":[{"$ref":"#"}]}`, true},
		{"through anyOf and not", `{"type":"object","$defs":{"a":{"anyOf":[{"not":{"$ref":"#/$defs/a"}}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, true},
		{"recursive tree via properties", `{"type":"object","$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"properties":{"root":{"$ref":"#/$defs/node"}}}`, false},
		{"root via properties", `{"type":"object","properties":{"next":{"$ref":"#"}}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s jsonschema.Schema
			if err := json.Unmarshal([]byte(tc.schema), &s); err != nil {
				t.Fatal(err)
			}
			spec, err := adapter.NewRawTool("t", "", &s, noop, nil)
			if tc.loop {
				if err == nil || !strings.Contains(err.Error(), "$ref loop") {
					t.Fatalf("NewRawTool: got %v, want a $ref loop error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewRawTool: %v", err)
			}
			if _, err := spec.CallDirect(context.Background(), json.RawMessage(`{}`)); err != nil {
				t.Fatalf("Call: %v", err)
			}
		})
	}
}

// TestNullViolationMessage: a null where a string is wanted is named as
// null, not as a Go reflection artefact.
func TestNullViolationMessage(t *testing.T) {
	type in struct {
		City string `json:"city"`
	}
	spec := adapter.MustTool("w", "", func(_ context.Context, _ in) (string, error) { return "", nil }, nil)
	_, err := spec.CallDirect(context.Background(), json.RawMessage(`{"city":null}`))
	if err == nil || strings.Contains(err.Error(), "reflect") || !strings.Contains(err.Error(), "null") {
		t.Fatalf("got %v, want a message naming null", err)
	}
}

// TestLedgerKeepsUnparsableArgs: a call whose arguments are not JSON is
// still recorded, with the arguments as a string.
func TestLedgerKeepsUnparsableArgs(t *testing.T) {
	l := ledger.NewMemory(0)
	spec := adapter.MustTool("w", "", func(_ context.Context, _ struct{}) (string, error) { return "", nil }, nil)
	e := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Ledger: ledger.NewJSONL(&strings.Builder{})})
	e2 := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Ledger: l})
	for _, ex := range []*adapter.Executor{e, e2} {
		if _, err := ex.Do(context.Background(), &adapter.Request{Spec: spec, Args: json.RawMessage(`{"a":`)}); adapter.KindOf(err) != adapter.KindArgsInvalid {
			t.Fatalf("got %v, want args_invalid", err)
		}
		if err := ex.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if st := ex.LedgerStats(); st.Written != 1 || st.Failed != 0 {
			t.Fatalf("ledger stats %+v, want one record written", st)
		}
		ex.Close()
	}
	// Recorded by size and hash, never as text (it may hold a secret).
	if got := string(l.Records()[0].Args); got != `{"unparsable":{"bytes":5,"sha256":"ffb38b22ee3e0ca90325ebce953a9846990f292faf44c50498771602e31cb61f"}}` {
		t.Fatalf("recorded args %s", got)
	}
}
