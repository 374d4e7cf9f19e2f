package adapter_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/canonical"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// shortTimeout is the per-request timeout of the calls meant to time out.
const shortTimeout = 10 * time.Millisecond

// kindsExecutor builds an executor whose tool produces every outcome kind:
// the tool "k" takes {"x": n, "s": kind} and fails that way (see
// kindRequest). cachedRuns counts the runs of cached calls.
//
// Handlers that ignore ctx block until release is closed (at the latest
// when the test ends), so that they are certainly abandoned.
func kindsExecutor(t testing.TB, ledger ledger.Ledger) (e *adapter.Executor, cachedRuns *atomic.Int64, release func()) {
	t.Helper()
	cachedRuns = new(atomic.Int64)
	stuck := make(chan struct{})
	release = sync.OnceFunc(func() { close(stuck) })
	t.Cleanup(release)
	spec := rawTool("k", func(ctx context.Context, args json.RawMessage) (*adapter.Result, error) {
		var a struct{ S string }
		json.Unmarshal(args, &a)
		switch a.S {
		case "cached":
			cachedRuns.Add(1)
		case "tool_error":
			return nil, errors.New("tool failed")
		case "connection":
			return nil, adapter.NewError(adapter.KindConnection, "down")
		case "timeout":
			<-ctx.Done()
			return nil, ctx.Err()
		case "timeout_ignored":
			<-stuck // ignores ctx: abandoned
			return adapter.TextResult("late"), nil
		case "panic":
			panic("handler panic")
		}
		return adapter.TextResult("ok"), nil
	}, &adapter.ToolOptions{Annotations: readOnly, Timeout: time.Minute})
	opts := &adapter.ExecutorOptions{
		Ledger:       ledger,
		LedgerBuffer: 1 << 16,
		LedgerWait:   10 * time.Second,
		Logger:       discard,
		Cache:        &adapter.CacheOptions{Tools: map[string]time.Duration{"k": time.Hour}},
		Guards: []adapter.Guard{{Name: "g", Input: func(_ context.Context, c *adapter.ToolCall) error {
			if strings.Contains(string(c.Args), "guardrail_blocked") {
				return errors.New("blocked")
			}
			return nil
		}}},
		Hooks: []adapter.Hook{hookFunc(func(ctx context.Context, c *adapter.ToolCall, next adapter.Invoker) (*adapter.Result, error) {
			if strings.Contains(string(c.Args), `"internal"`) {
				panic("hook panic")
			}
			return next(ctx, c)
		})},
		Approval: adapter.ApprovalOptions{
			Policy: func(_ context.Context, c *adapter.ToolCall) bool {
				return strings.Contains(string(c.Args), "approval_")
			},
			Port: approval.Func(func(_ context.Context, r *approval.Request) (approval.Decision, error) {
				if strings.Contains(string(r.Args), "approval_pending") {
					return approval.Decision{Verdict: approval.VerdictPending, Ticket: "tkt"}, nil
				}
				return approval.Decision{Verdict: approval.VerdictDenied, Reason: "no"}, nil
			}),
		},
	}
	// Caching only pays off for the "cached" calls; the others all differ.
	e = adapter.NewExecutor(catalog{spec}, opts)
	t.Cleanup(func() { e.Close() })
	return e, cachedRuns, release
}

// kindRequest returns the i-th request meant to produce outcome kind.
func kindRequest(kind string, i int, id string) *adapter.Request {
	tool, args := kindArgs(kind, i)
	req := &adapter.Request{Tool: tool, Args: json.RawMessage(args), CallID: id}
	if kind == "timeout" || kind == "timeout_ignored" {
		req.Timeout = shortTimeout
	}
	return req
}

