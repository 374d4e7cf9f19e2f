package kit_test

import (
	"context"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

func TestUnknownAndResolve(t *testing.T) {
	reg := registry.New()
	spec := adapter.MustTool("real", "", func(context.Context, struct{}) (string, error) { return "", nil }, nil)
	hidden := adapter.MustTool("hidden", "", func(context.Context, struct{}) (string, error) { return "", nil }, nil)
	hidden.Targets = []string{adapter.TargetMCP}
	reg.MustRegister(spec, hidden)
	led := adapter.NewMemoryLedger(10)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: led})
	defer exec.Close()
	ctx := context.Background()
	f := kit.Filter(registry.Filter{}, "myfw")

	want, _ := adapter.ModelPayload(adapter.UnknownTool("made_up"))
	if got := kit.Unknown(ctx, exec, &adapter.Request{Tool: "made_up", CallID: "1", Integration: "myfw"}); got != want {
		t.Errorf("Unknown = %s, want %s", got, want)
	}
	if got := kit.Unknown(ctx, nil, &adapter.Request{Tool: "made_up"}); got != want {
		t.Errorf("Unknown(nil exec) = %s, want %s", got, want)
	}
	if s, err := kit.Resolve(ctx, reg, exec, f, &adapter.Request{Tool: "real", Integration: "myfw"}); err != nil || s != spec {
		t.Errorf("Resolve(real) = %v, %v; want the spec", s, err)
	}
	for i, name := range []string{"hidden", "gone"} {
		s, err := kit.Resolve(ctx, reg, exec, f, &adapter.Request{Tool: name, CallID: string(rune('2' + i)), Integration: "myfw"})
		if s != nil || adapter.KindOf(err) != adapter.KindNotFound {
			t.Errorf("Resolve(%s) = %v, %v; want not_found", name, s, err)
		}
	}
	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range led.Records() {
		if r.Outcome != string(adapter.KindNotFound) || r.Integration != "myfw" {
			t.Errorf("record %+v: want a not_found record of myfw", r)
		}
		got = append(got, r.CallID+":"+r.Tool)
	}
	if len(got) != 3 || got[0] != "1:made_up" || got[1] != "2:hidden" || got[2] != "3:gone" {
		t.Errorf("records %v; want one each for made_up, hidden and gone (none without an executor)", got)
	}
}
