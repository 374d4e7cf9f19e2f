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
)

// SessionKV is what a store's Sessions implements: console.SessionKV,
// which the store module does not import.
type SessionKV interface {
	Put(ctx context.Context, key string, value []byte, expires time.Time) error
	Get(ctx context.Context, key string) ([]byte, bool, error)
	Delete(ctx context.Context, key string) error
}

// TestSessions checks Store.Sessions: replicas see each other's sessions
// and deletes at once, values round-trip byte for byte, expired rows are
// never returned and the sweep deletes them (leaving live ones), unknown
// keys are misses, oversized keys and values are refused with the store's
// sentinel (keeping what the key held), and a flood of racing Put, Get
// and Delete through two replicas returns only values written for the key
// asked.
func TestSessions(t *testing.T, k *Kit) {
	ctx := context.Background()
	var clock atomic.Int64
	clock.Store(time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	open := func(t *testing.T) (a, b SessionKV, s *Store) {
		db := k.NewDB(t)
		s = k.open(t, db, Options{Now: now})
		return s.Sessions, k.open(t, db, Options{Now: now}).Sessions, s
	}
	get := func(t *testing.T, kv SessionKV, key string) ([]byte, bool) {
		t.Helper()
		v, ok, err := kv.Get(ctx, key)
		if err != nil {
			t.Fatalf("Get(%q): %v", key, err)
		}
		return v, ok
	}
	put := func(t *testing.T, kv SessionKV, key string, v []byte, expires time.Time) {
		t.Helper()
		if err := kv.Put(ctx, key, v, expires); err != nil {
			t.Fatalf("Put(%q): %v", key, err)
		}
	}
	rows := func(t *testing.T, s *Store) int {
		t.Helper()
		var n int
		if err := s.QueryRow(ctx, "SELECT COUNT(*) FROM console_sessions").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("Replicas", func(t *testing.T) {
		a, b, _ := open(t)
		later := now().Add(time.Hour)
		put(t, a, "k1", []byte(`{"operator":"alice"}`), later)
		if v, ok := get(t, b, "k1"); !ok || string(v) != `{"operator":"alice"}` {
			t.Fatalf("b.Get after a.Put = %q, %v; want alice's session", v, ok)
		}
		put(t, b, "k1", []byte(`{"operator":"bob"}`), later)
		if v, ok := get(t, a, "k1"); !ok || string(v) != `{"operator":"bob"}` {
			t.Errorf("a.Get after b replaced it = %q, %v; want bob's", v, ok)
		}
		if err := b.Delete(ctx, "k1"); err != nil {
			t.Fatal(err)
		}
		if v, ok := get(t, a, "k1"); ok {
			t.Errorf("a.Get right after b.Delete = %q; want a miss", v)
		}
		if _, ok := get(t, a, "never-stored"); ok {
			t.Error("an unknown key was found")
		}
		if err := a.Delete(ctx, "never-stored"); err != nil {
			t.Errorf("Delete of an unknown key: %v", err)
		}
	})

	t.Run("RoundTrip", func(t *testing.T) {
		a, b, _ := open(t)
		all := make([]byte, 256)
		for i := range all {
			all[i] = byte(i)
		}
		values := map[string][]byte{
			"empty":                              {},
			"nil":                                nil,
			"bytes":                              all,
			"badutf8":                            []byte("\xff\xfe\x00\xc3("),
			"limit":                              bytes.Repeat([]byte{0xa5, 0x00}, k.MaxSessionValue/2),
			strings.Repeat("k", k.MaxSessionKey): []byte("longest key"),
			"é/ключ":                             []byte("unicode key"),
		}
		for key, v := range values {
			put(t, a, key, v, now().Add(time.Hour))
		}
		for key, want := range values {
			got, ok := get(t, b, key)
			if !ok || !bytes.Equal(got, want) || got == nil {
				t.Errorf("Get(%.20q) = %d bytes %q…, %v; want the %d bytes put", key, len(got), trunc(got), ok, len(want))
			}
		}
	})

	t.Run("Expiry", func(t *testing.T) {
		a, b, s := open(t)
		put(t, a, "soon", []byte("s"), now().Add(time.Minute))
		put(t, a, "later", []byte("l"), now().Add(time.Hour))
		put(t, a, "past", []byte("p"), now().Add(-time.Second))
		if _, ok := get(t, b, "past"); ok {
			t.Error("a session put with a past expiry was returned")
		}
		if _, ok := get(t, b, "soon"); !ok {
			t.Fatal("a live session was not returned")
		}
		clock.Add(int64(time.Minute))
		if _, ok := get(t, b, "soon"); ok {
			t.Error("a session was returned at its expiry")
		}
		if n := rows(t, s); n != 3 {
			t.Fatalf("%d rows before the sweep, want 3", n)
		}
		if err := s.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		if n := rows(t, s); n != 1 {
			t.Errorf("%d rows after the sweep, want only the live one", n)
		}
		if v, ok := get(t, b, "later"); !ok || string(v) != "l" {
			t.Errorf("the sweep took a live session: %q, %v", v, ok)
		}
	})

	t.Run("Limits", func(t *testing.T) {
		a, b, s := open(t)
		later := now().Add(time.Hour)
		put(t, a, "k", []byte("kept"), later)
		err := a.Put(ctx, "k", make([]byte, k.MaxSessionValue+1), later)
		if !errors.Is(err, k.ErrSessionTooLarge) || !strings.Contains(err.Error(), fmt.Sprint(k.MaxSessionValue+1)) {
			t.Errorf("Put of %d bytes: %v; want ErrSessionTooLarge naming the size", k.MaxSessionValue+1, err)
		}
		if v, ok := get(t, b, "k"); !ok || string(v) != "kept" {
			t.Errorf("a refused Put changed the key: %d bytes %q…, %v; want \"kept\"", len(v), trunc(v), ok)
		}
		long := strings.Repeat("k", k.MaxSessionKey+1)
		if err := a.Put(ctx, long, []byte("v"), later); !errors.Is(err, k.ErrSessionTooLarge) {
			t.Errorf("Put with a key of %d bytes: %v; want ErrSessionTooLarge", len(long), err)
		}
		// The limits themselves are accepted.
		edge := strings.Repeat("e", k.MaxSessionKey)
		if err := a.Put(ctx, edge, make([]byte, k.MaxSessionValue), later); err != nil {
			t.Errorf("Put with a key of %d bytes and a value of %d: %v", len(edge), k.MaxSessionValue, err)
		}
		if err := a.Delete(ctx, edge); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"", "a\x00b", "\xff"} {
			if err := a.Put(ctx, key, []byte("v"), later); err == nil {
				t.Errorf("Put(%q) was accepted", key)
			}
		}
		if n := rows(t, s); n != 1 {
			t.Errorf("%d rows after refused Puts, want 1", n)
		}
	})

	t.Run("Race", func(t *testing.T) {
		a, b, _ := open(t)
		const keys, workers, rounds = 4, 8, 40
		later := now().Add(time.Hour)
		var wg sync.WaitGroup
		for w := range workers {
			kv := a
			if w%2 == 1 {
				kv = b
			}
			wg.Go(func() {
				for i := range rounds {
					key := fmt.Sprintf("key-%d", (w+i)%keys)
					var err error
					switch i % 3 {
					case 0:
						err = kv.Put(ctx, key, fmt.Appendf(nil, "%s/%d/%d", key, w, i), later)
					case 1:
						var v []byte
						var ok bool
						v, ok, err = kv.Get(ctx, key)
						if err == nil && ok && !bytes.HasPrefix(v, []byte(key+"/")) {
							err = fmt.Errorf("Get(%q) = %q, a value written for another key", key, v)
						}
					case 2:
						err = kv.Delete(ctx, key)
					}
					if err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		// Whatever the interleaving, both replicas now agree.
		for i := range keys {
			key := fmt.Sprintf("key-%d", i)
			va, oka := get(t, a, key)
			vb, okb := get(t, b, key)
			if oka != okb || !bytes.Equal(va, vb) {
				t.Errorf("%s: a has %q (%v), b has %q (%v)", key, va, oka, vb, okb)
			}
		}
	})
}

func trunc(b []byte) []byte {
	if len(b) > 16 {
		return b[:16]
	}
	return b
}
