package adapter_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
)

// TestHonorsContext: a spec that declares it honours its context runs on the
// caller's goroutine, with the same deadline, panic containment and timeout
// reporting as one run apart.
func TestHonorsContext(t *testing.T) {
	obj := &jsonschema.Schema{Type: "object"}
	mk := func(h adapter.Handler) *adapter.Spec {
		s, err := adapter.NewRawTool("h", "", obj, h, &adapter.ToolOptions{Timeout: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		s.HonorsContext = true
		return s
	}
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	for _, tc := range []struct {
		name   string
		parent func() (context.Context, context.CancelFunc)
		h      adapter.Handler
		want   adapter.Kind
	}{
		{"waits on ctx", noDeadline, func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, adapter.KindTimeout},
		{"waits on ctx, caller has a deadline", withDeadline, func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, adapter.KindTimeout},
		{"finishes late", noDeadline, func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			<-ctx.Done()
			return adapter.TextResult("late"), nil
		}, adapter.KindTimeout},
		{"finishes late, caller has a deadline", withDeadline, func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			<-ctx.Done()
			return adapter.TextResult("late"), nil
		}, adapter.KindTimeout},
		{"panics", noDeadline, func(context.Context, json.RawMessage) (*adapter.Result, error) {
			panic("boom")
		}, adapter.KindToolError},
		{"succeeds", withDeadline, func(context.Context, json.RawMessage) (*adapter.Result, error) {
			return adapter.TextResult("ok"), nil
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.parent()
			defer cancel()
			start := time.Now()
			res, err := exec.Do(ctx, &adapter.Request{Spec: mk(tc.h), Args: json.RawMessage(`{}`)})
			if got := adapter.KindOf(err); got != tc.want {
				t.Fatalf("kind %q (err %v), want %q", got, err, tc.want)
			}
			if tc.want == "" && res.Text() != "ok" {
				t.Fatalf("result %q", res.Text())
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("returned after %s", d)
			}
		})
	}
}

func noDeadline() (context.Context, context.CancelFunc) { return context.Background(), func() {} }

func withDeadline() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), time.Minute)
}
