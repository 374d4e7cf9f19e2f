package kit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestCheckNames(t *testing.T) {
	errClash := errors.New("name clash")
	spec := func(name string) *adapter.Spec {
		return adapter.MustTool(name, "", func(context.Context, struct{}) (string, error) { return "", nil }, nil)
	}
	a, b := spec("a"), spec("b")
	taken := func(n string) bool { return n == "b" }
	for _, tt := range []struct {
		name  string
		specs []*adapter.Spec
		taken func(string) bool
		want  string // "" means no error
	}{
		{"none", nil, taken, ""},
		{"distinct", []*adapter.Spec{a, b}, nil, ""},
		{"nil spec", []*adapter.Spec{nil, a}, taken, ""},
		{"taken", []*adapter.Spec{a, b}, taken, `name clash: "b" (spec from local)`},
		{"twice", []*adapter.Spec{a, a}, nil, `name clash: "a" appears twice`},
		{"both", []*adapter.Spec{b, b}, taken, "name clash: \"b\" (spec from local)\nname clash: \"b\" appears twice\nname clash: \"b\" (spec from local)"},
	} {
		err := kit.CheckNames(tt.specs, tt.taken, errClash)
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, errClash) {
				t.Errorf("%s: CheckNames = %v, not wrapping the sentinel", tt.name, err)
			}
		}
		if got != tt.want {
			t.Errorf("%s: CheckNames = %q, want %q", tt.name, got, tt.want)
		}
	}
}
