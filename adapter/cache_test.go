package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
)

// countingTool returns a tool that counts its runs and returns its
// arguments with the run number.
func countingTool(name string, ann adapter.Annotations, runs *atomic.Int64) *adapter.Spec {
	return rawTool(name, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		n := runs.Add(1)
		return adapter.TextResult(fmt.Sprintf("%d:%s", n, canonString(args))), nil
	}, &adapter.ToolOptions{Annotations: ann})
}

func TestCacheOnlyReadOnlyOrIdempotent(t *testing.T) {
	f := false
	tests := []struct {
		name   string
		ann    adapter.Annotations
		listed bool
		runs   int64
	}{
		{"read-only", adapter.Annotations{ReadOnly: true}, true, 1},
		{"idempotent", adapter.Annotations{Idempotent: true, Destructive: &f}, true, 1},
		{"neither", adapter.Annotations{Destructive: &f}, true, 3},
		{"not listed", adapter.Annotations{ReadOnly: true}, false, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs atomic.Int64
			tools := map[string]time.Duration{}
			if tt.listed {
				tools["t"] = 0
			}
			e, ml := newExec(t, &adapter.ExecutorOptions{Cache: &adapter.CacheOptions{Tools: tools}}, countingTool("t", tt.ann, &runs))
			var texts []string
			for _, args := range []string{`{"x":1}`, `{ "x" : 1 }`, `{"s":"d","x":1}`} {
				res, err := e.Call(context.Background(), "t", json.RawMessage(args))
				if err != nil {
					t.Fatal(err)
				}
				texts = append(texts, res.Text())
			}
			if runs.Load() != tt.runs {
				t.Errorf("handler ran %d times, want %d", runs.Load(), tt.runs)
			}
			hits := 0
			for _, r := range records(t, e, ml) {
				if r.CacheHit {
					hits++
				}
			}
			if want := 3 - int(tt.runs); hits != want {
				t.Errorf("ledger marks %d cache hits, want %d", hits, want)
			}
			if tt.runs == 1 && (texts[1] != texts[0] || texts[2] != texts[0]) {
				t.Errorf("cached results differ: %q", texts)
			}
		})
	}
}

func TestCacheTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var runs atomic.Int64
		e, _ := newExec(t, &adapter.ExecutorOptions{Cache: &adapter.CacheOptions{
			TTL:   time.Minute,
			Tools: map[string]time.Duration{"short": 10 * time.Second, "default": 0},
		}}, countingTool("short", readOnly, &runs), countingTool("default", readOnly, &runs))
		defer e.Close()
		call := func(tool string) string {
			res, err := e.Call(context.Background(), tool, json.RawMessage(`{"x":1}`))
			if err != nil {
				t.Fatal(err)
			}
			return res.Text()
		}
		s1, d1 := call("short"), call("default")
		time.Sleep(9 * time.Second)
		if call("short") != s1 || call("default") != d1 {
			t.Error("entries expired early")
		}
		time.Sleep(2 * time.Second) // 11 s: past the tool's TTL
		if call("short") == s1 {
			t.Error("short entry outlived its 10s TTL")
		}
		if call("default") != d1 {
			t.Error("default entry expired before the 1m TTL")
		}
		time.Sleep(time.Minute)
		if call("default") == d1 {
			t.Error("default entry outlived its 1m TTL")
		}
	})
}

