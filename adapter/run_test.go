package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

func TestRunLimits(t *testing.T) {
	type step struct {
		tool    string
		advance time.Duration // before the call
		kind    adapter.Kind
	}
	tests := []struct {
		name     string
		execLim  adapter.Limits
		runLim   adapter.Limits
		noRun    bool
		steps    []step
		msgParts string
	}{
		{
			name:     "per run",
			runLim:   adapter.Limits{MaxCalls: 2},
			steps:    []step{{"a", 0, ""}, {"b", 0, ""}, {"a", 0, adapter.KindRunLimitExceeded}, {"b", 0, adapter.KindRunLimitExceeded}},
			msgParts: "at most 2 tool calls",
		},
		{
			name:     "per tool",
			runLim:   adapter.Limits{MaxCallsPerTool: 1},
			steps:    []step{{"a", 0, ""}, {"b", 0, ""}, {"a", 0, adapter.KindRunLimitExceeded}, {"b", 0, adapter.KindRunLimitExceeded}},
			msgParts: "at most 1 times",
		},
		{
			name:   "per window",
			runLim: adapter.Limits{MaxCallsPerWindow: 2, Window: time.Minute},
			steps: []step{
				{"a", 0, ""}, {"a", 10 * time.Second, ""}, {"a", 10 * time.Second, adapter.KindRunLimitExceeded},
				{"a", 41 * time.Second, ""}, // the first call left the window
				{"a", 0, adapter.KindRunLimitExceeded},
				{"a", 20 * time.Second, ""},
			},
			msgParts: "per 1m0s",
		},
		{
			name:    "executor default when the run sets none",
			execLim: adapter.Limits{MaxCalls: 1},
			steps:   []step{{"a", 0, ""}, {"a", 0, adapter.KindRunLimitExceeded}},
		},
		{
			name:    "run limits replace the executor's",
			execLim: adapter.Limits{MaxCalls: 1},
			runLim:  adapter.Limits{MaxCalls: 3},
			steps:   []step{{"a", 0, ""}, {"a", 0, ""}, {"a", 0, ""}, {"a", 0, adapter.KindRunLimitExceeded}},
		},
		{
			// Issue 12 item 5: calls outside any run are counted in the
			// caller's implicit run (they used to escape every limit).
			name:    "no run scope: the implicit run",
			execLim: adapter.Limits{MaxCalls: 1},
			noRun:   true,
			steps:   []step{{"a", 0, ""}, {"a", 0, adapter.KindRunLimitExceeded}, {"b", 0, adapter.KindRunLimitExceeded}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			var runs atomic.Int64
			e, ml := newExec(t, &adapter.ExecutorOptions{Limits: tt.execLim, Now: clk.Now},
				countingTool("a", readOnly, &runs), countingTool("b", readOnly, &runs))
			ctx := context.Background()
			var run *adapter.Run
			if !tt.noRun {
				ctx, run = adapter.WithRun(ctx, &adapter.RunOptions{Limits: tt.runLim})
			}
			var ok int64
			for i, s := range tt.steps {
				clk.Advance(s.advance)
				_, err := e.Call(ctx, s.tool, json.RawMessage(`{"x":1}`))
				if k := kindOf(t, err); k != s.kind {
					t.Fatalf("step %d (%s): kind %q, want %q (%v)", i, s.tool, k, s.kind, err)
				}
				if s.kind == "" {
					ok++
				} else if tt.msgParts != "" && !strings.Contains(asAdapterError(t, err).Message, tt.msgParts) {
					t.Errorf("step %d: message %q lacks %q", i, asAdapterError(t, err).Message, tt.msgParts)
				}
			}
			if runs.Load() != ok {
				t.Errorf("handler ran %d times, want %d", runs.Load(), ok)
			}
			if run != nil && int64(run.Calls()) != ok {
				t.Errorf("run counted %d calls, want %d (refused calls must not count)", run.Calls(), ok)
			}
			if recs := records(t, e, ml); len(recs) != len(tt.steps) {
				t.Errorf("%d records for %d calls", len(recs), len(tt.steps))
			} else if run != nil {
				for _, r := range recs {
					if r.RunID != run.ID() {
						t.Errorf("record run id %q, want %q", r.RunID, run.ID())
					}
				}
			}
		})
	}
}

