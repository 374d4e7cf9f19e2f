// Package adaptertest checks implementations of the adapter package's
// extension points, in the spirit of testing/slogtest: a [ledger.Ledger],
// an [adapter.Cache] or an [approval.Store] written elsewhere (a
// database, a queue, a remote cache) runs the same checks as the built-in
// ones.
//
//	func TestMyLedger(t *testing.T) {
//		adaptertest.TestLedger(t, func(t *testing.T) (ledger.Ledger, func() []ledger.Record) {
//			l := mydb.NewLedger(t.TempDir())
//			return l, func() []ledger.Record { return l.ReadAll() }
//		})
//	}
//
// Each function runs its checks as subtests, calling the constructor once
// per subtest so that they do not see each other's data. The checks are
// about the contract documented on each interface: what a call to the
// executor relies on. They take well under a second, except for expiry,
// which waits a few tens of milliseconds of real time.
package adaptertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// sampleRecord returns a record with every field set.
func sampleRecord(i int) ledger.Record {
	return ledger.Record{
		Time:        time.Date(2026, 1, 2, 3, 4, 5, 6000*i, time.UTC),
		CallID:      fmt.Sprintf("call-%d", i),
		RunID:       "run-1",
		Tool:        "tool",
		Source:      "mcp:server",
		Integration: "eino",
		Subject:     "user",
		Credential:  "caller",
		Args:        json.RawMessage(fmt.Sprintf(`{"i":%d,"s":"x"}`, i)),
		Outcome:     string(adapter.KindToolError),
		Message:     "failed",
		Approval:    "approved",
		Approver:    "alice",
		Requester:   "user",
		Ticket:      "tkt_1",
		CacheHit:    i%2 == 0,
		Duration:    time.Duration(i) * time.Millisecond,
		ResultBytes: 10 * i,
	}
}

// recordsEqual compares records the way a ledger may store them: times by
// instant, arguments by JSON value.
var recordOpts = cmp.Options{
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
	cmp.Comparer(func(a, b json.RawMessage) bool { return jsonEqual(a, b) }),
	chainFields,
}

func jsonEqual(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return string(a) == string(b)
	}
	return cmp.Equal(va, vb)
}

// TestLedger checks a [ledger.Ledger]. newLedger returns a new, empty
// ledger and a function that reads back every record it holds, oldest
// first.
//
// It checks that records come back intact (every field), in order, that
// Write does not keep the record it is given (the caller may reuse it; the
// bytes of Args are never modified and may be kept),
// that concurrent writes are all kept exactly once, and that an executor
// using the ledger records each call once.
func TestLedger(t *testing.T, newLedger func(t *testing.T) (ledger.Ledger, func() []ledger.Record)) {
	t.Run("RoundTrip", func(t *testing.T) {
		l, read := newLedger(t)
		var want []ledger.Record
		for i := range 5 {
			r := sampleRecord(i)
			if err := l.Write(context.Background(), &r); err != nil {
				t.Fatalf("Write: %v", err)
			}
			want = append(want, sampleRecord(i))
		}
		if diff := cmp.Diff(want, read(), recordOpts); diff != "" {
			t.Errorf("records read back (-want +got):\n%s", diff)
		}
	})
	t.Run("DoesNotRetain", func(t *testing.T) {
		l, read := newLedger(t)
		r := sampleRecord(1)
		if err := l.Write(context.Background(), &r); err != nil {
			t.Fatalf("Write: %v", err)
		}
		r.CallID, r.Outcome = "changed", "changed"
		got := read()
		if len(got) != 1 || got[0].CallID != "call-1" || !jsonEqual(got[0].Args, sampleRecord(1).Args) {
			t.Errorf("the ledger kept a reference to the written record: %+v", got)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		l, read := newLedger(t)
		const workers, each = 8, 50
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					r := sampleRecord(w*each + i)
					if err := l.Write(context.Background(), &r); err != nil {
						t.Errorf("Write: %v", err)
						return
					}
				}
			})
		}
		wg.Wait()
		seen := map[string]int{}
		for _, r := range read() {
			seen[r.CallID]++
		}
		if len(seen) != workers*each {
			t.Errorf("%d distinct records, want %d", len(seen), workers*each)
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("record %s kept %d times", id, n)
			}
		}
	})
	t.Run("Executor", func(t *testing.T) {
		l, read := newLedger(t)
		spec := adapter.MustRawTool("echo", "", &jsonschema.Schema{Type: "object"}, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
			return adapter.TextResult(string(args)), nil
		}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
		e := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Ledger: l})
		defer e.Close()
		ctx := context.Background()
		for i := range 3 {
			e.Do(ctx, &adapter.Request{Spec: spec, CallID: fmt.Sprintf("c%d", i), Args: json.RawMessage(`{"password":"hunter2"}`)})
		}
		e.Call(ctx, "missing", nil)
		if err := e.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if s := e.LedgerStats(); s.Written != 4 || s.Failed != 0 || s.Dropped != 0 {
			t.Errorf("executor ledger stats %+v, want 4 written", s)
		}
		got := read()
		var ids, outcomes []string
		for _, r := range got {
			ids = append(ids, r.CallID)
			outcomes = append(outcomes, r.Outcome)
			if string(r.Args) != "" && !jsonEqual(r.Args, json.RawMessage(`{"password":"[REDACTED]"}`)) && r.Tool == "echo" {
				t.Errorf("args %s not redacted", r.Args)
			}
		}
		if diff := cmp.Diff([]string{"c0", "c1", "c2"}, ids[:min(3, len(ids))]); diff != "" || len(got) != 4 {
			t.Errorf("call ids (-want +got):\n%s (%d records)", diff, len(got))
		}
		if diff := cmp.Diff([]string{"ok", "ok", "ok", "not_found"}, outcomes); diff != "" {
			t.Errorf("outcomes (-want +got):\n%s", diff)
		}
	})
}

