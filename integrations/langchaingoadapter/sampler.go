package langchaingoadapter

import (
	"context"
	"errors"
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
		msgs, err := samplingMessages(p)
		if err != nil {
			return nil, err
		}
		var opts []llms.CallOption
		if p.MaxTokens > 0 {
			opts = append(opts, llms.WithMaxTokens(int(p.MaxTokens)))
		}
		if len(p.StopSequences) > 0 {
			opts = append(opts, llms.WithStopWords(p.StopSequences))
		}
		if p.Temperature != 0 {
			opts = append(opts, llms.WithTemperature(p.Temperature))
		}
		resp, err := m.GenerateContent(ctx, msgs, opts...)
		if err != nil {
			return nil, err
		}
		if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
			return nil, errors.New("langchaingoadapter: the model returned no choice")
		}
		c := resp.Choices[0]
		res := &kit.SampleResult{Text: c.Content, Model: "langchaingo", StopReason: kit.StopEndTurn}
		switch c.StopReason {
		case "length", "max_tokens", "MAX_TOKENS":
			res.StopReason = kit.StopMaxTokens
		}
		return res, nil
	}
}

func samplingMessages(p *kit.SampleRequest) ([]llms.MessageContent, error) {
	msgs := make([]llms.MessageContent, 0, len(p.Messages)+1)
	if p.SystemPrompt != "" {
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeSystem, p.SystemPrompt))
	}
	for i, m := range p.Messages {
		role := llms.ChatMessageTypeHuman
		if m.Role == kit.RoleAssistant {
			role = llms.ChatMessageTypeAI
		}
		var part llms.ContentPart
		switch c := m.Content; c.Kind {
		case kit.PartText:
			part = llms.TextPart(c.Text)
		case kit.PartImage, kit.PartAudio:
			part = llms.BinaryPart(c.MIMEType, c.Data)
		default:
			return nil, fmt.Errorf("langchaingoadapter: message %d: content %q cannot be sent to the model", i, c.Kind)
		}
		msgs = append(msgs, llms.MessageContent{Role: role, Parts: []llms.ContentPart{part}})
	}
	return msgs, nil
}
