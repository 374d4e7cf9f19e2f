package adapter_test

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/runsync"
)

// loadMix is the share of each outcome in the load test, in calls per 100.
var loadMix = []struct {
	kind string
	n    int
}{
	{"ok", 58}, {"cache_hit", 20}, {"tool_error", 8}, {"timeout", 4}, {"timeout_ignored", 2},
	{"args_invalid", 2}, {"not_found", 2}, {"guardrail_blocked", 2}, {"approval_denied", 1}, {"internal", 1},
}

// TestLoad makes 50,000 calls from 64 goroutines with a mix of successes,
// errors, timeouts (some handlers ignore ctx) and cache hits, then checks
// that the ledger holds exactly one record per call with the right
// outcome, that the callers saw the same outcomes, and that every goroutine
// ends.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const calls, workers = 50000, 64
	var kinds []string // one round of 100
	for _, m := range loadMix {
		for range m.n {
			kinds = append(kinds, m.kind)
		}
	}
	if len(kinds) != 100 {
		t.Fatalf("mix sums to %d", len(kinds))
	}
	baseGoroutines := runtime.NumGoroutine()
	baseAbandoned := runsync.Abandoned()
	ml := ledger.NewMemory(calls)
	e, cachedRuns, release := kindsExecutor(t, ml)

	want := map[string]int{}      // outcome → calls
	seen := make([]string, calls) // outcome each caller saw
	cacheCalls := 0
	for i := range calls {
		k := kinds[(i*37)%100] // interleave kinds across the run
		want[outcomeOf(k)]++
		if k == "cache_hit" {
			cacheCalls++
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			ctx := context.Background()
			for i := w; i < calls; i += workers {
				k := kinds[(i*37)%100]
				_, err := e.Do(ctx, kindRequest(k, i, ""))
				if err == nil {
					seen[i] = ledger.OutcomeOK
				} else {
					seen[i] = string(kindOf(t, err))
				}
			}
		})
	}
	wg.Wait()
	t.Logf("calls done in %v", time.Since(start))

	gotCallers := map[string]int{}
	for _, o := range seen {
		gotCallers[o]++
	}
	if diff := cmp.Diff(want, gotCallers); diff != "" {
		t.Errorf("outcomes seen by callers (-want +got):\n%s", diff)
	}
	recs := records(t, e, ml)
	if len(recs) != calls || ml.Total() != calls {
		t.Fatalf("%d records (%d written), want %d", len(recs), ml.Total(), calls)
	}
	gotLedger := map[string]int{}
	ids := make(map[string]bool, calls)
	hits := 0
	for _, r := range recs {
		gotLedger[r.Outcome]++
		if ids[r.CallID] {
			t.Fatalf("call %s recorded twice", r.CallID)
		}
		ids[r.CallID] = true
		if r.CacheHit {
			hits++
		}
	}
	if diff := cmp.Diff(want, gotLedger); diff != "" {
		t.Errorf("outcomes in the ledger (-want +got):\n%s", diff)
	}
	if runs := int(cachedRuns.Load()); hits+runs != cacheCalls || hits < cacheCalls/2 {
		t.Errorf("cache: %d hits + %d handler runs, want %d calls with most of them hits", hits, runs, cacheCalls)
	}
	if s := e.LedgerStats(); s.Written != calls || s.Dropped != 0 || s.Failed != 0 {
		t.Errorf("ledger stats %+v", s)
	}
	t.Logf("outcomes %v; cache hits %d of %d", gotLedger, hits, cacheCalls)

	release() // the handlers that ignored ctx return now
	e.Close()
	t.Logf("checked and closed at %v", time.Since(start))
	deadline := time.Now().Add(20 * time.Second)
	for runsync.Abandoned() != baseAbandoned || runtime.NumGoroutine() > baseGoroutines {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines left behind: %d (baseline %d), abandoned %d (baseline %d)\n%s",
				runtime.NumGoroutine(), baseGoroutines, runsync.Abandoned(), baseAbandoned, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
