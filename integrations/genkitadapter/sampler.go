package genkitadapter

import (
	"context"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Sampler returns a [kit.Sampler] (for mcpadapter.Sample) that answers MCP
// servers' sampling requests with g's models: the first model hint defined
// in g, else modelName.
func Sampler(g *genkit.Genkit, modelName string) kit.Sampler {
	if g == nil {
		panic("genkitadapter: Sampler with a nil Genkit")
	}
	return func(ctx context.Context, p *kit.SampleRequest) (*kit.SampleResult, error) {
		name := kit.ChooseModel(p, func(h string) bool { return genkit.LookupModel(g, h) != nil }, modelName)
		msgs, err := kit.Messages(p, nil, func(r kit.Role, c kit.Part) (*ai.Message, error) {
			part := ai.NewTextPart(c.Text)
			if c.Kind != kit.PartText {
				part = ai.NewMediaPart(c.MIMEType, kit.DataURL(c.MIMEType, c.Data))
			}
			if r == kit.RoleAssistant {
				return ai.NewModelMessage(part), nil
			}
			return ai.NewUserMessage(part), nil
		})
		if err != nil {
			return nil, fmt.Errorf("genkitadapter: %w", err)
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
		return &kit.SampleResult{Text: resp.Text(), Model: name, StopReason: kit.StopReasonOf(string(resp.FinishReason))}, nil
	}
}