// TestCache checks a [adapter.Cache]. newCache returns a new, empty cache
// able to hold at least 100 entries for at least an hour.
//
// It checks misses, hits, overwrites, keys with any bytes (the executor's
// keys contain NUL), expiry after the TTL given to Add, and concurrent use.
func TestCache(t *testing.T, newCache func(t *testing.T) adapter.Cache) {
	ctx := context.Background()
	text := func(r *adapter.Result) string {
		if r == nil {
			return "<nil>"
		}
		return r.Text()
	}
	t.Run("MissHitOverwrite", func(t *testing.T) {
		c := newCache(t)
		if r, ok := c.Get(ctx, "k"); ok {
			t.Fatalf("empty cache hit: %v", text(r))
		}
		c.Add(ctx, "k", adapter.TextResult("one"), time.Hour)
		c.Add(ctx, "other", adapter.TextResult("other"), time.Hour)
		if r, ok := c.Get(ctx, "k"); !ok || text(r) != "one" {
			t.Errorf("Get(k) = %q, %v; want one", text(r), ok)
		}
		c.Add(ctx, "k", adapter.TextResult("two"), time.Hour)
		if r, ok := c.Get(ctx, "k"); !ok || text(r) != "two" {
			t.Errorf("after overwrite Get(k) = %q, %v; want two", text(r), ok)
		}
		if r, ok := c.Get(ctx, "other"); !ok || text(r) != "other" {
			t.Errorf("Get(other) = %q, %v", text(r), ok)
		}
	})
	t.Run("Keys", func(t *testing.T) {
		c := newCache(t)
		keys := []string{"tool\x00{}", "tool\x00{\"a\":1}", "tööl\x00☃", "", "tool"}
		for i, k := range keys {
			c.Add(ctx, k, adapter.TextResult(fmt.Sprint(i)), time.Hour)
		}
		for i, k := range keys {
			if r, ok := c.Get(ctx, k); !ok || text(r) != fmt.Sprint(i) {
				t.Errorf("Get(%q) = %q, %v; want %d", k, text(r), ok, i)
			}
		}
	})
	t.Run("Structured", func(t *testing.T) {
		c := newCache(t)
		in := &adapter.Result{Content: []adapter.Content{&adapter.TextContent{Text: `{"n":1}`}}, Structured: map[string]any{"n": 1.0}}
		c.Add(ctx, "k", in, time.Hour)
		r, ok := c.Get(ctx, "k")
		if !ok {
			t.Fatal("miss")
		}
		if diff := cmp.Diff(in, r, cmpopts.IgnoreUnexported(adapter.Result{})); diff != "" {
			t.Errorf("result read back (-want +got):\n%s", diff)
		}
	})
	t.Run("Expiry", func(t *testing.T) {
		c := newCache(t)
		c.Add(ctx, "short", adapter.TextResult("s"), 10*time.Millisecond)
		c.Add(ctx, "long", adapter.TextResult("l"), time.Hour)
		time.Sleep(60 * time.Millisecond)
		if r, ok := c.Get(ctx, "short"); ok {
			t.Errorf("entry outlived its TTL: %q", text(r))
		}
		if _, ok := c.Get(ctx, "long"); !ok {
			t.Error("long-lived entry expired")
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		c := newCache(t)
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := range 200 {
					k := fmt.Sprint(i % 50)
					if r, ok := c.Get(ctx, k); ok && text(r) != k {
						t.Errorf("Get(%s) = %q", k, text(r))
						return
					}
					if (i+w)%3 == 0 {
						c.Add(ctx, k, adapter.TextResult(k), time.Hour)
					}
				}
			})
		}
		wg.Wait()
	})
}

