package adaptertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/caller"
	"github.com/agentadapter/agentadapter/adapter/canonical"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// An Opener opens one instance of a store on a database the checks
// created for one subtest: call it twice for two replicas sharing that
// database (two processes, say). An in-memory store returns the same
// instance each time. Stores are closed by the constructor's t.Cleanup.
type Opener[T any] func() T

// flush waits for a buffering ledger to store what it was given.
func flush(t *testing.T, l ledger.Ledger) {
	t.Helper()
	if f, ok := l.(interface{ Flush(context.Context) error }); ok {
		if err := f.Flush(context.Background()); err != nil {
			t.Fatalf("Flush: %v", err)
		}
	}
}

func query(t *testing.T, l ledger.Ledger, q ledger.Query) []ledger.Record {
	t.Helper()
	lr, ok := l.(ledger.Reader)
	if !ok {
		t.Fatalf("%T does not implement ledger.Reader", l)
	}
	var out []ledger.Record
	for r, err := range lr.Query(context.Background(), q) {
		if err != nil {
			t.Fatalf("Query(%+v): %v", q, err)
		}
		out = append(out, r)
	}
	return out
}

func callIDs(rs []ledger.Record) []string {
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.CallID)
	}
	return ids
}

// TestLedgerQuery checks an [ledger.Reader] (that is also an
// [ledger.Ledger]). newDB makes a new, empty database and returns its
// [Opener]; a ledger that buffers is flushed through its
// Flush(context.Context) error method before reading.
//
// It checks each filter of [ledger.Query] alone and combined
// (Ticket included: an exact match, tkt_5 is not tkt_50), the
// limit, paging with the After cursor in both orders (every record once),
// stopping early, that Seq numbers are distinct and increasing, and that
// two replicas writing at once both read every record exactly once.
func TestLedgerQuery(t *testing.T, newDB func(t *testing.T) Opener[ledger.Ledger]) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	mk := func(i int) ledger.Record {
		r := sampleRecord(i)
		r.Time = t0.Add(time.Duration(i) * time.Minute)
		r.RunID = fmt.Sprintf("run-%d", i%3)
		r.Tool = []string{"read", "write"}[i%2]
		r.Subject = []string{"ann", "bob", "cy", "dee"}[i%4]
		r.Outcome = []string{"ok", "ok", "tool_error"}[i%3]
		r.Ticket = []string{"", "tkt_5", "tkt_50", "tkt_"}[i%4] // tkt_5 must not match tkt_50
		return r
	}
	const n = 36
	var all []ledger.Record
	l := newDB(t)()
	for i := range n {
		r := mk(i)
		if err := l.Write(ctx, &r); err != nil {
			t.Fatalf("Write: %v", err)
		}
		all = append(all, mk(i))
	}
	flush(t, l)
	want := func(keep func(r ledger.Record) bool) []string {
		var ids []string
		for _, r := range all {
			if keep(r) {
				ids = append(ids, r.CallID)
			}
		}
		return ids
	}
	tests := []struct {
		name string
		q    ledger.Query
		keep func(r ledger.Record) bool
	}{
		{"All", ledger.Query{}, func(ledger.Record) bool { return true }},
		{"Run", ledger.Query{Run: "run-1"}, func(r ledger.Record) bool { return r.RunID == "run-1" }},
		{"Tool", ledger.Query{Tool: "write"}, func(r ledger.Record) bool { return r.Tool == "write" }},
		{"Subject", ledger.Query{Subject: "cy"}, func(r ledger.Record) bool { return r.Subject == "cy" }},
		{"Outcome", ledger.Query{Outcome: "tool_error"}, func(r ledger.Record) bool { return r.Outcome == "tool_error" }},
		{"Since", ledger.Query{Since: t0.Add(30 * time.Minute)}, func(r ledger.Record) bool { return !r.Time.Before(t0.Add(30 * time.Minute)) }},
		{"Until", ledger.Query{Until: t0.Add(5 * time.Minute)}, func(r ledger.Record) bool { return r.Time.Before(t0.Add(5 * time.Minute)) }},
		{"Combined", ledger.Query{Run: "run-0", Tool: "read", Subject: "ann", Since: t0.Add(time.Minute)},
			func(r ledger.Record) bool {
				return r.RunID == "run-0" && r.Tool == "read" && r.Subject == "ann" && !r.Time.Before(t0.Add(time.Minute))
			}},
		{"Ticket", ledger.Query{Ticket: "tkt_5"}, func(r ledger.Record) bool { return r.Ticket == "tkt_5" }},
		{"TicketAndOutcome", ledger.Query{Ticket: "tkt_50", Outcome: "ok"}, func(r ledger.Record) bool { return r.Ticket == "tkt_50" && r.Outcome == "ok" }},
		{"NoMatch", ledger.Query{Run: "run-9"}, func(ledger.Record) bool { return false }},
		{"NoTicket", ledger.Query{Ticket: "tkt_9"}, func(ledger.Record) bool { return false }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(want(tt.keep), callIDs(query(t, l, tt.q))); diff != "" {
				t.Errorf("Query(%+v) call ids (-want +got):\n%s", tt.q, diff)
			}
		})
	}
	t.Run("Fields", func(t *testing.T) {
		got := query(t, l, ledger.Query{Limit: 1, After: query(t, l, ledger.Query{Limit: 4})[3].Seq})
		if len(got) != 1 {
			t.Fatalf("%d records", len(got))
		}
		w := mk(4)
		if diff := cmp.Diff(w, got[0], recordOpts, chainFields); diff != "" {
			t.Errorf("record read back (-want +got):\n%s", diff)
		}
	})
	t.Run("SeqIncreasing", func(t *testing.T) {
		rs := query(t, l, ledger.Query{})
		for i := 1; i < len(rs); i++ {
			if rs[i].Seq <= rs[i-1].Seq {
				t.Fatalf("Seq %d after %d", rs[i].Seq, rs[i-1].Seq)
			}
		}
	})
	t.Run("LimitNewest", func(t *testing.T) {
		if diff := cmp.Diff([]string{"call-35", "call-34", "call-33"}, callIDs(query(t, l, ledger.Query{Newest: true, Limit: 3}))); diff != "" {
			t.Errorf("newest three (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"call-0", "call-1"}, callIDs(query(t, l, ledger.Query{Limit: 2}))); diff != "" {
			t.Errorf("oldest two (-want +got):\n%s", diff)
		}
	})
	for _, newest := range []bool{false, true} {
		t.Run(fmt.Sprintf("Pages/newest=%v", newest), func(t *testing.T) {
			var got []string
			var after int64
			for pages := 0; ; pages++ {
				if pages > n {
					t.Fatal("paging does not end")
				}
				page := query(t, l, ledger.Query{Tool: "read", Limit: 5, After: after, Newest: newest})
				if len(page) == 0 {
					break
				}
				got = append(got, callIDs(page)...)
				after = page[len(page)-1].Seq
			}
			w := want(func(r ledger.Record) bool { return r.Tool == "read" })
			if newest {
				slices.Reverse(w)
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("pages (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("StopEarly", func(t *testing.T) {
		for range l.(ledger.Reader).Query(ctx, ledger.Query{}) {
			break
		}
		if got := len(query(t, l, ledger.Query{})); got != n {
			t.Errorf("after stopping early, %d records", got)
		}
	})
	t.Run("Replicas", func(t *testing.T) {
		open := newDB(t)
		a, b := open(), open()
		const each = 100
		var wg sync.WaitGroup
		for w, l := range []ledger.Ledger{a, b} {
			wg.Go(func() {
				for i := range each {
					r := sampleRecord(w*each + i)
					if err := l.Write(ctx, &r); err != nil {
						t.Errorf("Write: %v", err)
						return
					}
				}
			})
		}
		wg.Wait()
		flush(t, a)
		flush(t, b)
		for name, l := range map[string]ledger.Ledger{"a": a, "b": b} {
			seen := map[string]int{}
			seqs := map[int64]bool{}
			for _, r := range query(t, l, ledger.Query{}) {
				seen[r.CallID]++
				if seqs[r.Seq] {
					t.Errorf("replica %s: Seq %d twice", name, r.Seq)
				}
				seqs[r.Seq] = true
			}
			if len(seen) != 2*each {
				t.Errorf("replica %s reads %d distinct records, want %d", name, len(seen), 2*each)
			}
			for id, k := range seen {
				if k != 1 {
					t.Errorf("replica %s: record %s read %d times", name, id, k)
				}
			}
		}
	})
}

var chainFields = cmp.FilterPath(func(p cmp.Path) bool {
	switch p.Last().String() {
	case ".Seq", ".Prev", ".Hash":
		return true
	}
	return false
}, cmp.Ignore())

// TestLedgerChain checks the hash chain of an [ledger.Verifier]
// (that is also an [ledger.Ledger] and an [ledger.Reader]).
// newDB is as for [TestLedgerQuery].
//
// It checks that records written through two replicas form one chain
// (Seq 1, 2, ... each linked to the one before by Prev = Hash of the one
// before, each Hash = [ledger.Hash]), that Verify accepts it, and
// that a JSONL export verifies offline and names the first edited,
// deleted or inserted line. A ledger that is also an [ledger.HeadVerifier]
// must give both replicas the shared chain's head and check a kept head
// against the chain. Tampering with the database itself is
// specific to each store; test it beside the store.
func TestLedgerChain(t *testing.T, newDB func(t *testing.T) Opener[ledger.Ledger]) {
	ctx := context.Background()
	open := newDB(t)
	a, b := open(), open()
	for i := range 20 {
		l := a
		if i%2 == 1 {
			l = b
		}
		r := sampleRecord(i)
		if err := l.Write(ctx, &r); err != nil {
			t.Fatalf("Write: %v", err)
		}
		flush(t, l) // alternate replicas record by record
	}
	recs := query(t, a, ledger.Query{})
	if len(recs) != 20 {
		t.Fatalf("%d records, want 20", len(recs))
	}
	t.Run("Links", func(t *testing.T) {
		prev := ""
		for i, r := range recs {
			if r.Seq != int64(i+1) || r.Prev != prev || r.Hash != ledger.Hash(&r) {
				t.Fatalf("record %d: Seq %d, Prev %.12s (want %.12s), Hash %.12s (want %.12s)", i, r.Seq, r.Prev, prev, r.Hash, ledger.Hash(&r))
			}
			prev = r.Hash
		}
	})
	t.Run("Verify", func(t *testing.T) {
		for _, l := range []ledger.Ledger{a, b} {
			v, ok := l.(ledger.Verifier)
			if !ok {
				t.Fatalf("%T does not implement ledger.Verifier", l)
			}
			if err := v.Verify(ctx); err != nil {
				t.Errorf("Verify: %v", err)
			}
		}
	})
	t.Run("Head", func(t *testing.T) {
		last := ledger.Head{Seq: recs[19].Seq, Hash: recs[19].Hash}
		for _, l := range []ledger.Ledger{a, b} {
			v, ok := l.(ledger.HeadVerifier)
			if !ok {
				t.Skipf("%T does not implement ledger.HeadVerifier", l)
			}
			if h, err := v.Head(ctx); err != nil || h != last {
				t.Errorf("Head = %v, %v; want %v, the last record of the shared chain", h, err, last)
			}
			older := ledger.Head{Seq: recs[9].Seq, Hash: recs[9].Hash}
			for _, kept := range []ledger.Head{{}, older, last} {
				if err := v.VerifyHead(ctx, kept); err != nil {
					t.Errorf("VerifyHead(%v) = %v; want nil", kept, err)
				}
			}
			other := strings.Repeat("0", 64)
			for _, tt := range []struct {
				kept    ledger.Head
				seq     int64
				problem ledger.Problem
			}{
				{ledger.Head{Seq: 12, Hash: other}, 12, ledger.Replaced},
				{ledger.Head{Seq: 21, Hash: other}, 21, ledger.Deleted},
			} {
				var ce *ledger.ChainError
				if err := v.VerifyHead(ctx, tt.kept); !errors.As(err, &ce) || ce.Seq != tt.seq || ce.Problem != tt.problem || ce.Kept != tt.kept {
					t.Errorf("VerifyHead(%v) = %v; want record %d %s, naming the kept head", tt.kept, err, tt.seq, tt.problem)
				}
			}
		}
	})
	var export bytes.Buffer
	if err := ledger.WriteJSONL(&export, a.(ledger.Reader).Query(ctx, ledger.Query{})); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(export.String(), "\n"), "\n")
	verify := func(lines []string) error {
		_, err := ledger.Verify(ledger.ReadJSONL(strings.NewReader(strings.Join(lines, ""))), ledger.Head{})
		return err
	}
	t.Run("ExportVerifies", func(t *testing.T) {
		if err := verify(lines); err != nil {
			t.Errorf("export does not verify: %v", err)
		}
	})
	forged := func(seq int64, prev string) string {
		r := sampleRecord(99)
		r.Seq, r.Prev = seq, prev
		r.Hash = ledger.Hash(&r)
		b, _ := json.Marshal(&r)
		return string(b) + "\n"
	}
	shift := func(ls []string) []string { // renumber lines after an insertion
		out := make([]string, len(ls))
		for i, l := range ls {
			var r ledger.Record
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			r.Seq++
			b, _ := json.Marshal(&r)
			out[i] = string(b) + "\n"
		}
		return out
	}
	tamper := []struct {
		name    string
		lines   []string
		seq     int64
		problem ledger.Problem
	}{
		{"Edited", slices.Concat(lines[:6], []string{strings.Replace(lines[6], `"outcome":"tool_error"`, `"outcome":"ok"`, 1)}, lines[7:]), 7, ledger.Edited},
		{"Deleted", slices.Concat(lines[:9], lines[10:]), 10, ledger.Deleted},
		{"DeletedFirst", lines[1:], 1, ledger.Deleted},
		{"Inserted", slices.Concat(lines[:4], []string{forged(5, recs[3].Hash)}, shift(lines[4:])), 5, ledger.Inserted},
	}
	for _, tt := range tamper {
		t.Run("Export"+tt.name, func(t *testing.T) {
			err := verify(tt.lines)
			var ce *ledger.ChainError
			if !errors.As(err, &ce) || ce.Seq != tt.seq || ce.Problem != tt.problem || !errors.Is(err, ledger.ErrChainBroken) {
				t.Errorf("VerifyChain = %v, want record %d %s", err, tt.seq, tt.problem)
			}
		})
	}
}

// TestLedgerReplicas checks that executors on two replicas of a ledger
// record every call exactly once, with the hashes that link approval, call
// and result (ArgsHash of the arguments that ran, ResultHash of the
// result).
func TestLedgerReplicas(t *testing.T, newDB func(t *testing.T) Opener[ledger.Ledger]) {
	ctx := context.Background()
	open := newDB(t)
	spec := adapter.MustRawTool("echo", "", &jsonschema.Schema{Type: "object"}, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		var v struct{ B int }
		err := json.Unmarshal(args, &v)
		return adapter.TextResult(fmt.Sprint("b=", v.B)), err
	}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})
	var execs []*adapter.Executor
	for range 2 {
		e := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Ledger: open()})
		execs = append(execs, e)
	}
	const each = 50
	var wg sync.WaitGroup
	for w, e := range execs {
		wg.Go(func() {
			for i := range each {
				if _, err := e.Do(ctx, &adapter.Request{Spec: spec, CallID: fmt.Sprintf("c-%d-%d", w, i), Args: json.RawMessage(fmt.Sprintf(`{"b":%d, "a":"x"}`, i))}); err != nil {
					t.Errorf("Do: %v", err)
				}
			}
		})
	}
	wg.Wait()
	for _, e := range execs {
		if err := e.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		e.Close()
	}
	l := open()
	flush(t, l)
	seen := map[string]int{}
	for _, r := range query(t, l, ledger.Query{Tool: "echo"}) {
		seen[r.CallID]++
		var i int
		fmt.Sscanf(r.CallID[strings.LastIndexByte(r.CallID, '-')+1:], "%d", &i)
		wantArgs, _ := canonical.Hash(json.RawMessage(fmt.Sprintf(`{"a":"x","b":%d}`, i)))
		if r.ArgsHash != wantArgs {
			t.Errorf("%s: ArgsHash %s, want %s", r.CallID, r.ArgsHash, wantArgs)
		}
		if want := adapter.ResultHash(adapter.TextResult(fmt.Sprint("b=", i))); r.ResultHash != want {
			t.Errorf("%s: ResultHash %s, want %s", r.CallID, r.ResultHash, want)
		}
	}
	if len(seen) != 2*each {
		t.Errorf("%d calls recorded, want %d", len(seen), 2*each)
	}
	for id, k := range seen {
		if k != 1 {
			t.Errorf("call %s recorded %d times", id, k)
		}
	}
	if v, ok := l.(ledger.Verifier); ok {
		if err := v.Verify(ctx); err != nil {
			t.Errorf("Verify: %v", err)
		}
	}
}

