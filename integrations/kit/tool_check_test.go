package kit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestCheckTool(t *testing.T) {
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	good := adapter.MustTool("echo", "echoes", func(_ context.Context, in struct{}) (string, error) { return "", nil }, nil)
	bad := &adapter.Spec{Name: "nohandler"}
	for _, tt := range []struct {
		name string
		spec *adapter.Spec
		exec *adapter.Executor
		is   error  // the error wraps it
		text string // the error's text, when not ""
	}{
		{name: "valid", spec: good, exec: exec},
		{name: "nil spec", exec: exec, is: kit.ErrNilSpec, text: "myfw: nil spec"},
		{name: "nil executor", spec: good, is: kit.ErrNilExecutor},
		{name: "invalid spec", spec: bad, exec: exec},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := kit.CheckTool("myfw", tt.spec, tt.exec)
			switch {
			case tt.name == "valid" && err != nil:
				t.Fatalf("CheckTool: %v", err)
			case tt.name == "invalid spec":
				if want := bad.Check(); err == nil || want == nil || err.Error() != want.Error() {
					t.Errorf("CheckTool = %v, want Check's %v", err, want)
				}
			case tt.is != nil && !errors.Is(err, tt.is):
				t.Errorf("CheckTool = %v, want it to wrap %v", err, tt.is)
			case tt.text != "" && err.Error() != tt.text:
				t.Errorf("CheckTool = %q, want %q", err, tt.text)
			}
		})
	}
}