// TestTicketStore checks an [approval.Store]. newStore returns a new,
// empty store.
//
// It checks that tickets come back intact (every field, scope included) and
// as copies, lookups by key (tool, argument hash, scope and scope id; newest
// first, skipping consumed and expired tickets), state transitions with
// their errors, that an approved ticket is consumed exactly once under
// concurrent use, the caps on open tickets per subject and overall (also
// under concurrent creation, and freed by consumption and expiry), that
// lookups stay exact with many tickets held, listing, and a
// [approval.Deferred] approval flow over the store in which one caller
// cannot use another's approval or ticket.
func TestTicketStore(t *testing.T, newStore func(t *testing.T) approval.Store) {
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	none := approval.Caps{}
	ticket := func(id, tool, hash string, created time.Time) *approval.Ticket {
		return &approval.Ticket{
			ID: id, Tool: tool, ArgsHash: hash, Args: json.RawMessage(`{"a":1}`), ArgsSize: 7,
			Scope: approval.ScopeSubject, ScopeID: "s", CallID: "c-" + id, RunID: "r", Session: "sess", Subject: "s",
			State: approval.TicketPending, Created: created, Expires: created.Add(time.Hour),
		}
	}
	key := func(tool, hash string) approval.TicketKey {
		return approval.TicketKey{Tool: tool, ArgsHash: hash, Scope: approval.ScopeSubject, ScopeID: "s"}
	}
	ticketOpts := cmp.Options{
		cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
		cmp.Comparer(func(a, b json.RawMessage) bool { return jsonEqual(a, b) }),
	}
	t.Run("CreateGet", func(t *testing.T) {
		s := newStore(t)
		in := ticket("t1", "rm", "h1", t0)
		if err := s.Create(ctx, in, none); err != nil {
			t.Fatalf("Create: %v", err)
		}
		if err := s.Create(ctx, ticket("t1", "rm", "h1", t0), none); err == nil {
			t.Error("Create accepted a duplicate id")
		}
		got, err := s.Get(ctx, "t1")
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if diff := cmp.Diff(ticket("t1", "rm", "h1", t0), got, ticketOpts); diff != "" {
			t.Errorf("ticket read back (-want +got):\n%s", diff)
		}
		got.State, got.Tool = approval.TicketApproved, "changed"
		in.State = approval.TicketApproved
		again, _ := s.Get(ctx, "t1")
		if again.State != approval.TicketPending || again.Tool != "rm" {
			t.Errorf("Get or Create shares memory with the caller: %+v", again)
		}
		if _, err := s.Get(ctx, "nope"); !errors.Is(err, adapter.ErrTicketNotFound) {
			t.Errorf("Get(unknown) = %v, want ErrTicketNotFound", err)
		}
	})
	find := func(t *testing.T, s approval.Store, k approval.TicketKey, now time.Time) string {
		t.Helper()
		tk, err := s.Find(ctx, k, now)
		if errors.Is(err, adapter.ErrTicketNotFound) {
			return "none"
		}
		if err != nil {
			t.Fatalf("Find: %v", err)
		}
		if tk.Key() != k {
			t.Errorf("Find(%+v) returned a ticket with key %+v", k, tk.Key())
		}
		return tk.ID
	}
	t.Run("Find", func(t *testing.T) {
		s := newStore(t)
		for _, tk := range []*approval.Ticket{
			ticket("old", "rm", "h", t0),
			ticket("new", "rm", "h", t0.Add(time.Minute)),
			ticket("other-hash", "rm", "h2", t0.Add(2*time.Minute)),
			ticket("other-tool", "mv", "h", t0.Add(3*time.Minute)),
		} {
			must(t, s.Create(ctx, tk, none))
		}
		now := t0.Add(5 * time.Minute)
		if got := find(t, s, key("rm", "h"), now); got != "new" {
			t.Errorf("Find(rm, h) = %s, want the newest: new", got)
		}
		if got := find(t, s, key("rm", "h2"), now); got != "other-hash" {
			t.Errorf("Find(rm, h2) = %s", got)
		}
		if got := find(t, s, key("cp", "h"), now); got != "none" {
			t.Errorf("Find(cp, h) = %s, want none", got)
		}
		// Approved and denied tickets are still found; consumed ones are not.
		must(t, s.Transition(ctx, "new", approval.TicketPending, approval.TicketApproved, "", "a", now))
		if got := find(t, s, key("rm", "h"), now); got != "new" {
			t.Errorf("approved ticket not found: %s", got)
		}
		must(t, s.Transition(ctx, "new", approval.TicketApproved, approval.TicketConsumed, "", "", now))
		if got := find(t, s, key("rm", "h"), now); got != "old" {
			t.Errorf("after consuming new, Find = %s, want old", got)
		}
		must(t, s.Transition(ctx, "old", approval.TicketPending, approval.TicketDenied, "no", "b", now))
		if got := find(t, s, key("rm", "h"), now); got != "old" {
			t.Errorf("denied ticket not found: %s", got)
		}
		// Expired tickets are not found.
		if got := find(t, s, key("rm", "h2"), t0.Add(3*time.Hour)); got != "none" {
			t.Errorf("expired ticket found: %s", got)
		}
	})
	t.Run("FindScope", func(t *testing.T) {
		s := newStore(t)
		mk := func(id string, scope approval.Scope, scopeID string) {
			tk := ticket(id, "rm", "h", t0)
			tk.Scope, tk.ScopeID, tk.Subject = scope, scopeID, scopeID
			must(t, s.Create(ctx, tk, none))
		}
		mk("alice", approval.ScopeSubject, "alice")
		mk("run1", approval.ScopeRun, "run1")
		mk("global", approval.ScopeGlobal, "")
		now := t0.Add(time.Minute)
		for _, tt := range []struct {
			scope   approval.Scope
			scopeID string
			want    string
		}{
			{approval.ScopeSubject, "alice", "alice"},
			{approval.ScopeSubject, "bob", "none"},
			{approval.ScopeSubject, "", "none"},
			{approval.ScopeRun, "run1", "run1"},
			{approval.ScopeRun, "alice", "none"},
			{approval.ScopeSession, "run1", "none"},
			{approval.ScopeGlobal, "", "global"},
		} {
			k := approval.TicketKey{Tool: "rm", ArgsHash: "h", Scope: tt.scope, ScopeID: tt.scopeID}
			if got := find(t, s, k, now); got != tt.want {
				t.Errorf("Find(scope %s, id %q) = %s, want %s", tt.scope, tt.scopeID, got, tt.want)
			}
		}
	})
	t.Run("Transition", func(t *testing.T) {
		s := newStore(t)
		must(t, s.Create(ctx, ticket("t", "rm", "h", t0), none))
		now := t0.Add(time.Minute)
		if err := s.Transition(ctx, "t", approval.TicketApproved, approval.TicketConsumed, "", "", now); !errors.Is(err, adapter.ErrTicketState) {
			t.Errorf("transition from the wrong state: %v, want ErrTicketState", err)
		}
		if err := s.Transition(ctx, "nope", approval.TicketPending, approval.TicketApproved, "", "", now); !errors.Is(err, adapter.ErrTicketNotFound) {
			t.Errorf("transition of an unknown ticket: %v, want ErrTicketNotFound", err)
		}
		if err := s.Transition(ctx, "t", approval.TicketPending, approval.TicketApproved, "", "", t0.Add(2*time.Hour)); !errors.Is(err, adapter.ErrTicketExpired) {
			t.Errorf("transition of an expired ticket: %v, want ErrTicketExpired", err)
		}
		must(t, s.Transition(ctx, "t", approval.TicketPending, approval.TicketDenied, "too risky", "dave", now))
		got, err := s.Get(ctx, "t")
		if err != nil || got.State != approval.TicketDenied || got.Reason != "too risky" || got.Approver != "dave" {
			t.Errorf("after deny: %+v, %v", got, err)
		}
	})
	t.Run("ConsumeOnce", func(t *testing.T) {
		s := newStore(t)
		must(t, s.Create(ctx, ticket("t", "rm", "h", t0), none))
		now := t0.Add(time.Minute)
		must(t, s.Transition(ctx, "t", approval.TicketPending, approval.TicketApproved, "", "a", now))
		var won, lost atomic.Int64
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				err := s.Transition(ctx, "t", approval.TicketApproved, approval.TicketConsumed, "", "", now)
				switch {
				case err == nil:
					won.Add(1)
				case errors.Is(err, adapter.ErrTicketState):
					lost.Add(1)
				default:
					t.Errorf("Transition: %v", err)
				}
			})
		}
		wg.Wait()
		if won.Load() != 1 || lost.Load() != 15 {
			t.Errorf("%d consumed the ticket, %d lost; want 1 and 15", won.Load(), lost.Load())
		}
	})
	t.Run("Caps", func(t *testing.T) {
		s := newStore(t)
		caps := approval.Caps{PerSubject: 2, Total: 3}
		mk := func(id, subject string, created time.Time) error {
			tk := ticket(id, "rm", id, created)
			tk.Subject, tk.ScopeID = subject, subject
			return s.Create(ctx, tk, caps)
		}
		capErr := func(err error, perSubject bool) bool {
			var ce *approval.CapError
			return errors.Is(err, adapter.ErrTicketCap) && errors.As(err, &ce) && ce.PerSubject == perSubject
		}
		must(t, mk("a1", "alice", t0))
		must(t, mk("a2", "alice", t0))
		if err := mk("a3", "alice", t0); !capErr(err, true) {
			t.Errorf("third ticket of alice: %v, want a per-subject *TicketCapError", err)
		}
		if _, err := s.Get(ctx, "a3"); !errors.Is(err, adapter.ErrTicketNotFound) {
			t.Errorf("a refused ticket was stored: %v", err)
		}
		must(t, mk("b1", "bob", t0))
		if err := mk("c1", "carol", t0); !capErr(err, false) {
			t.Errorf("fourth ticket overall: %v, want a total *TicketCapError", err)
		}
		// Consuming a ticket frees its room; approving or denying does not.
		must(t, s.Transition(ctx, "a1", approval.TicketPending, approval.TicketApproved, "", "x", t0))
		if err := mk("a4", "alice", t0); !capErr(err, true) {
			t.Errorf("an approved, unconsumed ticket freed room: %v", err)
		}
		must(t, s.Transition(ctx, "a1", approval.TicketApproved, approval.TicketConsumed, "", "", t0))
		must(t, mk("a5", "alice", t0))
		// Expired tickets free their room.
		must(t, mk("c2", "carol", t0.Add(2*time.Hour)))
		must(t, mk("c3", "carol", t0.Add(2*time.Hour)))
	})
	t.Run("CapsConcurrent", func(t *testing.T) {
		s := newStore(t)
		caps := approval.Caps{PerSubject: 5, Total: 8}
		var created, refused atomic.Int64
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := range 10 {
					tk := ticket(fmt.Sprintf("w%d-%d", w, i), "rm", fmt.Sprintf("h%d-%d", w, i), t0)
					tk.Subject = fmt.Sprint(w % 2)
					switch err := s.Create(ctx, tk, caps); {
					case err == nil:
						created.Add(1)
					case errors.Is(err, adapter.ErrTicketCap):
						refused.Add(1)
					default:
						t.Errorf("Create: %v", err)
					}
				}
			})
		}
		wg.Wait()
		if created.Load() != 8 || refused.Load() != 32 {
			t.Errorf("%d created, %d refused; want 8 and 32 (caps %+v)", created.Load(), refused.Load(), caps)
		}
		n := 0
		for _, err := range s.List(ctx, approval.TicketPending) {
			must(t, err)
			n++
		}
		if n != 8 {
			t.Errorf("%d pending tickets listed, want 8", n)
		}
	})
	t.Run("Many", func(t *testing.T) {
		s := newStore(t)
		const n = 2000
		for i := range n {
			tk := ticket(fmt.Sprintf("t%d", i), "rm", fmt.Sprintf("h%d", i), t0)
			tk.Subject, tk.ScopeID = fmt.Sprintf("u%d", i%50), fmt.Sprintf("u%d", i%50)
			must(t, s.Create(ctx, tk, approval.Caps{PerSubject: n, Total: n}))
		}
		now := t0.Add(time.Minute)
		for _, i := range []int{0, 1, n / 2, n - 1} {
			k := approval.TicketKey{Tool: "rm", ArgsHash: fmt.Sprintf("h%d", i), Scope: approval.ScopeSubject, ScopeID: fmt.Sprintf("u%d", i%50)}
			if got := find(t, s, k, now); got != fmt.Sprintf("t%d", i) {
				t.Errorf("Find(h%d) = %s", i, got)
			}
			k.ScopeID = fmt.Sprintf("u%d", (i+1)%50)
			if got := find(t, s, k, now); got != "none" {
				t.Errorf("Find(h%d) in another subject = %s, want none", i, got)
			}
		}
	})
	t.Run("List", func(t *testing.T) {
		s := newStore(t)
		for i, id := range []string{"a", "b", "c"} {
			must(t, s.Create(ctx, ticket(id, "rm", id, t0.Add(time.Duration(i)*time.Second)), none))
		}
		must(t, s.Transition(ctx, "b", approval.TicketPending, approval.TicketApproved, "", "", t0))
		list := func(state approval.TicketState) []string {
			var ids []string
			for tk, err := range s.List(ctx, state) {
				if err != nil {
					t.Fatalf("List: %v", err)
				}
				ids = append(ids, tk.ID)
			}
			return ids
		}
		if diff := cmp.Diff([]string{"a", "c"}, list(approval.TicketPending)); diff != "" {
			t.Errorf("pending (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"a", "b", "c"}, list(0)); diff != "" {
			t.Errorf("all (-want +got):\n%s", diff)
		}
		// Stopping early is allowed.
		for range s.List(ctx, 0) {
			break
		}
	})
	t.Run("Deferred", func(t *testing.T) {
		s := newStore(t)
		var runs atomic.Int64
		spec := adapter.MustRawTool("rm", "", &jsonschema.Schema{Type: "object"}, func(context.Context, json.RawMessage) (*adapter.Result, error) {
			runs.Add(1)
			return adapter.TextResult("done"), nil
		}, nil)
		d := &approval.Deferred{Store: s}
		e := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d}})
		defer e.Close()
		alice := adapter.WithIdentity(ctx, &caller.Identity{Subject: "alice"})
		bob := adapter.WithIdentity(ctx, &caller.Identity{Subject: "bob"})
		call := func(ctx context.Context, args, ticket string) error {
			_, err := e.Do(ctx, &adapter.Request{Spec: spec, Args: json.RawMessage(args), Ticket: ticket})
			return err
		}
		err := call(alice, `{"path":"/tmp/x","force":true}`, "")
		var ae *adapter.Error
		if !errors.As(err, &ae) || ae.Kind != adapter.KindApprovalPending || ae.Ticket == "" {
			t.Fatalf("first call: %v, want approval_pending with a ticket", err)
		}
		must(t, d.Approve(ctx, ae.Ticket, "erin"))
		// Another caller neither finds alice's approval nor may present her ticket.
		if err := call(bob, `{"path":"/tmp/x","force":true}`, ""); adapter.KindOf(err) != adapter.KindApprovalPending || runs.Load() != 0 {
			t.Errorf("bob's identical call: %v (runs %d), want a pending ticket of his own", err, runs.Load())
		}
		if err := call(bob, `{"path":"/tmp/x","force":true}`, ae.Ticket); adapter.KindOf(err) != adapter.KindApprovalDenied || runs.Load() != 0 {
			t.Errorf("bob presenting alice's ticket: %v (runs %d), want approval_denied", err, runs.Load())
		}
		if err := call(alice, `{ "force" : true, "path" : "/tmp/x" }`, ""); err != nil || runs.Load() != 1 {
			t.Fatalf("approved retry: %v (runs %d)", err, runs.Load())
		}
		if err := call(alice, `{"path":"/tmp/x","force":true}`, ""); adapter.KindOf(err) != adapter.KindApprovalPending || runs.Load() != 1 {
			t.Errorf("second retry: %v (runs %d), want a new pending ticket", err, runs.Load())
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