// TestCacheReplicas checks that two replicas of an [adapter.Cache] share
// entries: what one adds, the other reads, until it expires; an overwrite
// through one is read through the other.
func TestCacheReplicas(t *testing.T, newDB func(t *testing.T) Opener[adapter.Cache]) {
	ctx := context.Background()
	open := newDB(t)
	a, b := open(), open()
	a.Add(ctx, "alice\x00tool\x00{}", adapter.TextResult("for alice"), time.Hour)
	if r, ok := b.Get(ctx, "alice\x00tool\x00{}"); !ok || r.Text() != "for alice" {
		t.Errorf("replica b: Get = %v, %v; want the entry added through a", r, ok)
	}
	if _, ok := b.Get(ctx, "bob\x00tool\x00{}"); ok {
		t.Error("another subject's key hit")
	}
	b.Add(ctx, "alice\x00tool\x00{}", adapter.TextResult("v2"), time.Hour)
	if r, ok := a.Get(ctx, "alice\x00tool\x00{}"); !ok || r.Text() != "v2" {
		t.Errorf("replica a after overwrite through b: %v, %v", r, ok)
	}
	a.Add(ctx, "short", adapter.TextResult("s"), 20*time.Millisecond)
	time.Sleep(80 * time.Millisecond)
	if _, ok := b.Get(ctx, "short"); ok {
		t.Error("an expired entry is read through the other replica")
	}
}

