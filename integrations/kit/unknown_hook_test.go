package kit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

type callIDKey struct{}

func TestUnknownHook(t *testing.T) {
	led := adapter.NewMemoryLedger(10)
	exec := adapter.NewExecutor(registry.New(), &adapter.ExecutorOptions{Ledger: led})
	defer exec.Close()
	ctx := context.WithValue(context.Background(), callIDKey{}, "c9")
	hook := kit.UnknownHook("myfw", exec, "myfw", func(ctx context.Context) string { s, _ := ctx.Value(callIDKey{}).(string); return s })
	want, _ := adapter.ModelPayload(adapter.UnknownTool("made_up"))
	if got, err := hook(ctx, "made_up", `{"a":1}`); err != nil || got != want {
		t.Errorf("hook = %s, %v; want %s", got, err, want)
	}
	if got, err := kit.UnknownHook("myfw", exec, "myfw", nil)(ctx, "other", ""); err != nil || got == "" {
		t.Errorf("hook with no callID = %s, %v; want the not_found payload", got, err)
	}
	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	recs := led.Records()
	if len(recs) != 2 || recs[0].CallID != "c9" || recs[0].Tool != "made_up" || recs[0].Integration != "myfw" || recs[1].Tool != "other" || recs[1].CallID == "c9" {
		t.Errorf("records %+v; want made_up's with call id c9, then other's with an id of its own", recs)
	}
	defer func() {
		err, _ := recover().(error)
		if !errors.Is(err, kit.ErrNilExecutor) || err.Error() != "myfw: "+kit.ErrNilExecutor.Error() {
			t.Errorf("UnknownHook(nil exec) panicked with %v; want myfw: %v", err, kit.ErrNilExecutor)
		}
	}()
	kit.UnknownHook("myfw", nil, "myfw", nil)
}
