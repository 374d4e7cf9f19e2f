package adapter_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
)

// whoami answers with the caller's subject: a result that depends on who
// calls, as most results of authenticated tools do.
func whoami(runs *atomic.Int64) adapter.Handler {
	return func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		runs.Add(1)
		c := adapter.ToolCallFromContext(ctx)
		if c.Identity == nil {
			return adapter.TextResult("anonymous"), nil
		}
		return adapter.TextResult("inbox of " + c.Identity.Subject), nil
	}
}

// TestCachePerSubject is issue 12 item 6: bob is never served alice's
// cached result, unless the cache is explicitly shared.
func TestCachePerSubject(t *testing.T) {
	for _, shared := range []bool{false, true} {
		var runs atomic.Int64
		spec := rawTool("inbox", whoami(&runs), nil)
		e, _ := newExec(t, &adapter.ExecutorOptions{Cache: &adapter.CacheOptions{Tools: map[string]time.Duration{"inbox": time.Hour}, Shared: shared}}, spec)
		args := json.RawMessage(`{"x":1}`)
		for _, who := range []string{"alice", "alice", "bob", "bob"} {
			res, err := e.Call(as(who), "inbox", args)
			if err != nil {
				t.Fatal(err)
			}
			want := "inbox of " + who
			if shared {
				want = "inbox of alice"
			}
			if res.Text() != want {
				t.Errorf("shared=%v: %s got %q, want %q", shared, who, res.Text(), want)
			}
		}
		if want := map[bool]int64{false: 2, true: 1}[shared]; runs.Load() != want {
			t.Errorf("shared=%v: handler ran %d times, want %d", shared, runs.Load(), want)
		}
	}
}

// TestCacheKeyedByDefinition: a tool redefined under the same name (a new
// input schema, as when an upstream server changes it) does not serve the
// old definition's results.
func TestCacheKeyedByDefinition(t *testing.T) {
	reg := map[string]*adapter.Spec{}
	v1 := adapter.MustRawTool("t", "", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"x": {Type: "integer"}}},
		func(context.Context, json.RawMessage) (*adapter.Result, error) { return adapter.TextResult("v1"), nil }, &adapter.ToolOptions{Annotations: readOnly})
	v2 := adapter.MustRawTool("t", "", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"x": {Type: "number"}}},
		func(context.Context, json.RawMessage) (*adapter.Result, error) { return adapter.TextResult("v2"), nil }, &adapter.ToolOptions{Annotations: readOnly})
	cache := adapter.NewMemoryCache(100, time.Hour)
	ex := adapter.NewExecutor(catalogFunc(func(name string) (*adapter.Spec, bool) { s, ok := reg[name]; return s, ok }),
		&adapter.ExecutorOptions{Cache: &adapter.CacheOptions{Tools: map[string]time.Duration{"t": time.Hour}, Store: cache}, Logger: discard})
	defer ex.Close()
	reg["t"] = v1
	if res, err := ex.Call(context.Background(), "t", json.RawMessage(`{"x":1}`)); err != nil || res.Text() != "v1" {
		t.Fatalf("v1: %v %v", res, err)
	}
	reg["t"] = v2
	if res, err := ex.Call(context.Background(), "t", json.RawMessage(`{"x":1}`)); err != nil || res.Text() != "v2" {
		t.Errorf("after redefinition: %v %v, want v2's result", res.Text(), err)
	}
}

type catalogFunc func(string) (*adapter.Spec, bool)

func (f catalogFunc) Lookup(name string) (*adapter.Spec, bool) { return f(name) }
