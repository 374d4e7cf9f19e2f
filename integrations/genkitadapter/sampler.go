package genkitadapter

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Sampler returns a [kit.Sampler] that answers MCP servers' sampling
// requests with the models of g: set mcpadapter.Sample(Sampler(g, name))
// as ManagerOptions.Sampler and the servers a flow imports can ask its
// model for completions, governed by the executor like any call.
//
// The request's model hints choose the model: the first that names a
// model defined in g, else modelName. The system prompt becomes
// ai.WithSystem; text, image and audio content become user or model
// messages (media as data URIs); maxTokens, stopSequences and temperature
// become an ai.GenerationCommonConfig. The result names the model used.
func Sampler(g *genkit.Genkit, modelName string) kit.Sampler {
	if g == nil {
		panic("genkitadapter: Sampler with a nil Genkit")
	}
	return func(ctx context.Context, p *kit.SampleRequest) (*kit.SampleResult, error) {
		name := modelName
		for _, h := range p.ModelHints {
			if genkit.LookupModel(g, h) != nil {
				name = h
				break
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
		res := &kit.SampleResult{Text: resp.Text(), Model: name, StopReason: kit.StopEndTurn}
		if resp.FinishReason == ai.FinishReasonLength {
			res.StopReason = kit.StopMaxTokens
		}
		return res, nil
	}
}

func samplingMessages(p *kit.SampleRequest) ([]*ai.Message, error) {
	msgs := make([]*ai.Message, 0, len(p.Messages))
	for i, m := range p.Messages {
		var part *ai.Part
		switch c := m.Content; c.Kind {
		case kit.PartText:
			part = ai.NewTextPart(c.Text)
		case kit.PartImage, kit.PartAudio:
			part = ai.NewMediaPart(c.MIMEType, "data:"+c.MIMEType+";base64,"+base64.StdEncoding.EncodeToString(c.Data))
		default:
			return nil, fmt.Errorf("genkitadapter: message %d: content %q cannot be sent to the model", i, c.Kind)
		}
		if m.Role == kit.RoleAssistant {
			msgs = append(msgs, ai.NewModelMessage(part))
		} else {
			msgs = append(msgs, ai.NewUserMessage(part))
		}
	}
	return msgs, nil
}
