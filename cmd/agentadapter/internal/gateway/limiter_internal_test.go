package gateway

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentadapter/agentadapter/adapter"

	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
)

// limitedCall calls the hook of l as the given caller and reports whether
// the per-identity limit let the call through; any other error fails t.
func limitedCall(t *testing.T, call adapter.Invoker, id *caller.Identity) bool {
	t.Helper()
	_, err := call(context.Background(), &adapter.ToolCall{Tool: "echo", Spec: &adapter.Spec{Name: "echo"}, Identity: id})
	if err == nil {
		return true
	}
	var e *adapter.Error
	if !errors.As(err, &e) || e.Kind != adapter.KindRunLimitExceeded {
		t.Fatalf("a call refused with %v, want a run_limit_exceeded refusal", err)
	}
	return false
}

// burst counts the calls the caller is let through out of n made at once.
func burst(t *testing.T, call adapter.Invoker, id *caller.Identity, n int) int {
	t.Helper()
	got := 0
	for range n {
		if limitedCall(t, call, id) {
			got++
		}
	}
	return got
}

func newLimitedCall(calls int) (*limiter, adapter.Invoker) {
	l := newLimiter(&config.Limits{PerIdentity: &config.Rate{Calls: calls, Window: config.Duration(time.Minute)}})
	return l, l.hook(func(context.Context, *adapter.ToolCall) (*adapter.Result, error) { return &adapter.Result{}, nil })
}

// An attacker without a token whose every 2026-07-28 request is a fresh
// anonymous caller ("anonymous:<random>") shares the one "anonymous"
// bucket the config documents: past its burst it is refused, and its
// 10,000 made-up subjects neither fill the bucket map nor push named
// identities into a shared one.
func TestLimiterAnonymousShareOneBucket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, call := newLimitedCall(2)
		let := 0
		for i := range maxIdentities {
			if limitedCall(t, call, &caller.Identity{Subject: fmt.Sprintf("%sreq%d", "anonymous:", i), Anonymous: true}) {
				let++
			}
		}
		if let != 2 {
			t.Errorf("%d anonymous requests let through of %d, want 2 (one burst of the shared bucket)", let, maxIdentities)
		}
		if n := len(l.perID); n != 1 {
			t.Errorf("%d buckets kept after %d anonymous requests, want 1", n, maxIdentities)
		}
		for _, who := range []string{"alice", "bob"} {
			if got := burst(t, call, &caller.Identity{Subject: who}, 3); got != 2 {
				t.Errorf("%s after the anonymous flood: %d of 3 calls let through, want its own burst of 2", who, got)
			}
		}
		// A token whose subject is the word is not the anonymous callers.
		if got := burst(t, call, &caller.Identity{Subject: "anonymous"}, 2); got != 2 {
			t.Errorf("subject %q: %d of 2 calls let through, want its own burst", "anonymous", got)
		}
	})
}

// After maxIdentities named callers each called once, new callers share
// one bucket only while those are within their window: once they are idle
// for it, each new caller gets its own full burst again (the full map
// drops the idle buckets), and the map stays bounded.
func TestLimiterIdleBucketsDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, call := newLimitedCall(2)
		for i := range maxIdentities {
			if !limitedCall(t, call, &caller.Identity{Subject: fmt.Sprintf("user%d", i)}) {
				t.Fatalf("user%d's first call refused", i)
			}
		}
		time.Sleep(time.Minute) // every bucket refills whole
		for _, who := range []string{"carol", "dave", "erin"} {
			if got := burst(t, call, &caller.Identity{Subject: who}, 3); got != 2 {
				t.Errorf("%s, a new caller once the others are idle: %d of 3 calls let through, want its own burst of 2", who, got)
			}
		}
		if n := len(l.perID); n > maxIdentities+1 {
			t.Errorf("%d buckets kept, want at most %d", n, maxIdentities+1)
		}
	})
}
