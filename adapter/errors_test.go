package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/runsync"
)

var allKinds = []struct {
	kind        adapter.Kind
	sentinel    error
	modelFacing bool
}{
	{adapter.KindArgsInvalid, adapter.ErrArgsInvalid, true},
	{adapter.KindToolError, adapter.ErrToolError, true},
	{adapter.KindApprovalDenied, adapter.ErrApprovalDenied, true},
	{adapter.KindApprovalPending, adapter.ErrApprovalPending, true},
	{adapter.KindGuardrailBlocked, adapter.ErrGuardrailBlocked, true},
	{adapter.KindRunLimitExceeded, adapter.ErrRunLimitExceeded, true},
	{adapter.KindTimeout, adapter.ErrTimeout, true},
	{adapter.KindNotFound, adapter.ErrNotFound, true},
	{adapter.KindConnection, adapter.ErrConnection, false},
	{adapter.KindInternal, adapter.ErrInternal, false},
}

func TestKinds(t *testing.T) {
	for _, k := range allKinds {
		t.Run(string(k.kind), func(t *testing.T) {
			if got := k.kind.ModelFacing(); got != k.modelFacing {
				t.Errorf("ModelFacing() = %v, want %v", got, k.modelFacing)
			}
			err := fmt.Errorf("wrapped: %w", &adapter.Error{Kind: k.kind, Message: "m"})
			for _, other := range allKinds {
				if got, want := errors.Is(err, other.sentinel), other.kind == k.kind; got != want {
					t.Errorf("errors.Is(%s error, %v) = %v, want %v", k.kind, other.sentinel, got, want)
				}
			}
			if got := adapter.KindOf(err); got != k.kind {
				t.Errorf("KindOf = %q", got)
			}
			_, ok := adapter.ModelPayload(err)
			if ok != k.modelFacing {
				t.Errorf("ModelPayload ok = %v, want %v", ok, k.modelFacing)
			}
		})
	}
	if adapter.Kind("bogus").ModelFacing() {
		t.Error("an unknown kind must not be model-facing")
	}
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		err  error
		want adapter.Kind
	}{
		{nil, ""},
		{errors.New("x"), adapter.KindInternal},
		{context.DeadlineExceeded, adapter.KindTimeout},
		{fmt.Errorf("upstream: %w", context.DeadlineExceeded), adapter.KindTimeout},
		{context.Canceled, adapter.KindCancelled},
		{adapter.NewError(adapter.KindNotFound, "x"), adapter.KindNotFound},
	}
	for _, tt := range tests {
		if got := adapter.KindOf(tt.err); got != tt.want {
			t.Errorf("KindOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestErrorTextAndUnwrap(t *testing.T) {
	cause := errors.New("dial tcp 10.0.0.1:443: connection refused")
	tests := []struct {
		err  *adapter.Error
		want string
	}{
		{&adapter.Error{Kind: adapter.KindToolError, Tool: "w", Message: "boom"}, "tool_error (tool w): boom"},
		{&adapter.Error{Kind: adapter.KindConnection, Err: cause}, "connection: " + cause.Error()},
		{&adapter.Error{Kind: adapter.KindConnection, Message: "server down", Err: cause}, "connection: server down"},
		{&adapter.Error{Kind: adapter.KindTimeout}, "timeout"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	e := &adapter.Error{Kind: adapter.KindConnection, Err: cause}
	if !errors.Is(e, cause) || errors.Unwrap(e) != cause {
		t.Error("Unwrap does not reach the cause")
	}
	var target *adapter.Error
	if !errors.As(fmt.Errorf("ctx: %w", e), &target) || target != e {
		t.Error("errors.As does not find the *Error")
	}
	if adapter.ErrTimeout.Error() != "adapter: timeout" {
		t.Errorf("sentinel text %q", adapter.ErrTimeout.Error())
	}
}

// TestModelPayload renders every kind of error; the exact bytes are a
// golden (testdata/payload.golden), so any change to the model-visible shape shows.
func TestModelPayload(t *testing.T) {
	panicCause := &runsync.PanicError{Value: "index out of range [3] with length 2", Stack: []byte("goroutine 7 [running]:\nmain.handler()\n\t/src/main.go:12 +0x1d")}
	tests := []struct {
		name string
		err  error
	}{
		{"args_invalid", &adapter.Error{Kind: adapter.KindArgsInvalid, Tool: "weather", CallID: "call_1", Message: `arguments do not match the input schema: at $.city: type: 1 has type "integer", want "string"`}},
		{"tool_error_panic", &adapter.Error{Kind: adapter.KindToolError, Tool: "weather", Message: "the tool failed unexpectedly (it panicked)", Err: panicCause}},
		{"tool_error_wrapped", fmt.Errorf("executor: %w", &adapter.Error{Kind: adapter.KindToolError, Tool: "weather", Message: "upstream said <503> & gave up"})},
		{"approval_denied", &adapter.Error{Kind: adapter.KindApprovalDenied, Tool: "rm", Message: "the call was denied: not on Fridays"}},
		{"approval_pending", &adapter.Error{Kind: adapter.KindApprovalPending, Tool: "rm", Ticket: "tkt_42", Message: "the call is waiting for approval (ticket tkt_42)"}},
		{"guardrail_blocked", &adapter.Error{Kind: adapter.KindGuardrailBlocked, Guard: "pii", Message: "blocked by guard pii: an email address"}},
		{"run_limit_exceeded", &adapter.Error{Kind: adapter.KindRunLimitExceeded, Err: errors.New("run r1: 11 > 10")}},
		{"timeout", &adapter.Error{Kind: adapter.KindTimeout, Tool: "slow", Message: "the tool did not finish within 5s", Err: context.DeadlineExceeded}},
		{"not_found", &adapter.Error{Kind: adapter.KindNotFound, Tool: "nope", Message: `no tool named "nope"`}},
		{"tool_error_unicode", &adapter.Error{Kind: adapter.KindToolError, Message: "température inconnue — \u2028 \"quoted\"\n"}},
	}
	var lines strings.Builder
	for _, tt := range tests {
		p, ok := adapter.ModelPayload(tt.err)
		if !ok {
			t.Errorf("%s: ModelPayload not ok", tt.name)
			continue
		}
		for _, leak := range []string{"goroutine", ".go:", "0x", "runsync", "PanicError", "index out of range", "11 > 10", "deadline exceeded", "executor:"} {
			if strings.Contains(p, leak) {
				t.Errorf("%s: payload %s leaks %q", tt.name, p, leak)
			}
		}
		var decoded struct {
			Error map[string]string `json:"error"`
		}
		if err := json.Unmarshal([]byte(p), &decoded); err != nil {
			t.Fatalf("%s: payload is not JSON: %v", tt.name, err)
		}
		if decoded.Error["kind"] != tt.name && !strings.HasPrefix(tt.name, decoded.Error["kind"]) {
			t.Errorf("%s: kind %q", tt.name, decoded.Error["kind"])
		}
		if decoded.Error["message"] == "" {
			t.Errorf("%s: empty message", tt.name)
		}
		// Stable: rendering twice gives the same bytes.
		if again, _ := adapter.ModelPayload(tt.err); again != p {
			t.Errorf("%s: unstable payload %s vs %s", tt.name, p, again)
		}
		fmt.Fprintf(&lines, "%s\t%s\n", tt.name, p)
	}
	// Exact text of two payloads, beyond the golden's normalisation.
	if p, _ := adapter.ModelPayload(tests[0].err); p != `{"error":{"kind":"args_invalid","message":"arguments do not match the input schema: at $.city: type: 1 has type \"integer\", want \"string\"","tool":"weather"}}` {
		t.Errorf("args_invalid payload = %s", p)
	}
	if p, _ := adapter.ModelPayload(tests[2].err); p != `{"error":{"kind":"tool_error","message":"upstream said <503> & gave up","tool":"weather"}}` {
		t.Errorf("tool_error payload = %s", p)
	}
	goldenText(t, "payload.golden", lines.String())
}

func TestModelPayloadNotModelFacing(t *testing.T) {
	for _, err := range []error{
		nil,
		errors.New("plain"),
		context.Canceled,
		&adapter.Error{Kind: adapter.KindConnection, Message: "dial failed"},
		&adapter.Error{Kind: adapter.KindInternal, Message: "a hook panicked", Err: &runsync.PanicError{Value: 1}},
		fmt.Errorf("wrapped: %w", &adapter.Error{Kind: adapter.KindConnection}),
	} {
		if p, ok := adapter.ModelPayload(err); ok || p != "" {
			t.Errorf("ModelPayload(%v) = %q, %v; want \"\", false", err, p, ok)
		}
	}
}

func TestModelPayloadDefaultMessages(t *testing.T) {
	got := map[adapter.Kind]string{}
	for _, k := range allKinds {
		if !k.modelFacing {
			continue
		}
		p, ok := adapter.ModelPayload(&adapter.Error{Kind: k.kind})
		if !ok {
			t.Fatalf("%s: not ok", k.kind)
		}
		var d adapter.Payload
		if err := json.Unmarshal([]byte(p), &d); err != nil {
			t.Fatal(err)
		}
		got[k.kind] = d.Error.Message
	}
	want := map[adapter.Kind]string{
		adapter.KindArgsInvalid:      "the arguments do not match the tool's input schema",
		adapter.KindToolError:        "the tool failed",
		adapter.KindApprovalDenied:   "the call was not approved",
		adapter.KindApprovalPending:  "the call is waiting for approval",
		adapter.KindGuardrailBlocked: "the call was blocked by a guardrail",
		adapter.KindRunLimitExceeded: "the run's tool call limit is reached",
		adapter.KindTimeout:          "the tool did not answer in time",
		adapter.KindNotFound:         "no such tool",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("default messages (-want +got):\n%s", diff)
	}
}
