package consumer

import (
	"context"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

// TestInstalled runs a tool through the executor of the installed module
// (scripts/check-install checks which versions the build used).
func TestInstalled(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("add", "Adds two integers.", func(_ context.Context, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	}, nil))
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	res, err := exec.Call(context.Background(), "add", []byte(`{"a":1,"b":2}`))
	if err != nil || !strings.Contains(res.Text(), `"sum":3`) {
		t.Fatalf("add = %v, %v", res, err)
	}

}
