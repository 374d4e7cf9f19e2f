package kit_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

func TestTriage(t *testing.T) {
	pending := &adapter.Error{Kind: adapter.KindApprovalPending, Tool: "t", Ticket: "tkt_1", Message: "held"}
	fault := &adapter.Error{Kind: adapter.KindConnection, Tool: "t", Message: "gone"}
	toolErr := &adapter.Error{Kind: adapter.KindToolError, Tool: "t", Message: "failed"}
	wantPayload := func(err error) string { p, _ := adapter.ModelPayload(err); return p }
	for _, tt := range []struct {
		name           string
		err            error
		triage, payout kit.Outcome
	}{
		{"nil", nil, kit.Outcome{}, kit.Outcome{}},
		{"pending", pending, kit.Outcome{Pending: pending}, kit.Outcome{Payload: wantPayload(pending)}},
		{"wrapped pending", fmt.Errorf("x: %w", pending), kit.Outcome{Pending: pending}, kit.Outcome{Payload: wantPayload(pending)}},
		{"tool error", toolErr, kit.Outcome{Payload: wantPayload(toolErr)}, kit.Outcome{Payload: wantPayload(toolErr)}},
		{"connection", fault, kit.Outcome{Err: fault}, kit.Outcome{Err: fault}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := kit.Triage(tt.err); got != tt.triage {
				t.Errorf("Triage = %+v, want %+v", got, tt.triage)
			}
			if got := kit.TriagePayload(tt.err); got != tt.payout {
				t.Errorf("TriagePayload = %+v, want %+v", got, tt.payout)
			}
		})
	}
	plain := errors.New("plain")
	if got := kit.Triage(plain); got.Err != plain || got.Payload != "" || got.Pending != nil {
		t.Errorf("Triage(plain error) = %+v, want the error back", got)
	}
}

func TestRunScopes(t *testing.T) {
	rs := kit.NewRunScopes(2, func(k string) *adapter.RunOptions { return &adapter.RunOptions{ID: "run_" + k} })
	a := rs.Run("a")
	if a.ID() != "run_a" || rs.Run("a") != a {
		t.Fatalf("Run(a) = %q, not one scope per key", a.ID())
	}
	b := rs.Run("b")
	rs.Run("a") // a is now the most recent: b goes first
	rs.Run("c")
	if rs.Run("a") != a {
		t.Error("the most recently used scope was forgotten")
	}
	if rs.Run("b") == b {
		t.Error("the least recently used scope was kept past Max")
	}

	ctx := context.Background()
	if got := rs.Context(ctx, "a", false); adapter.RunFromContext(got) != nil {
		t.Error("a call without a key got a run scope")
	}
	if got := adapter.RunFromContext(rs.Context(ctx, "a", true)); got != a {
		t.Errorf("Context(a) has run %v, want a's", got)
	}
	own, r := adapter.WithRun(ctx, nil)
	if got := adapter.RunFromContext(rs.Context(own, "a", true)); got != r {
		t.Error("the caller's own run scope was replaced")
	}

	// Parallel first calls share one scope.
	par := kit.NewRunScopes[int](0, nil)
	var wg sync.WaitGroup
	runs := make([]*adapter.Run, 16)
	for i := range runs {
		wg.Go(func() { runs[i] = par.Run(7) })
	}
	wg.Wait()
	for _, r := range runs {
		if r != runs[0] {
			t.Fatal("parallel calls with one key got different scopes")
		}
	}
}

func TestContinueRun(t *testing.T) {
	ctx := context.Background()
	began := adapter.NewRun(nil)
	outer, own := adapter.WithRun(ctx, nil)
	for _, tt := range []struct {
		name string
		ctx  context.Context
		run  *adapter.Run
		want *adapter.Run // nil: a new one
	}{
		{"ctx's own first", outer, began, own},
		{"else the run it began in", ctx, began, began},
		{"else a new one", ctx, nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, run := kit.ContinueRun(tt.ctx, tt.run)
			if adapter.RunFromContext(got) != run || run == nil {
				t.Fatalf("the context carries %p, the scope returned is %p", adapter.RunFromContext(got), run)
			}
			if tt.want != nil && run != tt.want || tt.want == nil && (run == began || run == own) {
				t.Errorf("the scope is %p, want %p (nil: a new one; began %p, own %p)", run, tt.want, began, own)
			}
		})
	}
}

func TestSpecs(t *testing.T) {
	spec := func(name string, targets ...string) *adapter.Spec {
		s := adapter.MustTool(name, "", func(context.Context, struct{}) (string, error) { return "", nil }, nil)
		s.Targets = targets
		return s
	}
	reg := registry.New()
	reg.MustRegister(spec("b"), spec("a", "myfw"), spec("other", adapter.TargetMCP))
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	got, err := kit.Specs(reg, exec, registry.Filter{}, "myfw")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	if fmt.Sprint(names) != "[a b]" {
		t.Errorf("Specs = %v, want [a b]", names)
	}
	if _, err := kit.Specs(reg, nil, registry.Filter{}, "myfw"); !errors.Is(err, kit.ErrNilExecutor) {
		t.Errorf("nil executor: %v, want ErrNilExecutor", err)
	}
	if _, err := kit.Specs(nil, exec, registry.Filter{}, "myfw"); !errors.Is(err, kit.ErrNilRegistry) {
		t.Errorf("nil registry: %v, want ErrNilRegistry", err)
	}
}
