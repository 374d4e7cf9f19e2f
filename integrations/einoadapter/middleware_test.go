package einoadapter_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
)

// TestMiddlewarePolicy drives each endpoint kind of the middleware with
// the errors a foreign tool may return.
func TestMiddlewarePolicy(t *testing.T) {
	mw := einoadapter.Middleware()
	in := &compose.ToolInput{Name: "foreign", CallID: "c9", Arguments: "{}"}
	interrupt := func(ctx context.Context) error { return tool.Interrupt(ctx, "wait") }
	cases := []struct {
		name    string
		err     func(ctx context.Context) error
		panics  bool
		cancel  bool
		payload string // "" means the error passes through
	}{
		{name: "plain", err: func(context.Context) error { return errors.New("boom") },
			payload: `{"error":{"kind":"tool_error","message":"boom","tool":"foreign"}}`},
		{name: "deadline", err: func(context.Context) error { return fmt.Errorf("late: %w", context.DeadlineExceeded) },
			payload: `{"error":{"kind":"timeout","message":"the tool did not finish before its deadline","tool":"foreign"}}`},
		{name: "model-facing adapter error", err: func(context.Context) error { return &adapter.Error{Kind: adapter.KindGuardrailBlocked, Message: "no"} },
			payload: `{"error":{"kind":"guardrail_blocked","message":"no","tool":"foreign"}}`},
		{name: "panic", panics: true,
			payload: `{"error":{"kind":"tool_error","message":"the tool failed unexpectedly (it panicked)","tool":"foreign"}}`},
		{name: "internal adapter error", err: func(context.Context) error { return &adapter.Error{Kind: adapter.KindInternal, Message: "bug"} }},
		{name: "canceled", cancel: true, err: func(ctx context.Context) error { return ctx.Err() }},
		{name: "interrupt", err: interrupt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.cancel {
				cancel()
			}
			fail := func(ctx context.Context) error {
				if c.panics {
					panic("kaboom")
				}
				return c.err(ctx)
			}
			check := func(kind string, got string, err error) {
				t.Helper()
				if c.payload == "" {
					if err == nil {
						t.Errorf("%s: error became the result %q; want it passed through", kind, got)
					}
					return
				}
				if err != nil || got != c.payload {
					t.Errorf("%s: got %q, %v; want %s", kind, got, err, c.payload)
				}
			}
			out, err := mw.Invokable(func(ctx context.Context, _ *compose.ToolInput) (*compose.ToolOutput, error) {
				return nil, fail(ctx)
			})(ctx, in)
			check("invokable", resultOf(out), err)

			sout, err := mw.Streamable(func(ctx context.Context, _ *compose.ToolInput) (*compose.StreamToolOutput, error) {
				return nil, fail(ctx)
			})(ctx, in)
			var s string
			if sout != nil {
				chunks, _ := drain(sout.Result)
				s = strings.Join(chunks, "")
			}
			check("streamable", s, err)

			eout, err := mw.EnhancedInvokable(func(ctx context.Context, _ *compose.ToolInput) (*compose.EnhancedInvokableToolOutput, error) {
				return nil, fail(ctx)
			})(ctx, in)
			var e string
			if eout != nil && len(eout.Result.Parts) == 1 {
				e = eout.Result.Parts[0].Text
			}
			check("enhanced", e, err)

			esout, err := mw.EnhancedStreamable(func(ctx context.Context, _ *compose.ToolInput) (*compose.EnhancedStreamableToolOutput, error) {
				return nil, fail(ctx)
			})(ctx, in)
			var es string
			if esout != nil {
				r, _ := esout.Result.Recv()
				esout.Result.Close()
				if r != nil && len(r.Parts) == 1 {
					es = r.Parts[0].Text
				}
			}
			check("enhanced streamable", es, err)
		})
	}
	// A successful call passes unchanged.
	out, err := mw.Invokable(func(context.Context, *compose.ToolInput) (*compose.ToolOutput, error) {
		return &compose.ToolOutput{Result: "fine"}, nil
	})(context.Background(), in)
	if err != nil || out.Result != "fine" {
		t.Errorf("success became %v, %v", out, err)
	}
}

func resultOf(o *compose.ToolOutput) string {
	if o == nil {
		return ""
	}
	return o.Result
}

func drain(r *schema.StreamReader[string]) ([]string, error) {
	defer r.Close()
	var out []string
	for {
		s, err := r.Recv()
		if err != nil {
			return out, nil
		}
		out = append(out, s)
	}
}
