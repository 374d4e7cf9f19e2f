package einoadapter

import (
	"context"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// streamTool is a streaming spec as eino sees it: a tool.InvokableTool
// (the whole text at the end) and a tool.StreamableTool (the text in parts,
// as the tool produces them). Both go through the executor's whole
// pipeline.
type streamTool struct{ textTool }

// StreamableRun streams the call's text. A model-facing failure, before or
// during the stream, arrives as a last part holding its payload, so that
// the agent keeps going; approval_pending before the stream starts is an
// interrupt, as for InvokableRun; other failures end the stream with a Go
// error.
func (t *streamTool) StreamableRun(ctx context.Context, argumentsInJSON string, opts ...tool.Option) (*schema.StreamReader[string], error) {
	exec, req := t.request(ctx, argumentsInJSON, opts, t)
	ts, err := kit.StreamText(ctx, exec, req, &t.opts.Render)
	if err != nil {
		payload, err := t.failure(ctx, req, argumentsInJSON, err)
		if err != nil {
			return nil, err
		}
		return schema.StreamReaderFromArray([]string{payload}), nil
	}
	sr, sw := schema.Pipe[string](4)
	go func() {
		defer sw.Close()
		ts.Send(sw.Send)
	}()
	return sr, nil
}

var (
	_ tool.StreamableTool = (*streamTool)(nil)
	_ tool.InvokableTool  = (*streamTool)(nil)
)
