package adapter_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// Allocation counts of the hot paths, as regression tests: deterministic
// where timings are not (testing.AllocsPerRun runs on one CPU). The
// ceilings are today's counts; lower them when a change earns it. The
// MemoryLedger cases count the ledger's work too (a durable ledger is
// written on the call's goroutine): record, argument and result hashes,
// hash chain. Under -race the counts are noisier (sync.Pool drops a
// random share of what it is given, and the race runtime allocates for
// itself: one CI run in about thirty counted an 8th allocation on the
// HonorsContext path), so each case allows up to racePoolMargin more;
// scripts/test also runs these tests without -race, where the ceilings
// are exact.
func TestAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	ro := &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}
	typed := adapter.MustTool("add", "adds", add, ro)
	noop := adapter.TextResult("ok")
	raw := adapter.MustRawTool("noop", "does nothing", &jsonschema.Schema{Type: "object"},
		func(context.Context, json.RawMessage) (*adapter.Result, error) { return noop, nil }, ro)
	inline := adapter.MustTool("add_inline", "adds", add, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}, HonorsContext: true})
	plain := adapter.NewExecutor(catalog{typed, raw, inline}, nil)
	cached := adapter.NewExecutor(catalog{typed}, &adapter.ExecutorOptions{
		Cache: &adapter.CacheOptions{TTL: time.Hour, Tools: map[string]time.Duration{"add": 0}},
	})
	// The ledger's own work, counted exactly: a durable ledger is written
	// on the call's goroutine.
	ledgered := adapter.NewExecutor(catalog{typed}, &adapter.ExecutorOptions{Ledger: syncLedger{ledger.NewMemory(64)}})
	ledgeredCached := adapter.NewExecutor(catalog{typed}, &adapter.ExecutorOptions{
		Ledger: syncLedger{ledger.NewMemory(64)},
		Cache:  &adapter.CacheOptions{TTL: time.Hour, Tools: map[string]time.Duration{"add": 0}},
	})
	t.Cleanup(func() { plain.Close(); cached.Close(); ledgered.Close(); ledgeredCached.Close() })
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
		{"typed call", plain, context.Background(), "add", addArgs, 11 + racePoolMargin},
		{"typed call, cancellable ctx", plain, cancellable, "add", addArgs, 14 + racePoolMargin},
		{"typed call, HonorsContext", plain, context.Background(), "add_inline", addArgs, 7 + racePoolMargin},
		{"raw call", plain, context.Background(), "noop", json.RawMessage(`{}`), 18 + racePoolMargin},
		{"cache hit", cached, context.Background(), "add", addArgs, 3 + racePoolMargin},
		{"typed call, MemoryLedger", ledgered, context.Background(), "add", addArgs, 16 + racePoolMargin},
		{"cache hit, MemoryLedger", ledgeredCached, context.Background(), "add", addArgs, 6 + racePoolMargin},
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

// syncLedger makes a ledger durable: the executor writes each record on
// the call's goroutine, where AllocsPerRun counts the ledger's work too.
type syncLedger struct{ *ledger.Memory }

func (syncLedger) Durable() bool { return true }
