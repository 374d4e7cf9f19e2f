package genkitadapter

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// Sampler returns an [mcpadapter.Sampler] that answers MCP servers'
// sampling requests with the models of g: set it as
// ManagerOptions.Sampler and the servers a flow imports can ask its model
// for completions, governed by the executor like any call.
//
// The request's model preferences choose the model: the first hint that
// names a model defined in g, else modelName. The system prompt becomes
// ai.WithSystem; text, image and audio content become user or model
// messages (media as data URIs); maxTokens, stopSequences and temperature
// become an ai.GenerationCommonConfig. The result names the model used.
func Sampler(g *genkit.Genkit, modelName string) mcpadapter.Sampler {
	if g == nil {
		panic("genkitadapter: Sampler with a nil Genkit")
	}
	return func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		name := modelName
		if p.ModelPreferences != nil {
			for _, h := range p.ModelPreferences.Hints {
				if h != nil && h.Name != "" && genkit.LookupModel(g, h.Name) != nil {
					name = h.Name
					break
				}
			}
		}
		msgs, err := samplingMessages(p)
		if err != nil {
			return nil, err
		}
		opts := []ai.GenerateOption{ai.WithModelName(name), ai.WithMessages(msgs...),
			ai.WithConfig(&ai.GenerationCommonConfig{MaxOutputTokens: int(p.MaxTokens), StopSequences: p.StopSequences, Temperature: p.Temperature})}
		if p.SystemPrompt != "" {
			opts = append(opts, ai.WithSystem(p.SystemPrompt))
		}
		resp, err := genkit.Generate(ctx, g, opts...)
		if err != nil {
			return nil, err
		}
		res := &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{Text: resp.Text()}, Model: name, StopReason: "endTurn"}
		if resp.FinishReason == ai.FinishReasonLength {
			res.StopReason = "maxTokens"
		}
		return res, nil
	}
}

func samplingMessages(p *mcp.CreateMessageParams) ([]*ai.Message, error) {
	msgs := make([]*ai.Message, 0, len(p.Messages))
	for i, m := range p.Messages {
		if m == nil {
			continue
		}
		var part *ai.Part
		switch c := m.Content.(type) {
		case *mcp.TextContent:
			part = ai.NewTextPart(c.Text)
		case *mcp.ImageContent:
			part = ai.NewMediaPart(c.MIMEType, "data:"+c.MIMEType+";base64,"+base64.StdEncoding.EncodeToString(c.Data))
		case *mcp.AudioContent:
			part = ai.NewMediaPart(c.MIMEType, "data:"+c.MIMEType+";base64,"+base64.StdEncoding.EncodeToString(c.Data))
		default:
			return nil, fmt.Errorf("genkitadapter: message %d: content %T cannot be sent to the model", i, m.Content)
		}
		if m.Role == "assistant" {
			msgs = append(msgs, ai.NewModelMessage(part))
		} else {
			msgs = append(msgs, ai.NewUserMessage(part))
		}
	}
	return msgs, nil
}
