package kit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

func TestCheck(t *testing.T) {
	spec := adapter.MustTool("ok", "", func(context.Context, struct{}) (string, error) { return "", nil }, nil)
	reg := registry.New()
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	for _, tt := range []struct {
		name string
		err  error
		want error // nil: no error; errAny: any error
	}{
		{"tool", kit.CheckTool(spec, exec), nil},
		{"nil spec", kit.CheckTool(nil, exec), kit.ErrNilSpec},
		{"nil spec and executor", kit.CheckTool(nil, nil), kit.ErrNilSpec},
		{"tool, nil executor", kit.CheckTool(spec, nil), kit.ErrNilExecutor},
		{"invalid spec", kit.CheckTool(&adapter.Spec{Name: "bad name!"}, exec), errAny},
		{"registry", kit.CheckRegistry(reg, exec), nil},
		{"nil registry", kit.CheckRegistry(nil, exec), kit.ErrNilRegistry},
		{"registry, nil executor", kit.CheckRegistry(reg, nil), kit.ErrNilExecutor},
	} {
		switch {
		case tt.want == nil && tt.err != nil, tt.want == errAny && tt.err == nil,
			tt.want != nil && tt.want != errAny && !errors.Is(tt.err, tt.want):
			t.Errorf("%s: %v, want %v", tt.name, tt.err, tt.want)
		}
	}
}

var errAny = errors.New("any error")