// kindArgs returns the call (tool, args) that produces outcome kind.
func kindArgs(kind string, i int) (string, string) {
	switch kind {
	case "ok":
		return "k", `{"x":` + itoa(i) + `}`
	case "cache_hit":
		return "k", `{"x":` + itoa(i%4) + `,"s":"cached"}`
	case string(adapter.KindNotFound):
		return "missing", `{}`
	case string(adapter.KindArgsInvalid):
		return "k", `{"x":"NaN"}`
	case "timeout_ignored":
		return "k", `{"x":` + itoa(i) + `,"s":"timeout_ignored"}`
	case "panic":
		return "k", `{"x":` + itoa(i) + `,"s":"panic"}`
	}
	return "k", `{"x":` + itoa(i) + `,"s":"` + kind + `"}`
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// outcomeOf maps a kindArgs kind to the ledger outcome it must produce.
func outcomeOf(kind string) string {
	switch kind {
	case "ok", "cache_hit":
		return ledger.OutcomeOK
	case "timeout_ignored":
		return string(adapter.KindTimeout)
	case "panic":
		return string(adapter.KindToolError)
	}
	return kind
}

var allOutcomes = []string{
	"ok", "cache_hit", "tool_error", "connection", "timeout", "timeout_ignored", "panic", "not_found", "args_invalid",
	"guardrail_blocked", "approval_denied", "approval_pending", "internal",
}

var discard = slog.New(slog.DiscardHandler)

// TestLedgerRecordsEveryCallOnce makes calls of every outcome and checks
// that each is recorded exactly once, with its outcome.
func TestLedgerRecordsEveryCallOnce(t *testing.T) {
	ml := ledger.NewMemory(10000)
	e, _, _ := kindsExecutor(t, ml)
	ctx, run := adapter.WithRun(context.Background(), nil)
	wantOutcome := map[string]string{}
	for i, kind := range allOutcomes {
		for j := range 3 {
			id := kind + "-" + itoa(j)
			e.Do(ctx, kindRequest(kind, i*12+j*4, id)) // cache_hit: the same x%4 each time
			wantOutcome[id] = outcomeOf(kind)
		}
	}
	// A run limit outcome too.
	lctx, _ := adapter.WithRun(context.Background(), &adapter.RunOptions{Limits: adapter.Limits{MaxCalls: 1}})
	e.Do(lctx, &adapter.Request{Tool: "k", Args: json.RawMessage(`{"x":1}`), CallID: "limit-ok"})
	e.Do(lctx, &adapter.Request{Tool: "k", Args: json.RawMessage(`{"x":1}`), CallID: "limit-hit"})
	wantOutcome["limit-ok"] = "ok"
	wantOutcome["limit-hit"] = string(adapter.KindRunLimitExceeded)
	recs := records(t, e, ml)
	got := map[string]string{}
	for _, r := range recs {
		if _, dup := got[r.CallID]; dup {
			t.Errorf("call %s recorded twice", r.CallID)
		}
		got[r.CallID] = r.Outcome
		if r.CallID != "limit-ok" && r.CallID != "limit-hit" && r.RunID != run.ID() {
			t.Errorf("%s: run id %q, want %q", r.CallID, r.RunID, run.ID())
		}
		if r.Time.IsZero() || r.Duration < 0 {
			t.Errorf("%s: time %v duration %v", r.CallID, r.Time, r.Duration)
		}
		if r.Outcome == "ok" && r.ResultBytes == 0 {
			t.Errorf("%s: no result size", r.CallID)
		}
	}
	if diff := cmp.Diff(wantOutcome, got); diff != "" {
		t.Errorf("outcomes by call (-want +got):\n%s", diff)
	}
	for _, r := range recs {
		if strings.HasPrefix(r.CallID, "approval_pending") && (r.Approval != "pending" || r.Ticket != "tkt") {
			t.Errorf("pending record %+v", r)
		}
		if strings.HasPrefix(r.CallID, "cache_hit") && r.CallID != "cache_hit-0" && !r.CacheHit {
			t.Errorf("%s not marked as a cache hit", r.CallID)
		}
		if strings.HasPrefix(r.CallID, "ok") && r.CacheHit {
			t.Errorf("%s marked as a cache hit", r.CallID)
		}
	}
	if s := e.LedgerStats(); s.Written != int64(len(wantOutcome)) || s.Failed != 0 || s.Dropped != 0 {
		t.Errorf("stats %+v, want %d written", s, len(wantOutcome))
	}
}

func TestRedaction(t *testing.T) {
	args := `{"x":1,"s":"visible","nested":{"password":"p1","user":"u","Api-Key":"k1","deeper":[{"AUTH_TOKEN":"t1","ok":"fine"},{"client_secret":{"any":"shape"}}],"authorization":"Bearer z","my_cookie":"c"}}`
	want := `{"nested":{"Api-Key":"[REDACTED]","authorization":"[REDACTED]","deeper":[{"AUTH_TOKEN":"[REDACTED]","ok":"fine"},{"client_secret":"[REDACTED]"}],"my_cookie":"[REDACTED]","password":"[REDACTED]","user":"u"},"s":"visible","x":1}`
	tests := []struct {
		name   string
		redact func(string, json.RawMessage) json.RawMessage
		args   string
		want   string
	}{
		{"default keys at any depth", nil, args, want},
		{"nothing secret passes unchanged", nil, `{"x":1,"s":"plain"}`, `{"s":"plain","x":1}`},
		{"custom keys", ledger.RedactKeys("user"), args, strings.Replace(canonString(json.RawMessage(args)), `"user":"u"`, `"user":"[REDACTED]"`, 1)},
		{"custom function", func(tool string, _ json.RawMessage) json.RawMessage { return json.RawMessage(`"hidden:` + tool + `"`) }, args, `"hidden:t"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var handlerArgs string
			spec := rawTool("t", func(_ context.Context, a json.RawMessage) (*adapter.Result, error) {
				handlerArgs = string(a)
				return adapter.TextResult("ok"), nil
			}, nil)
			e, ml := newExec(t, &adapter.ExecutorOptions{Redact: tt.redact}, spec)
			if _, err := e.Call(context.Background(), "t", json.RawMessage(tt.args)); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(handlerArgs, `"p1"`) && strings.Contains(tt.args, `"p1"`) {
				t.Errorf("the handler got redacted args: %s", handlerArgs)
			}
			recs := records(t, e, ml)
			if got := canonString(recs[0].Args); got != canonString(json.RawMessage(tt.want)) {
				t.Errorf("recorded args\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// blockingLedger blocks every Write until released.
type blockingLedger struct {
	release chan struct{}
	writes  atomic.Int64
}

func (b *blockingLedger) Write(ctx context.Context, r *ledger.Record) error {
	<-b.release
	b.writes.Add(1)
	return nil
}

func TestSlowLedgerNeverBlocksCalls(t *testing.T) {
	bl := &blockingLedger{release: make(chan struct{})}
	const wait = 20 * time.Millisecond
	e, _ := newExec(t, &adapter.ExecutorOptions{Ledger: bl, LedgerBuffer: 2, LedgerWait: wait}, rawTool("t", echo, nil))
	const calls = 10
	var worst time.Duration
	for range calls {
		start := time.Now()
		if _, err := e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`)); err != nil {
			t.Fatal(err)
		}
		worst = max(worst, time.Since(start))
	}
	if worst > 2*time.Second { // generous: the bound is 20ms plus scheduling
		t.Errorf("a call took %v with a stuck ledger", worst)
	}
	// One record is in the stuck Write, two fill the buffer; the rest are dropped.
	if s := e.LedgerStats(); s.Dropped < calls-3 || s.Dropped > calls-2 {
		t.Errorf("dropped %d, want %d or %d", s.Dropped, calls-3, calls-2)
	}
	close(bl.release)
	if err := e.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := e.LedgerStats()
	if s.Written+s.Dropped != calls || s.Written != bl.writes.Load() {
		t.Errorf("stats %+v, ledger writes %d; want written+dropped = %d", s, bl.writes.Load(), calls)
	}
}

