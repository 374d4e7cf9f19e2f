// Package mcpadaptertest checks implementations of the MCP module's
// stores: any [pin.Store] or [token.Store] runs the same checks as the
// ones this module ships, in the spirit of testing/slogtest.
//
//	func TestPins(t *testing.T) {
//		mcpadaptertest.TestPinStore(t, func(t *testing.T) adaptertest.Opener[pin.Store] {
//			s := pin.NewMemoryStore(nil)
//			return func() pin.Store { return s }
//		})
//	}
package mcpadaptertest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter/adaptertest"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
)

// TestPinStore checks an [pin.Store]. newDB is as for
// [adaptertest.TestLedgerQuery].
//
// It checks Get, SetIfAbsent (atomic: of many racing first pins, one
// wins and all see it), Set, All in key order, and that two replicas see
// each other's pins.
func TestPinStore(t *testing.T, newDB func(t *testing.T) adaptertest.Opener[pin.Store]) {
	ctx := context.Background()
	open := newDB(t)
	a, b := open(), open()
	if _, ok, err := a.Get(ctx, "srv/tool"); ok || err != nil {
		t.Fatalf("empty store Get = %v, %v", ok, err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string]bool{}
	for i := range 16 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			h, err := s.SetIfAbsent(ctx, "srv/tool", fmt.Sprintf("sha256:%d", i))
			if err != nil {
				t.Errorf("SetIfAbsent: %v", err)
			}
			mu.Lock()
			got[h] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(got) != 1 {
		t.Errorf("racing SetIfAbsent calls saw %d different pins, want 1: %v", len(got), got)
	}
	var first string
	for h := range got {
		first = h
	}
	if h, ok, err := b.Get(ctx, "srv/tool"); !ok || err != nil || h != first {
		t.Errorf("replica b Get = %q, %v, %v; want %q", h, ok, err, first)
	}
	must(t, b.Set(ctx, "srv/tool", "sha256:accepted"))
	if h, _, _ := a.Get(ctx, "srv/tool"); h != "sha256:accepted" {
		t.Errorf("after Set through b, a reads %q", h)
	}
	if h, err := a.SetIfAbsent(ctx, "srv/tool", "sha256:other"); err != nil || h != "sha256:accepted" {
		t.Errorf("SetIfAbsent over a pin = %q, %v", h, err)
	}
	must(t, a.Set(ctx, "a/z", "1"))
	must(t, a.Set(ctx, "srv/a", "2"))
	var keys []string
	for p, err := range b.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, p.Key+"="+p.Hash)
	}
	if diff := cmp.Diff([]string{"a/z=1", "srv/a=2", "srv/tool=sha256:accepted"}, keys); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