// TestTicketReplicas checks that two replicas of an [approval.Store]
// share tickets: a ticket created through one is decided through the
// other and consumed exactly once among many racing callers on both. If
// the store can wait for a decision (a Wait(ctx, id) method), a waiter on
// one replica is woken by a decision through the other.
func TestTicketReplicas(t *testing.T, newDB func(t *testing.T) Opener[approval.Store]) {
	ctx := context.Background()
	open := newDB(t)
	a, b := open(), open()
	now := time.Now()
	tk := &approval.Ticket{ID: "tkt-r", Tool: "rm", ArgsHash: "h", Scope: approval.ScopeSubject, ScopeID: "ann", Subject: "ann",
		State: approval.TicketPending, Created: now, Expires: now.Add(time.Hour)}
	must(t, a.Create(ctx, tk, approval.Caps{}))
	type waiter interface {
		Wait(ctx context.Context, id string) (*approval.Ticket, error)
	}
	woke := make(chan *approval.Ticket, 1)
	if w, ok := a.(waiter); ok {
		go func() {
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			got, err := w.Wait(wctx, "tkt-r")
			if err != nil {
				t.Errorf("Wait: %v", err)
			}
			woke <- got
		}()
	} else {
		woke <- nil
	}
	if _, err := b.Find(ctx, approval.TicketKey{Tool: "rm", ArgsHash: "h", Scope: approval.ScopeSubject, ScopeID: "bob"}, now); !errors.Is(err, adapter.ErrTicketNotFound) {
		t.Errorf("replica b found another subject's ticket: %v", err)
	}
	got, err := b.Find(ctx, tk.Key(), now)
	if err != nil || got.ID != "tkt-r" {
		t.Fatalf("replica b Find = %v, %v", got, err)
	}
	must(t, b.Transition(ctx, "tkt-r", approval.TicketPending, approval.TicketApproved, "", "op", now))
	if w := <-woke; w != nil && w.State != approval.TicketApproved {
		t.Errorf("waiter woke with state %s, want approved", w.State)
	}
	var won atomic.Int64
	var wg sync.WaitGroup
	for i := range 32 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			err := s.Transition(ctx, "tkt-r", approval.TicketApproved, approval.TicketConsumed, "", "", now)
			if err == nil {
				won.Add(1)
			} else if !errors.Is(err, adapter.ErrTicketState) {
				t.Errorf("Transition: %v", err)
			}
		})
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Errorf("%d callers consumed the ticket, want 1", won.Load())
	}
	// Caps hold across replicas: of many racing creations for one subject
	// through both, exactly the cap succeed.
	var created atomic.Int64
	for i := range 12 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			tk := &approval.Ticket{ID: fmt.Sprintf("cap-%d", i), Tool: "rm", ArgsHash: fmt.Sprint(i), Scope: approval.ScopeSubject, ScopeID: "cy", Subject: "cy",
				State: approval.TicketPending, Created: now, Expires: now.Add(time.Hour)}
			err := s.Create(ctx, tk, approval.Caps{PerSubject: 3})
			switch {
			case err == nil:
				created.Add(1)
			case !errors.Is(err, adapter.ErrTicketCap):
				t.Errorf("Create: %v", err)
			}
		})
	}
	wg.Wait()
	if created.Load() != 3 {
		t.Errorf("%d tickets created for one subject with a cap of 3", created.Load())
	}
}