func TestFailingLedgerIsCounted(t *testing.T) {
	tests := []struct {
		name  string
		write func(context.Context, *ledger.Record) error
	}{
		{"error", func(context.Context, *ledger.Record) error { return errors.New("disk full") }},
		{"panic", func(context.Context, *ledger.Record) error { panic("ledger bug") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := newExec(t, &adapter.ExecutorOptions{Ledger: ledgerFunc(tt.write)}, rawTool("t", echo, nil))
			for range 5 {
				if _, err := e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`)); err != nil {
					t.Fatalf("call failed because the ledger failed: %v", err)
				}
			}
			if err := e.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			if s := e.LedgerStats(); s != (adapter.LedgerStats{Failed: 5}) {
				t.Errorf("stats %+v, want 5 failed", s)
			}
		})
	}
}

func TestCallsAfterCloseAreDropped(t *testing.T) {
	ml := ledger.NewMemory(10)
	e := adapter.NewExecutor(catalog{rawTool("t", echo, nil)}, &adapter.ExecutorOptions{Ledger: ml})
	e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if ml.Total() != 1 {
		t.Errorf("Close did not flush: %d records", ml.Total())
	}
	if _, err := e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`)); err != nil {
		t.Errorf("call after Close: %v", err)
	}
	if s := e.LedgerStats(); s.Written != 1 || s.Dropped != 1 {
		t.Errorf("stats %+v, want 1 written 1 dropped", s)
	}
	if err := e.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
}

// TestCloseRacesCalls closes the executor while calls are in flight: every
// call is either written or counted as dropped, none lost, none blocked.
func TestCloseRacesCalls(t *testing.T) {
	for range 20 {
		ml := ledger.NewMemory(10000)
		e := adapter.NewExecutor(catalog{rawTool("t", echo, nil)}, &adapter.ExecutorOptions{Ledger: ml})
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 50 {
					e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`))
				}
			})
		}
		time.Sleep(time.Millisecond)
		e.Close()
		wg.Wait()
		s := e.LedgerStats()
		if s.Written+s.Dropped != 200 || int64(ml.Total()) != s.Written {
			t.Fatalf("stats %+v, ledger total %d; want written+dropped = 200", s, ml.Total())
		}
	}
}

func TestJSONLLedgerFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	jl, err := ledger.OpenJSONL(path)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := newExec(t, &adapter.ExecutorOptions{Ledger: jl}, rawTool("t", echo, nil))
	e.Do(context.Background(), &adapter.Request{Tool: "t", Args: json.RawMessage(`{"x":1,"nested":{"token":"t"}}`), CallID: "a"})
	e.Do(context.Background(), &adapter.Request{Tool: "t", Args: json.RawMessage(`{"x":"bad"}`), CallID: "b"})
	e.Close()
	if err := jl.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []ledger.Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r ledger.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		got = append(got, r)
	}
	if len(got) != 2 || got[0].CallID != "a" || got[0].Outcome != "ok" || got[1].Outcome != "args_invalid" {
		t.Fatalf("records %+v", got)
	}
	if strings.Contains(string(got[0].Args), `"t"}`) || !strings.Contains(string(got[0].Args), ledger.Redacted) {
		t.Errorf("token not redacted in the file: %s", got[0].Args)
	}
}

// TestLedgerCopiesCallerArgs: the ledger writes after Do returns, so a
// caller reusing its argument buffer must not change what is recorded.
func TestLedgerCopiesCallerArgs(t *testing.T) {
	bl := &blockingLedger{release: make(chan struct{})}
	var got []ledger.Record
	var mu sync.Mutex
	l := ledgerFunc(func(ctx context.Context, r *ledger.Record) error {
		bl.Write(ctx, r)
		mu.Lock()
		got = append(got, *r)
		mu.Unlock()
		return nil
	})
	noDefaults := adapter.MustRawTool("t", "", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"x": {Type: "integer"}}}, echo, nil)
	e, _ := newExec(t, &adapter.ExecutorOptions{Ledger: l}, noDefaults)
	for _, s := range []string{`{"x":1}`, `{"x":"invalid"}`} {
		buf := []byte(s)
		e.Call(context.Background(), "t", buf)
		for i := range buf {
			buf[i] = ' ' // reuse the buffer
		}
	}
	close(bl.release)
	e.Flush(context.Background())
	if len(got) != 2 || canonString(got[0].Args) != `{"x":1}` || canonString(got[1].Args) != `{"x":"invalid"}` {
		t.Errorf("records %s and %s changed with the caller's buffer", got[0].Args, got[1].Args)
	}
}

// TestLedgerArgsNotAliased: the ledger keeps argument bytes without a copy
// only when the executor made them; whoever else's buffer they are in (the
// caller's, when they arrive canonical; a hook's) is copied, so reusing it
// after the call changes nothing recorded. Cached tools' argument memo is
// covered too, and so is the argument hash it remembers.
func TestLedgerArgsNotAliased(t *testing.T) {
	ro := &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}
	typed := adapter.MustTool("add", "adds", add, ro)
	raw := adapter.MustRawTool("raw", "", &jsonschema.Schema{Type: "object"}, echo, ro)
	scribble := func(b []byte) {
		for i := range b {
			b[i] = ' '
		}
	}
	var hookBuf []byte
	rewrite := func(next adapter.Invoker) adapter.Invoker {
		return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
			hookBuf = []byte(`{"a":5,"b":6}`)
			c.Args = hookBuf
			return next(ctx, c)
		}
	}
	for _, tt := range []struct {
		name, tool, args, want string
		cached, hook           bool
	}{
		{"typed, canonical", "add", `{"a":1,"b":2}`, `{"a":1,"b":2}`, false, false},
		{"typed, not canonical", "add", `{ "b":2, "a":1 }`, `{"a":1,"b":2}`, false, false},
		{"raw, canonical", "raw", `{"a":1}`, `{"a":1}`, false, false},
		{"raw, not canonical", "raw", ` {"b":[1, 2],"a":1}`, `{"a":1,"b":[1,2]}`, false, false},
		{"cached, canonical", "add", `{"a":3,"b":4}`, `{"a":3,"b":4}`, true, false},
		{"cached, not canonical", "add", `{"b":4, "a":3}`, `{"a":3,"b":4}`, true, false},
		{"hook rewrites", "add", `{"a":1,"b":2}`, `{"a":5,"b":6}`, false, true},
		{"hook rewrites, cached", "add", `{"a":1,"b":2}`, `{"a":5,"b":6}`, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := &adapter.ExecutorOptions{}
			if tt.cached {
				opts.Cache = &adapter.CacheOptions{TTL: time.Hour, Tools: map[string]time.Duration{"add": 0}}
			}
			if tt.hook {
				opts.Hooks = []adapter.Hook{rewrite}
			}
			e, ml := newExec(t, opts, typed, raw)
			for range 2 { // the second call of a cached tool hits the memo and the cache
				buf := []byte(tt.args)
				if _, err := e.Call(context.Background(), tt.tool, buf); err != nil {
					t.Fatal(err)
				}
				scribble(buf)
				scribble(hookBuf)
			}
			wantHash, _ := canonical.Hash(json.RawMessage(tt.want))
			for i, r := range records(t, e, ml) {
				if string(r.Args) != tt.want {
					t.Errorf("record %d: args %s, want %s", i, r.Args, tt.want)
				}
				if r.ArgsHash != wantHash { // the memo's hash serves only the arguments it was made of
					t.Errorf("record %d: args hash %.12s, want %.12s (of %s)", i, r.ArgsHash, wantHash, tt.want)
				}
			}
		})
	}
}

// TestLedgerWithoutFlush: the writer batches records, but a record reaches
// the ledger on its own, with no Flush or Close to push it.
func TestLedgerWithoutFlush(t *testing.T) {
	e, ml := newExec(t, nil, rawTool("t", echo, nil))
	for i := range 3 {
		if _, err := e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`)); err != nil {
			t.Fatal(err)
		}
		for ml.Total() != i+1 {
			time.Sleep(time.Millisecond) // bounded by the test's timeout: a lost record hangs here
		}
	}
}
