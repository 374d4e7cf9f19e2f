package mcpadapter

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

// BenchmarkGovernSampling measures what governing a sampling request adds
// to the model's own time: the request summary, the executor's pipeline
// (validation, policy, ledger) and the hand-off to the sampler.
func BenchmarkGovernSampling(b *testing.B) {
	reg := registry.New()
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: adapter.NewMemoryLedger(1024)})
	defer exec.Close()
	m := NewManager(reg, &ManagerOptions{Executor: exec, Sampler: func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "ok"}}, nil
	}})
	defer m.Close()
	m.mu.Lock()
	c := newConn(m, Upstream{Name: "bench", Command: "unused"})
	m.mu.Unlock()
	req := &mcp.CreateMessageRequest{Params: &mcp.CreateMessageParams{MaxTokens: 100, SystemPrompt: "be brief",
		Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "What is the capital of France?"}}}}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.sample(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