// TestTicketEditor checks an [adapter.TicketEditor] (that is also an
// [approval.Store]). newDB is as for [TestLedgerQuery].
//
// It checks that ApproveEdited moves only a pending, unexpired ticket
// (ErrTicketState, ErrTicketExpired, ErrTicketNotFound otherwise) and keeps
// the arguments and the approver; that of many racing decisions through
// two replicas exactly one wins and the ticket holds the winner's
// arguments; and, through an executor with [approval.Deferred] on one
// replica and the approver on the other, that the resumed call runs with
// the edited arguments exactly once, only for the caller who asked.
func TestTicketEditor(t *testing.T, newDB func(t *testing.T) Opener[approval.Store]) {
	ctx := context.Background()
	t0 := time.Now()
	editor := func(t *testing.T, s approval.Store) approval.Editor {
		t.Helper()
		ed, ok := s.(approval.Editor)
		if !ok {
			t.Fatalf("%T does not implement adapter.TicketEditor", s)
		}
		return ed
	}
	pending := func(t *testing.T, s approval.Store, id string) {
		t.Helper()
		must(t, s.Create(ctx, &approval.Ticket{ID: id, Tool: "rm", ArgsHash: id, Args: json.RawMessage(`{"path":"/etc"}`),
			Scope: approval.ScopeSubject, ScopeID: "ann", Subject: "ann", State: approval.TicketPending,
			Created: t0, Expires: t0.Add(time.Hour)}, approval.Caps{}))
	}
	t.Run("States", func(t *testing.T) {
		open := newDB(t)
		s := open()
		ed := editor(t, s)
		pending(t, s, "e1")
		must(t, ed.ApproveEdited(ctx, "e1", json.RawMessage(`{"path":"/tmp/x"}`), "erin", t0))
		got, err := s.Get(ctx, "e1")
		if err != nil || got.State != approval.TicketApproved || got.Approver != "erin" || !jsonEqual(got.Edited, []byte(`{"path":"/tmp/x"}`)) ||
			!jsonEqual(got.Args, []byte(`{"path":"/etc"}`)) {
			t.Fatalf("after ApproveEdited: %+v, %v; want approved by erin, edited, the original arguments kept", got, err)
		}
		if err := ed.ApproveEdited(ctx, "e1", json.RawMessage(`{"path":"/"}`), "mallory", t0); !errors.Is(err, adapter.ErrTicketState) {
			t.Errorf("second ApproveEdited: %v, want ErrTicketState", err)
		}
		if got, _ := s.Get(ctx, "e1"); !jsonEqual(got.Edited, []byte(`{"path":"/tmp/x"}`)) || got.Approver != "erin" {
			t.Errorf("a refused edit changed the ticket: %+v", got)
		}
		pending(t, s, "e2")
		must(t, s.Transition(ctx, "e2", approval.TicketPending, approval.TicketDenied, "no", "bob", t0))
		if err := ed.ApproveEdited(ctx, "e2", json.RawMessage(`{}`), "erin", t0); !errors.Is(err, adapter.ErrTicketState) {
			t.Errorf("ApproveEdited of a denied ticket: %v, want ErrTicketState", err)
		}
		pending(t, s, "e3")
		if err := ed.ApproveEdited(ctx, "e3", json.RawMessage(`{}`), "erin", t0.Add(2*time.Hour)); !errors.Is(err, adapter.ErrTicketExpired) {
			t.Errorf("ApproveEdited of an expired ticket: %v, want ErrTicketExpired", err)
		}
		if err := ed.ApproveEdited(ctx, "nope", json.RawMessage(`{}`), "erin", t0); !errors.Is(err, adapter.ErrTicketNotFound) {
			t.Errorf("ApproveEdited of an unknown ticket: %v, want ErrTicketNotFound", err)
		}
	})
	t.Run("Race", func(t *testing.T) {
		open := newDB(t)
		a, b := open(), open()
		pending(t, a, "r")
		var wg sync.WaitGroup
		var won atomic.Int64
		var winner atomic.Value
		for i := range 16 {
			s := a
			if i%2 == 1 {
				s = b
			}
			wg.Go(func() {
				args := fmt.Sprintf(`{"path":"/tmp/%d"}`, i)
				var err error
				if i%4 == 3 {
					err = s.Transition(ctx, "r", approval.TicketPending, approval.TicketDenied, "no", "bob", t0)
					args = ""
				} else {
					err = editor(t, s).ApproveEdited(ctx, "r", json.RawMessage(args), fmt.Sprint("op", i), t0)
				}
				switch {
				case err == nil:
					won.Add(1)
					winner.Store(args)
				case !errors.Is(err, adapter.ErrTicketState):
					t.Errorf("decision %d: %v, want nil or ErrTicketState", i, err)
				}
			})
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("%d decisions won, want 1", won.Load())
		}
		got, err := b.Get(ctx, "r")
		must(t, err)
		if w := winner.Load().(string); w == "" {
			if got.State != approval.TicketDenied || got.Edited != nil {
				t.Errorf("the denial won but the ticket is %+v", got)
			}
		} else if got.State != approval.TicketApproved || !jsonEqual(got.Edited, []byte(w)) {
			t.Errorf("the edit %s won but the ticket is %s with %s", w, got.State, got.Edited)
		}
	})
	t.Run("Executor", func(t *testing.T) {
		open := newDB(t)
		a, b := open(), open()
		var ran []string
		var mu sync.Mutex
		spec := adapter.MustRawTool("rm", "removes", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"path": {Type: "string"}}},
			func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
				mu.Lock()
				ran = append(ran, string(args))
				mu.Unlock()
				return adapter.TextResult("ok"), nil
			}, nil)
		da := &approval.Deferred{Store: a}
		e := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: da}})
		defer e.Close()
		ann := adapter.WithIdentity(ctx, &caller.Identity{Subject: "ann"})
		bob := adapter.WithIdentity(ctx, &caller.Identity{Subject: "bob"})
		call := func(ctx context.Context, args, ticket string) error {
			_, err := e.Do(ctx, &adapter.Request{Spec: spec, Args: json.RawMessage(args), Ticket: ticket})
			return err
		}
		err := call(ann, `{"path":"/etc"}`, "")
		var ae *adapter.Error
		if !errors.As(err, &ae) || ae.Kind != adapter.KindApprovalPending {
			t.Fatalf("first call: %v, want approval_pending", err)
		}
		db := &approval.Deferred{Store: b}
		if !db.CanApproveEdited() {
			t.Fatalf("%T is not a TicketEditor", b)
		}
		must(t, db.ApproveEdited(ctx, ae.Ticket, "erin", json.RawMessage(`{"path":"/tmp/x"}`)))
		if err := call(bob, `{"path":"/etc"}`, ae.Ticket); adapter.KindOf(err) != adapter.KindApprovalDenied {
			t.Errorf("bob presenting ann's edited ticket: %v, want approval_denied", err)
		}
		if err := call(ann, `{"path":"/etc"}`, ae.Ticket); err != nil {
			t.Fatalf("resumed call: %v", err)
		}
		// A consumed ticket is spent: presenting it again asks anew.
		var again *adapter.Error
		if err := call(ann, `{"path":"/etc"}`, ae.Ticket); !errors.As(err, &again) || again.Kind != adapter.KindApprovalPending || again.Ticket == ae.Ticket {
			t.Errorf("the edited ticket used twice: %v, want a new pending ticket", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if diff := cmp.Diff([]string{`{"path":"/tmp/x"}`}, ran); diff != "" {
			t.Errorf("the tool ran with (-want +got):\n%s", diff)
		}
	})
}
