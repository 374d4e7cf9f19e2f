package anthropicadapter_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/anthropicadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// closed marks a tool that reaches nothing outside and changes nothing: no approval.
var closed = adapter.Annotations{ReadOnly: true, OpenWorld: new(bool)}

type num struct {
	N int `json:"n"`
}

type path struct {
	Path string `json:"path"`
}

func echoSpec(runs *atomic.Int32) *adapter.Spec {
	return adapter.MustTool("echo", "echoes n", func(_ context.Context, in num) (string, error) {
		runs.Add(1)
		b, _ := json.Marshal(in.N)
		return "n=" + string(b), nil
	}, &adapter.ToolOptions{Output: adapter.OutputText, Annotations: closed})
}

// deleteSpec is destructive: the executor holds it for approval.
func deleteSpec(runs *atomic.Int32) *adapter.Spec {
	return adapter.MustTool("delete", "deletes a file", func(_ context.Context, in path) (string, error) {
		runs.Add(1)
		return "deleted " + in.Path, nil
	}, &adapter.ToolOptions{Output: adapter.OutputText})
}

func mediaSpec() *adapter.Spec {
	return adapter.MustRawTool("media", "an image and a clip", &jsonschema.Schema{Type: "object"},
		func(context.Context, json.RawMessage) (*adapter.Result, error) {
			return &adapter.Result{Content: []adapter.Content{
				&adapter.TextContent{Text: "look:"},
				&adapter.ImageContent{Data: []byte("PNGDATA"), MIMEType: "image/png"},
				&adapter.ImageContent{Data: []byte("BMPDATA"), MIMEType: "image/bmp"},
				&adapter.AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"},
			}}, nil
		}, &adapter.ToolOptions{Annotations: closed})
}

type fixture struct {
	reg   *registry.Registry
	exec  *adapter.Executor
	tools *anthropicadapter.Toolset
	port  *approval.Deferred
	led   *ledger.Memory
}

func newFixture(t *testing.T, opts *adapter.ExecutorOptions, specs ...*adapter.Spec) *fixture {
	t.Helper()
	f := &fixture{reg: registry.New(), port: &approval.Deferred{}, led: ledger.NewMemory(0)}
	if err := f.reg.Register(specs...); err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &adapter.ExecutorOptions{}
	}
	opts.Approval.Port, opts.Ledger = f.port, f.led
	f.exec = adapter.NewExecutor(f.reg, opts)
	t.Cleanup(func() { f.exec.Close() })
	var err error
	if f.tools, err = anthropicadapter.Tools(f.reg, f.exec, nil); err != nil {
		t.Fatal(err)
	}
	return f
}

// records counts the ledger's records of tool with outcome.
func (f *fixture) records(t *testing.T, tool, outcome string) int {
	t.Helper()
	if err := f.exec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range f.led.Records() {
		if r.Tool == tool && r.Outcome == outcome {
			n++
		}
	}
	return n
}
