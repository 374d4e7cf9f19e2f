package kit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestFailurePayload(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name    string
		ctx     context.Context
		err     error
		payload string // "" means the error stays a Go error
	}{
		{name: "plain", err: errors.New("boom"),
			payload: `{"error":{"kind":"tool_error","message":"boom","tool":"foreign"}}`},
		{name: "deadline", err: fmt.Errorf("late: %w", context.DeadlineExceeded),
			payload: `{"error":{"kind":"timeout","message":"the tool did not finish before its deadline","tool":"foreign"}}`},
		{name: "model-facing adapter error", err: &adapter.Error{Kind: adapter.KindGuardrailBlocked, Message: "no"},
			payload: `{"error":{"kind":"guardrail_blocked","message":"no","tool":"foreign"}}`},
		{name: "adapter error naming its tool", err: &adapter.Error{Kind: adapter.KindToolError, Tool: "inner", Message: "no"},
			payload: `{"error":{"kind":"tool_error","message":"no","tool":"inner"}}`},
		{name: "internal adapter error", err: &adapter.Error{Kind: adapter.KindInternal, Message: "bug"}},
		{name: "canceled", ctx: canceled, err: context.Canceled},
		{name: "nil"},
	} {
		ctx := c.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		got, ok := kit.FailurePayload(ctx, "foreign", "c9", c.err)
		if ok != (c.payload != "") || got != c.payload {
			t.Errorf("%s: FailurePayload = %q, %v; want %q, %v", c.name, got, ok, c.payload, c.payload != "")
		}
	}
	// Canceled while the ctx is live is the tool's own failure.
	if _, ok := kit.FailurePayload(context.Background(), "foreign", "c9", context.Canceled); !ok {
		t.Errorf("context.Canceled from a live ctx stayed a Go error; want a tool_error payload")
	}
}

func TestPanicPayload(t *testing.T) {
	want := `{"error":{"kind":"tool_error","message":"the tool failed unexpectedly (it panicked)","tool":"foreign"}}`
	if got := kit.PanicPayload("foreign", "c9"); got != want {
		t.Errorf("PanicPayload = %s, want %s", got, want)
	}
}