func TestMemoryCacheSizeBound(t *testing.T) {
	var runs atomic.Int64
	store := adapter.NewMemoryCache(2, time.Hour)
	e, _ := newExec(t, &adapter.ExecutorOptions{Cache: &adapter.CacheOptions{Store: store, Tools: map[string]time.Duration{"t": 0}}}, countingTool("t", readOnly, &runs))
	for i := range 10 {
		if _, err := e.Call(context.Background(), "t", json.RawMessage(fmt.Sprintf(`{"x":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if n := store.Len(); n > 2 {
		t.Errorf("cache holds %d entries, bound is 2", n)
	}
	// The most recent entry is still there.
	before := runs.Load()
	if _, err := e.Call(context.Background(), "t", json.RawMessage(`{"x":9}`)); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != before {
		t.Error("the most recent entry was evicted")
	}
}

// TestCacheSingleflight starts N identical calls while the first is still
// running: the handler runs once and every caller gets its result.
func TestCacheSingleflight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 16
		var runs atomic.Int64
		release := make(chan struct{})
		spec := rawTool("slow", func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
			runs.Add(1)
			<-release
			return adapter.TextResult("shared"), nil
		}, nil)
		e, ml := newExec(t, &adapter.ExecutorOptions{Cache: &adapter.CacheOptions{Tools: map[string]time.Duration{"slow": 0}}}, spec)
		defer e.Close()
		var wg sync.WaitGroup
		texts := make([]string, n)
		for i := range n {
			wg.Go(func() {
				res, err := e.Call(context.Background(), "slow", json.RawMessage(`{"x":1}`))
				if err != nil {
					t.Error(err)
					return
				}
				texts[i] = res.Text()
			})
		}
		synctest.Wait() // every call is now waiting on the one handler run
		if runs.Load() != 1 {
			t.Fatalf("handler started %d times, want 1", runs.Load())
		}
		close(release)
		wg.Wait()
		for i, s := range texts {
			if s != "shared" {
				t.Errorf("caller %d got %q", i, s)
			}
		}
		hits := 0
		recs := records(t, e, ml)
		for _, r := range recs {
			if r.CacheHit {
				hits++
			}
		}
		if len(recs) != n || hits != n-1 {
			t.Errorf("%d records, %d cache hits; want %d and %d", len(recs), hits, n, n-1)
		}
	})
}

// TestCacheSingleflightFollowerDeadline: a call that joins another's run of
// the handler still returns at its own deadline.
func TestCacheSingleflightFollowerDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		spec := rawTool("slow", func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			<-release
			return adapter.TextResult("late"), nil
		}, nil)
		e, _ := newExec(t, &adapter.ExecutorOptions{Cache: &adapter.CacheOptions{Tools: map[string]time.Duration{"slow": 0}}}, spec)
		defer e.Close()
		leader := make(chan error)
		go func() {
			_, err := e.Do(context.Background(), &adapter.Request{Tool: "slow", Args: json.RawMessage(`{"x":1}`), Timeout: time.Hour})
			leader <- err
		}()
		synctest.Wait()
		start := time.Now()
		_, err := e.Do(context.Background(), &adapter.Request{Tool: "slow", Args: json.RawMessage(`{"x":1}`), Timeout: time.Second})
		if k := kindOf(t, err); k != adapter.KindTimeout || time.Since(start) != time.Second {
			t.Errorf("follower: kind %q after %v, want timeout after 1s", k, time.Since(start))
		}
		close(release)
		if err := <-leader; err != nil {
			t.Errorf("leader: %v", err)
		}
	})
}

func TestCacheNeverStoresErrors(t *testing.T) {
	var runs atomic.Int64
	spec := rawTool("flaky", func(context.Context, json.RawMessage) (*adapter.Result, error) {
		if runs.Add(1) <= 2 {
			return nil, errors.New("transient")
		}
		return adapter.TextResult("ok"), nil
	}, nil)
	e, ml := newExec(t, &adapter.ExecutorOptions{Cache: &adapter.CacheOptions{Tools: map[string]time.Duration{"flaky": 0}}}, spec)
	var kinds []adapter.Kind
	for range 4 {
		_, err := e.Call(context.Background(), "flaky", json.RawMessage(`{"x":1}`))
		kinds = append(kinds, adapter.KindOf(err))
	}
	want := []adapter.Kind{adapter.KindToolError, adapter.KindToolError, "", ""}
	if fmt.Sprint(kinds) != fmt.Sprint(want) || runs.Load() != 3 {
		t.Errorf("kinds %v runs %d; want %v and 3 runs", kinds, runs.Load(), want)
	}
	var hits []bool
	for _, r := range records(t, e, ml) {
		hits = append(hits, r.CacheHit)
	}
	if fmt.Sprint(hits) != "[false false false true]" {
		t.Errorf("cache hits in the ledger: %v", hits)
	}
}

// TestCachedCallStillPassesPolicy: a cache hit still goes through input
// guards, approval and run limits, and the output guard sees the result.
func TestCachedCallStillPassesPolicy(t *testing.T) {
	var runs atomic.Int64
	var deny atomic.Bool
	var outGuard atomic.Int64
	port := approval.Func(func(context.Context, *approval.Request) (approval.Decision, error) {
		if deny.Load() {
			return approval.Decision{Verdict: approval.VerdictDenied, Reason: "revoked"}, nil
		}
		return approval.Decision{Verdict: approval.VerdictApproved}, nil
	})
	e, _ := newExec(t, &adapter.ExecutorOptions{
		Approval: adapter.ApprovalOptions{Port: port, Policy: adapter.ApproveAlways},
		Cache:    &adapter.CacheOptions{Tools: map[string]time.Duration{"t": 0}},
		Guards:   []adapter.Guard{{Name: "count", Output: func(context.Context, *adapter.ToolCall, *adapter.Result) error { outGuard.Add(1); return nil }}},
	}, countingTool("t", readOnly, &runs))
	ctx, _ := adapter.WithRun(context.Background(), &adapter.RunOptions{Limits: adapter.Limits{MaxCalls: 3}})
	call := func() adapter.Kind {
		_, err := e.Call(ctx, "t", json.RawMessage(`{"x":1}`))
		return kindOf(t, err)
	}
	if k := call(); k != "" {
		t.Fatalf("first call: %s", k)
	}
	if k := call(); k != "" || runs.Load() != 1 {
		t.Fatalf("cached call: %s, runs %d", k, runs.Load())
	}
	deny.Store(true)
	if k := call(); k != adapter.KindApprovalDenied {
		t.Errorf("cached call after approval was revoked: %q, want approval_denied", k)
	}
	deny.Store(false)
	if k := call(); k != "" {
		t.Errorf("third admitted call: %q", k)
	}
	if k := call(); k != adapter.KindRunLimitExceeded {
		t.Errorf("cached call past the run limit: %q, want run_limit_exceeded", k)
	}
	if outGuard.Load() != 3 {
		t.Errorf("output guard ran %d times, want 3 (fresh and cached results)", outGuard.Load())
	}
}

// swapCatalog serves one spec that the test can replace.
type swapCatalog struct{ spec atomic.Pointer[adapter.Spec] }

func (c *swapCatalog) Lookup(name string) (*adapter.Spec, bool) {
	s := c.spec.Load()
	return s, s != nil && s.Name == name
}

// TestCachedArgsRevalidatedForNewSpec: cached tools remember validated
// argument texts, but a spec replaced under the same name validates anew.
func TestCachedArgsRevalidatedForNewSpec(t *testing.T) {
	var runs atomic.Int64
	loose := countingTool("t", readOnly, &runs)
	strict := adapter.MustRawTool("t", "", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"x": {Type: "integer", Maximum: jsonschema.Ptr(0.0)},
	}}, echo, &adapter.ToolOptions{Annotations: readOnly})
	cat := &swapCatalog{}
	cat.spec.Store(loose)
	e := adapter.NewExecutor(cat, &adapter.ExecutorOptions{Logger: discard, Cache: &adapter.CacheOptions{Tools: map[string]time.Duration{"t": 0}}})
	defer e.Close()
	for range 2 {
		if _, err := e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	cat.spec.Store(strict)
	_, err := e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`))
	if k := kindOf(t, err); k != adapter.KindArgsInvalid {
		t.Errorf("after replacing the spec: kind %q, want args_invalid (%v)", k, err)
	}
}

// TestCacheSingleflightLeaderCancelled: when the caller whose call runs
// the handler goes away, the calls that joined it still get the result.
func TestCacheSingleflightLeaderCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		spec := rawTool("slow", func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			select {
			case <-release:
				return adapter.TextResult("done"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}, nil)
		e, _ := newExec(t, &adapter.ExecutorOptions{Cache: &adapter.CacheOptions{Tools: map[string]time.Duration{"slow": 0}}}, spec)
		defer e.Close()
		lctx, cancel := context.WithCancel(context.Background())
		leader := make(chan error)
		go func() {
			_, err := e.Call(lctx, "slow", json.RawMessage(`{"x":1}`))
			leader <- err
		}()
		synctest.Wait()
		follower := make(chan error)
		go func() {
			res, err := e.Call(context.Background(), "slow", json.RawMessage(`{"x":1}`))
			if err == nil && res.Text() != "done" {
				err = fmt.Errorf("text %q", res.Text())
			}
			follower <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-leader; !errors.Is(err, context.Canceled) {
			t.Errorf("leader: %v, want canceled", err)
		}
		close(release)
		if err := <-follower; err != nil {
			t.Errorf("follower: %v", err)
		}
	})
}
