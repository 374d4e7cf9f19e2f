package langchaingoadapter

import (
	"context"
	"fmt"

	"github.com/tmc/langchaingo/llms"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Sampler returns a [kit.Sampler] that answers MCP servers' sampling
// requests with m, the agent's own model: set mcpadapter.Sample(Sampler(m))
// as ManagerOptions.Sampler and the servers an agent imports can ask its
// model for completions, governed by the executor like any call.
//
// The system prompt becomes a system message; text, image and audio
// content become human or AI messages (media as binary parts); maxTokens,
// stopSequences and temperature become llms.WithMaxTokens, WithStopWords
// and WithTemperature. One model answers every request: the server's model
// hints cannot choose another (a provider refuses model names it does
// not serve), and the result names "langchaingo" as its model.
func Sampler(m llms.Model) kit.Sampler {
	if m == nil {
		panic("langchaingoadapter: Sampler with a nil model")
	}
	return func(ctx context.Context, p *kit.SampleRequest) (*kit.SampleResult, error) {
		msgs, err := kit.Messages(p, func(prompt string) llms.MessageContent {
			return llms.TextParts(llms.ChatMessageTypeSystem, prompt)
		}, message)
		if err != nil {
			return nil, fmt.Errorf("langchaingoadapter: %w", err)
		}
		opts := kit.SampleOptions(p, llms.WithMaxTokens, llms.WithStopWords, llms.WithTemperature)
		c, err := choice(m.GenerateContent(ctx, msgs, opts...))
		if err != nil {
			return nil, err
		}
		return &kit.SampleResult{Text: c.Content, Model: "langchaingo", StopReason: kit.StopReasonOf(c.StopReason)}, nil
	}
}

func message(r kit.Role, c kit.Part) (llms.MessageContent, error) {
	role, part := llms.ChatMessageTypeHuman, llms.ContentPart(llms.TextPart(c.Text))
	if r == kit.RoleAssistant {
		role = llms.ChatMessageTypeAI
	}
	if c.Kind != kit.PartText {
		part = llms.BinaryPart(c.MIMEType, c.Data)
	}
	return llms.MessageContent{Role: role, Parts: []llms.ContentPart{part}}, nil
}
