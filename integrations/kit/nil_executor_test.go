package kit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

// TestNilExecutorIsAnError: every kit function that runs a call reports a
// nil executor as an internal error wrapping ErrNilExecutor (a fault, so
// the run ends saying why), never a nil-pointer panic.
func TestNilExecutorIsAnError(t *testing.T) {
	ctx := context.Background()
	spec := adapter.MustTool("echo", "Echoes.", func(context.Context, struct{}) (string, error) { return "", nil }, nil)
	req := &adapter.Request{Spec: spec, Tool: "echo", CallID: "c1"}
	reg := registry.New()
	tests := []struct {
		name string
		call func() error
	}{
		{"CallText", func() error { _, err := kit.CallText(ctx, nil, req, `{}`, kit.NewShape(nil), nil); return err }},
		{"StreamText", func() error { _, err := kit.StreamText(ctx, nil, req, nil); return err }},
		{"CallParts", func() error { _, _, err := kit.CallParts(ctx, nil, req, nil); return err }},
		{"Resolve", func() error { _, err := kit.Resolve(ctx, reg, nil, registry.Filter{}, req); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, kit.ErrNilExecutor) || adapter.KindOf(err) != adapter.KindInternal {
				t.Fatalf("err = %v (kind %q); want an internal error wrapping ErrNilExecutor", err, adapter.KindOf(err))
			}
			if o := kit.Triage(err); o.Err == nil || o.Payload != "" {
				t.Errorf("Triage = %+v; want a fault, not a payload", o)
			}
		})
	}
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	if _, err := kit.Resolve(ctx, nil, exec, registry.Filter{}, req); !errors.Is(err, kit.ErrNilRegistry) {
		t.Errorf("Resolve with a nil registry: %v; want ErrNilRegistry", err)
	}
}
