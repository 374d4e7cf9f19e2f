package adapter_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
)

// TestStreamOutputGuard is issue 12 item 9: with an output guard, no part
// of a streamed result reaches the caller before the guard has seen the
// whole result, so a blocked result leaks nothing.
func TestStreamOutputGuard(t *testing.T) {
	closed := false
	spec := adapter.MustStreamTool("leak", "", func(_ context.Context, _ struct{}) iter.Seq2[adapter.Content, error] {
		return func(yield func(adapter.Content, error) bool) {
			for _, s := range []string{"public part. ", "the SECRET part"} {
				if !yield(&adapter.TextContent{Text: s}, nil) {
					return
				}
			}
		}
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &closed}})
	guard := adapter.Guard{Name: "no-secrets", Output: func(_ context.Context, _ *adapter.ToolCall, r *adapter.Result) error {
		if strings.Contains(r.Text(), "SECRET") {
			return errors.New("the result holds a secret")
		}
		return nil
	}}
	e, _ := newExec(t, &adapter.ExecutorOptions{Guards: []adapter.Guard{guard}}, spec)
	var got []string
	var last error
	for c, err := range e.Stream(context.Background(), &adapter.Request{Tool: "leak"}) {
		if err != nil {
			last = err
			continue
		}
		got = append(got, c.(*adapter.TextContent).Text)
	}
	if len(got) != 0 || adapter.KindOf(last) != adapter.KindGuardrailBlocked {
		t.Errorf("streamed %q then %v; want nothing, then guardrail_blocked", got, last)
	}
}
