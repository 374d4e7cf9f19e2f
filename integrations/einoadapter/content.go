package einoadapter

import (
	"context"
	"encoding/base64"
	"encoding/json"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

// toolResult places a result's parts (adapter.RenderParts) in eino's
// multimodal result, media as base64 data parts, never in the text.
func toolResult(r *adapter.Result, opts *adapter.RenderOptions) *schema.ToolResult {
	parts := adapter.RenderParts(r, opts)
	out := &schema.ToolResult{Parts: make([]schema.ToolOutputPart, 0, len(parts))}
	for _, p := range parts {
		switch {
		case p.Media == nil:
			out.Parts = append(out.Parts, schema.ToolOutputPart{Type: schema.ToolPartTypeText, Text: p.Text})
		case p.Media.Kind == adapter.MediaImage:
			out.Parts = append(out.Parts, schema.ToolOutputPart{Type: schema.ToolPartTypeImage,
				Image: &schema.ToolOutputImage{MessagePartCommon: media(p.Media.MIMEType, p.Media.Data)}})
		case p.Media.Kind == adapter.MediaAudio:
			out.Parts = append(out.Parts, schema.ToolOutputPart{Type: schema.ToolPartTypeAudio,
				Audio: &schema.ToolOutputAudio{MessagePartCommon: media(p.Media.MIMEType, p.Media.Data)}})
		}
	}
	return out
}

// media is a media part's data, base64-encoded.
func media(mime string, data []byte) schema.MessagePartCommon {
	s := base64.StdEncoding.EncodeToString(data)
	return schema.MessagePartCommon{Base64Data: &s, MIMEType: mime}
}

// UnknownToolsHandler returns the handler of a call to a tool the agent
// does not have (ToolsNodeConfig.UnknownToolsHandler; the react agent's
// too): the model reads the not_found payload and the run goes on, and the
// call has its ledger record ([adapter.Executor.Unknown]). exec is
// required: nil panics here, not at the first made-up name.
func UnknownToolsHandler(exec *adapter.Executor) func(ctx context.Context, name, input string) (string, error) {
	if exec == nil {
		panic(errNilExecutor)
	}
	return func(ctx context.Context, name, input string) (string, error) {
		return kit.Unknown(ctx, exec, &adapter.Request{Tool: name, Args: json.RawMessage(input), CallID: compose.GetToolCallID(ctx), Integration: Integration}), nil
	}
}

// UnknownTool answers a call to a tool the agent does not have with the
// not_found payload, and leaves no ledger record.
//
// Deprecated: every call is to have a record; use [UnknownToolsHandler].
func UnknownTool(_ context.Context, name, _ string) (string, error) {
	return kit.Unknown(context.Background(), nil, &adapter.Request{Tool: name}), nil
}
