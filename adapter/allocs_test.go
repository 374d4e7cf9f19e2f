package adapter_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
)

// Allocation counts of the hot paths, as regression tests: deterministic
// where timings are not (testing.AllocsPerRun runs on one CPU). The
// ceilings are today's counts; lower them when a change earns it. They
// leave out the ledger, whose writer allocates on its own goroutine.
func TestAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	ro := &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}
	typed := adapter.MustTool("add", "adds", add, ro)
	noop := adapter.TextResult("ok")
	raw := adapter.MustRawTool("noop", "does nothing", &jsonschema.Schema{Type: "object"},
		func(context.Context, json.RawMessage) (*adapter.Result, error) { return noop, nil }, ro)
	plain := adapter.NewExecutor(catalog{typed, raw}, nil)
	cached := adapter.NewExecutor(catalog{typed}, &adapter.ExecutorOptions{
		Cache: &adapter.CacheOptions{TTL: time.Hour, Tools: map[string]time.Duration{"add": 0}},
	})
	t.Cleanup(func() { plain.Close(); cached.Close() })
	cancellable, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for _, tt := range []struct {
		name string
		e    *adapter.Executor
		ctx  context.Context
		tool string
		args json.RawMessage
		max  float64
	}{
		{"typed call", plain, context.Background(), "add", addArgs, 14},
		{"typed call, cancellable ctx", plain, cancellable, "add", addArgs, 17},
		{"raw call", plain, context.Background(), "noop", json.RawMessage(`{}`), 18},
		{"cache hit", cached, context.Background(), "add", addArgs, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.e.Call(tt.ctx, tt.tool, tt.args); err != nil {
				t.Fatal(err)
			}
			n := testing.AllocsPerRun(200, func() {
				if _, err := tt.e.Call(tt.ctx, tt.tool, tt.args); err != nil {
					t.Fatal(err)
				}
			})
			t.Logf("%s: %v allocations", tt.name, n)
			if n > tt.max {
				t.Errorf("%s: %v allocations per call, want <= %v", tt.name, n, tt.max)
			}
		})
	}
}
