package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/store/internal/sqlkv"
)

// SignInTable is what a store's SignIns implements.
type SignInTable interface {
	Put(ctx context.Context, key, subject string, value []byte, created, expires time.Time, max int) error
	Get(ctx context.Context, key string) (value []byte, claim string, ok bool, err error)
	Claim(ctx context.Context, key, claim string) (value []byte, ok bool, err error)
	Take(ctx context.Context, key string) (value []byte, claim string, ok bool, err error)
}

// TestSignIns checks Store.SignIns (#27): a sign-in put through one
// replica is read, claimed and taken through another; of 32 racing claims
// through two replicas exactly one wins and the row keeps its claim, a
// second claim fails; of 32 racing takes exactly one gets the row (with
// its claim), and then it is gone; an expired sign-in is never returned,
// claimed or taken and the sweep deletes it, leaving live ones; a
// subject's sign-ins past the bound are forgotten oldest first, another
// subject's untouched; a key already held, empty or oversized keys and
// values, and bad bounds are refused, keeping what was there.
func TestSignIns(t *testing.T, k *Kit) {
	ctx := context.Background()
	var clock atomic.Int64
	t0 := time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC)
	clock.Store(t0.UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	db := k.NewDB(t)
	s := k.open(t, db, Options{Now: now})
	a, b := s.SignIns, k.open(t, db, Options{Now: now}).SignIns
	put := func(tab SignInTable, key, subject string, created time.Time, max int) {
		t.Helper()
		if err := tab.Put(ctx, key, subject, []byte("sealed "+key), created, created.Add(10*time.Minute), max); err != nil {
			t.Fatalf("Put(%q): %v", key, err)
		}
	}
	has := func(tab SignInTable, key string) bool {
		t.Helper()
		v, _, ok, err := tab.Get(ctx, key)
		if err != nil {
			t.Fatalf("Get(%q): %v", key, err)
		}
		if ok && string(v) != "sealed "+key {
			t.Fatalf("Get(%q) = %q", key, v)
		}
		return ok
	}

	// Across replicas, and racing claims and takes.
	put(a, "s1", "alice", t0, 5)
	if !has(b, "s1") {
		t.Fatal("a sign-in put through A is not seen through B")
	}
	race := func(f func(i int, tab SignInTable) bool) (wins []int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 32 {
			tab := a
			if i%2 == 1 {
				tab = b
			}
			wg.Go(func() {
				if f(i, tab) {
					mu.Lock()
					wins = append(wins, i)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return wins
	}
	claims := race(func(i int, tab SignInTable) bool {
		v, ok, err := tab.Claim(ctx, "s1", fmt.Sprintf("browser%d", i))
		if err != nil {
			t.Errorf("Claim: %v", err)
		}
		if ok && string(v) != "sealed s1" {
			t.Errorf("Claim returned %q", v)
		}
		return ok
	})
	if len(claims) != 1 {
		t.Fatalf("%d of 32 racing claims won, want 1", len(claims))
	}
	winner := fmt.Sprintf("browser%d", claims[0])
	if _, claim, _, _ := b.Get(ctx, "s1"); claim != winner {
		t.Errorf("the claim read back is %q, want the winner's %q", claim, winner)
	}
	if _, ok, _ := a.Claim(ctx, "s1", "late"); ok {
		t.Error("a second claim won")
	}
	var taken atomic.Value
	takes := race(func(_ int, tab SignInTable) bool {
		v, claim, ok, err := tab.Take(ctx, "s1")
		if err != nil {
			t.Errorf("Take: %v", err)
		}
		if ok {
			taken.Store(claim)
			if string(v) != "sealed s1" {
				t.Errorf("Take returned %q", v)
			}
		}
		return ok
	})
	if len(takes) != 1 || taken.Load() != winner {
		t.Fatalf("%d of 32 racing takes won (claim %v), want 1 with %q", len(takes), taken.Load(), winner)
	}
	if has(a, "s1") || has(b, "s1") {
		t.Error("a taken sign-in is still there")
	}
	if _, _, ok, _ := a.Take(ctx, "s1"); ok {
		t.Error("a taken sign-in was taken again")
	}

	// Expiry and the sweep.
	put(a, "old", "carol", now(), 5)
	clock.Add(int64(5 * time.Minute))
	put(a, "young", "carol", now(), 5)
	clock.Add(int64(6 * time.Minute)) // "old" expired, "young" not
	if has(b, "old") {
		t.Error("an expired sign-in was returned")
	}
	if _, ok, _ := b.Claim(ctx, "old", "x"); ok {
		t.Error("an expired sign-in was claimed")
	}
	if _, _, ok, _ := b.Take(ctx, "old"); ok {
		t.Error("an expired sign-in was taken")
	}
	count := func(where string) int {
		t.Helper()
		var n int
		if err := s.QueryRow(ctx, "SELECT COUNT(*) FROM signins WHERE "+where).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := s.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if count("key = 'old'") != 0 || !has(a, "young") {
		t.Error("the sweep did not delete the expired sign-in alone")
	}

	// The per-subject bound: the oldest go first; bob's stay.
	put(a, "bob1", "bob", now(), 3)
	for i := range 5 {
		put([]SignInTable{a, b}[i%2], fmt.Sprintf("al%d", i), "alice", now().Add(time.Duration(i)*time.Second), 3)
	}
	for i, want := range []bool{false, false, true, true, true} {
		if got := has(a, fmt.Sprintf("al%d", i)); got != want {
			t.Errorf("alice's sign-in %d kept: %v, want %v", i, got, want)
		}
	}
	if !has(b, "bob1") || count("subject = 'alice'") != 3 {
		t.Errorf("the bound touched another subject or left more than 3: %d", count("subject = 'alice'"))
	}

	// Refusals keep what was there.
	if err := b.Put(ctx, "al4", "mallory", []byte("overwrite"), now(), now().Add(time.Minute), 3); err == nil {
		t.Error("a Put over a held key succeeded")
	}
	if v, _, _, _ := a.Get(ctx, "al4"); !bytes.Equal(v, []byte("sealed al4")) {
		t.Errorf("a refused Put changed the row: %q", v)
	}
	for name, f := range map[string]func() error{
		"empty key":     func() error { return a.Put(ctx, "", "alice", []byte("v"), now(), now().Add(time.Minute), 3) },
		"empty subject": func() error { return a.Put(ctx, "k", "", []byte("v"), now(), now().Add(time.Minute), 3) },
		"NUL key":       func() error { return a.Put(ctx, "k\x00", "alice", []byte("v"), now(), now().Add(time.Minute), 3) },
		"long key": func() error {
			return a.Put(ctx, strings.Repeat("k", 5000), "alice", []byte("v"), now(), now().Add(time.Minute), 3)
		},
		"empty value": func() error { return a.Put(ctx, "k", "alice", nil, now(), now().Add(time.Minute), 3) },
		"huge value":  func() error { return a.Put(ctx, "k", "alice", make([]byte, 65<<10), now(), now().Add(time.Minute), 3) },
		"bound 0":     func() error { return a.Put(ctx, "k", "alice", []byte("v"), now(), now().Add(time.Minute), 0) },
		"empty claim": func() error {
			_, _, err := a.Claim(ctx, "al4", "")
			return err
		},
	} {
		if err := f(); !errors.Is(err, sqlkv.ErrSignInRow) {
			t.Errorf("%s: %v, want ErrSignInRow", name, err)
		}
	}
	if count("subject = 'alice'") != 3 || has(a, "k") {
		t.Error("a refused Put changed the table")
	}
}
