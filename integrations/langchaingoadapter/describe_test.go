package langchaingoadapter_test

import (
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
)

// TestDescribe checks that a tool describes itself to a text agent with
// kit.Description (whose text kit's TestDescription checks).
func TestDescribe(t *testing.T) {
	for _, spec := range []*adapter.Spec{addSpec(), echoSpec(t, "search", searchSchema), echoSpec(t, "ping", noArgsSchema)} {
		tl, err := lca.NewTool(spec, newExecutor(t, nil, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := tl.Description(), kit.Description(spec); got != want {
			t.Errorf("Tool.Description() = %q, want kit.Description's %q", got, want)
		}
	}
}
