package kit_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

func TestBuildTools(t *testing.T) {
	reg := registry.New()
	for _, name := range []string{"a", "b", "c"} {
		reg.MustRegister(adapter.MustTool(name, name, func(context.Context, struct{}) (string, error) { return "", nil }, nil))
	}
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	names := func(s *adapter.Spec) (string, error) { return s.Name, nil }
	got, err := kit.BuildTools("myfw", reg, exec, registry.Filter{}, "myfw", names)
	if err != nil || !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("BuildTools = %v, %v; want [a b c]", got, err)
	}
	if _, err := kit.BuildTools("myfw", nil, exec, registry.Filter{}, "myfw", names); !errors.Is(err, kit.ErrNilRegistry) || err.Error() != "myfw: nil registry" {
		t.Errorf("nil registry: %v", err)
	}
	boom := errors.New("boom")
	calls := 0
	_, err = kit.BuildTools("myfw", reg, exec, registry.Filter{}, "myfw", func(s *adapter.Spec) (string, error) {
		calls++
		if s.Name == "b" {
			return "", boom
		}
		return s.Name, nil
	})
	if err != boom || calls != 2 {
		t.Errorf("build error: %v after %d calls, want boom after 2", err, calls)
	}
}

func TestBuildEach(t *testing.T) {
	specs := []*adapter.Spec{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	names := func(s *adapter.Spec) (string, error) { return s.Name, nil }
	if got, err := kit.BuildEach(specs, names); err != nil || !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("BuildEach = %v, %v; want [a b c]", got, err)
	}
	if got, err := kit.BuildEach(nil, names); err != nil || got == nil || len(got) != 0 {
		t.Errorf("BuildEach(nil) = %#v, %v; want an empty slice", got, err)
	}
	boom := errors.New("boom")
	got, err := kit.BuildEach(specs, func(s *adapter.Spec) (string, error) {
		if s.Name == "b" {
			return "", boom
		}
		return s.Name, nil
	})
	if err != boom || got != nil {
		t.Errorf("build error: %v, %v; want boom and no tools", got, err)
	}
}
