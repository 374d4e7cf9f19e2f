package openaiadapter

import (
	"context"
	"encoding/json"

	"github.com/openai/openai-go/v3"
)

// AgentHandlers returns the tools as the Agents session stream's
// ToolHandlers. The SDK tells the model a handler's error only as "Tool
// handler failed.", so a model-facing failure (approval_pending: its ticket)
// is the output, its payload; a fault is the error (for OnToolError). Run
// limits count the calls in the run scope of Stream's ctx (adapter.WithRun).
func (t *Toolset) AgentHandlers() map[string]openai.AgentToolHandler {
	hs := make(map[string]openai.AgentToolHandler, len(t.defs))
	for _, d := range t.defs {
		hs[d.Name] = func(ctx context.Context, args map[string]any) (any, error) {
			b, err := json.Marshal(args)
			if err != nil {
				return nil, err
			}
			o, err := t.do(ctx, call{name: d.Name, args: string(b)})
			return o.text, err
		}
	}
	return hs
}
