package einoadapter_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
)

const benchArgs = `{"a":2,"b":3}`

// BenchmarkExecutorDo is the floor: the executor called directly.
func BenchmarkExecutorDo(b *testing.B) {
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	spec := addSpec()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := exec.Do(ctx, &adapter.Request{Spec: spec, Args: json.RawMessage(benchArgs), Integration: "eino"})
		if err != nil || res.Text() != `{"sum":5}` {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkInvokableRun is the same call through the eino tool.
func BenchmarkInvokableRun(b *testing.B) {
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	tl, err := einoadapter.Tool(addSpec(), exec, nil)
	if err != nil {
		b.Fatal(err)
	}
	it := tl.(tool.InvokableTool)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, err := it.InvokableRun(ctx, benchArgs)
		if err != nil || out != `{"sum":5}` {
			b.Fatal(out, err)
		}
	}
}

// BenchmarkInferTool is eino's own wrapper around the same function, with
// no policy at all.
func BenchmarkInferTool(b *testing.B) {
	it, err := utils.InferTool("add", "adds two integers", func(_ context.Context, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, err := it.InvokableRun(ctx, benchArgs)
		if err != nil || out != `{"sum":5}` {
			b.Fatal(out, err)
		}
	}
}
