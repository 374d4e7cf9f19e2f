package mcpadapter_test

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// TestServerRequestsNeedAnExecutor: a Sampler or an Elicitation with no
// Executor to govern their requests fails Connect, naming the option,
// rather than answering servers under a policy-free default.
func TestServerRequestsNeedAnExecutor(t *testing.T) {
	sampler := func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		return nil, errors.New("unused")
	}
	elicit := func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return nil, errors.New("unused")
	}
	for name, opts := range map[string]*mcpadapter.ManagerOptions{
		"sampler":     {Sampler: sampler},
		"elicitation": {Elicitation: elicit},
	} {
		t.Run(name, func(t *testing.T) {
			m := mcpadapter.NewManager(registry.New(), opts)
			defer m.Close()
			ct, _ := mcp.NewInMemoryTransports()
			err := m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Transport: ct})
			if !errors.Is(err, kit.ErrNilExecutor) {
				t.Fatalf("Connect = %v; want an error wrapping kit.ErrNilExecutor", err)
			}
			if len(m.Servers()) != 0 {
				t.Errorf("servers after the refused Connect: %v", m.Servers())
			}
		})
	}
}