func TestRunLimitsConcurrent(t *testing.T) {
	var runs atomic.Int64
	e, _ := newExec(t, nil, countingTool("a", readOnly, &runs))
	ctx, run := adapter.WithRun(context.Background(), &adapter.RunOptions{Limits: adapter.Limits{MaxCalls: 10, MaxCallsPerWindow: 100, Window: time.Hour}})
	var wg sync.WaitGroup
	var okN, limited atomic.Int64
	for range 50 {
		wg.Go(func() {
			_, err := e.Call(ctx, "a", json.RawMessage(`{"x":1}`))
			switch adapter.KindOf(err) {
			case "":
				okN.Add(1)
			case adapter.KindRunLimitExceeded:
				limited.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if okN.Load() != 10 || limited.Load() != 40 || run.Calls() != 10 || runs.Load() != 10 {
		t.Errorf("ok %d limited %d run.Calls %d runs %d; want 10, 40, 10, 10", okN.Load(), limited.Load(), run.Calls(), runs.Load())
	}
}

func TestRunScopes(t *testing.T) {
	ctx, r1 := adapter.WithRun(context.Background(), &adapter.RunOptions{ID: "outer"})
	ctx2, r2 := adapter.WithRun(ctx, &adapter.RunOptions{ID: "inner"})
	if r2 != r1 || ctx2 != ctx {
		t.Error("a nested WithRun did not share the outer run")
	}
	if adapter.RunFromContext(ctx) != r1 || adapter.RunFromContext(context.Background()) != nil {
		t.Error("RunFromContext")
	}
	r3 := adapter.NewRun(nil)
	if !strings.HasPrefix(r3.ID(), "run_") || r3.ID() == adapter.NewRun(nil).ID() {
		t.Errorf("generated run ids %q are not unique run_ ids", r3.ID())
	}
	if adapter.RunFromContext(adapter.ContextWithRun(ctx, r3)) != r3 {
		t.Error("ContextWithRun did not replace the run")
	}
	var ids []string
	spec := rawTool("t", func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		ids = append(ids, adapter.ToolCallFromContext(ctx).RunID)
		return adapter.TextResult("ok"), nil
	}, nil)
	e, _ := newExec(t, nil, spec)
	e.Call(ctx, "t", json.RawMessage(`{"x":1}`))
	e.Call(context.Background(), "t", json.RawMessage(`{"x":1}`))
	if diff := cmp.Diff([]string{"outer", ""}, ids); diff != "" {
		t.Errorf("run ids seen by the handler (-want +got):\n%s", diff)
	}
}

// TestImplicitRunPerCaller: the implicit run is per caller; a run scope of
// one's own is counted apart.
func TestImplicitRunPerCaller(t *testing.T) {
	e, _ := newExec(t, &adapter.ExecutorOptions{Limits: adapter.Limits{MaxCalls: 2}}, rawTool("a", echo, nil))
	call := func(ctx context.Context) adapter.Kind {
		_, err := e.Call(ctx, "a", json.RawMessage(`{"x":1}`))
		return adapter.KindOf(err)
	}
	for _, who := range []string{"alice", "alice", "bob", "bob"} {
		if k := call(as(who)); k != "" {
			t.Fatalf("%s: %v", who, k)
		}
	}
	if k := call(as("alice")); k != adapter.KindRunLimitExceeded {
		t.Errorf("alice's third call outside a run: %q, want run_limit_exceeded", k)
	}
	ctx, _ := adapter.WithRun(as("alice"), nil)
	if k := call(ctx); k != "" {
		t.Errorf("alice's call in a run of its own: %q", k)
	}
}

// TestLimitsThatCannotApply: a limit that would silently do nothing is
// refused when the executor or the run is made.
func TestLimitsThatCannotApply(t *testing.T) {
	for _, l := range []adapter.Limits{
		{MaxCallsPerWindow: 5},
		{Window: time.Minute},
		{MaxCalls: -1},
	} {
		if l.Validate() == nil {
			t.Errorf("%+v: Validate accepted it", l)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v: NewExecutor accepted it", l)
				}
			}()
			adapter.NewExecutor(nil, &adapter.ExecutorOptions{Limits: l})
		}()
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v: NewRun accepted it", l)
				}
			}()
			adapter.NewRun(&adapter.RunOptions{Limits: l})
		}()
	}
	if err := (adapter.Limits{MaxCallsPerWindow: 5, Window: time.Minute, MaxCalls: 3}).Validate(); err != nil {
		t.Error(err)
	}
}

// TestTimeoutNamesTheDeadline: the message says which deadline fired.
func TestTimeoutNamesTheDeadline(t *testing.T) {
	slow := func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	own := func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		// An upstream server's (or the handler's own) deadline fires.
		c, cancel := context.WithTimeout(ctx, time.Millisecond)
		defer cancel()
		<-c.Done()
		return nil, c.Err()
	}
	closed := false
	spec := func(name string, h adapter.Handler, timeout time.Duration) *adapter.Spec {
		return adapter.MustRawTool(name, "", echoSchema(), h, &adapter.ToolOptions{Timeout: timeout, Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &closed}})
	}
	e, _ := newExec(t, &adapter.ExecutorOptions{Timeout: time.Minute}, spec("slow", slow, 20*time.Millisecond), spec("own", own, 0))
	for _, tt := range []struct{ tool, want string }{
		{"slow", "within 20ms (the tool's timeout)"},
		{"own", "a deadline of its own"},
	} {
		_, err := e.Call(context.Background(), tt.tool, json.RawMessage(`{"x":1}`))
		if ae := asAdapterError(t, err); ae.Kind != adapter.KindTimeout || !strings.Contains(ae.Message, tt.want) || strings.Contains(ae.Message, "within 1m0s") {
			t.Errorf("%s: %v, want a timeout naming %q", tt.tool, err, tt.want)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := e.Call(ctx, "slow", json.RawMessage(`{"x":1}`))
	if ae := asAdapterError(t, err); !strings.Contains(ae.Message, "deadline") {
		t.Errorf("caller's deadline: %v", err)
	}
}

// stuckLedger blocks every write until released.
type stuckLedger struct{ release chan struct{} }

func (b *stuckLedger) Write(ctx context.Context, _ *ledger.Record) error {
	<-b.release
	return nil
}

// TestShutdownBoundedByContext is issue 12 item 10: a ledger that blocks
// does not hold Shutdown past its context; Close still waits for it.
func TestShutdownBoundedByContext(t *testing.T) {
	bl := &stuckLedger{release: make(chan struct{})}
	e := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Ledger: bl, Logger: discard})
	closed := false
	spec := adapter.MustRawTool("t", "", echoSchema(), echo, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &closed}})
	for range 3 {
		if _, err := e.Do(context.Background(), &adapter.Request{Spec: spec, Args: json.RawMessage(`{"x":1}`)}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if err := e.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown with a blocked ledger: %v, want the context's deadline", err)
	}
	close(bl.release)
	if err := e.Close(); err != nil {
		t.Errorf("Close after release: %v", err)
	}
	if s := e.LedgerStats(); s.Written != 3 {
		t.Errorf("ledger stats %+v, want 3 written", s)
	}
}
