package langchaingoadapter

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmc/langchaingo/llms"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// Sampler returns an [mcpadapter.Sampler] that answers MCP servers'
// sampling requests with m, the agent's own model: set it as
// ManagerOptions.Sampler and the servers an agent imports can ask its
// model for completions, governed by the executor like any call.
//
// The system prompt becomes a system message; text, image and audio
// content become human or AI messages (media as binary parts); maxTokens,
// stopSequences and temperature become llms.WithMaxTokens, WithStopWords
// and WithTemperature. One model answers every request: the server's model
// preferences cannot choose another (a provider refuses model names it does
// not serve), and the result names "langchaingo" as its model.
func Sampler(m llms.Model) mcpadapter.Sampler {
	if m == nil {
		panic("langchaingoadapter: Sampler with a nil model")
	}
	return func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
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
		res := &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{Text: c.Content}, Model: "langchaingo", StopReason: "endTurn"}
		switch c.StopReason {
		case "length", "max_tokens", "MAX_TOKENS":
			res.StopReason = "maxTokens"
		}
		return res, nil
	}
}

func samplingMessages(p *mcp.CreateMessageParams) ([]llms.MessageContent, error) {
	msgs := make([]llms.MessageContent, 0, len(p.Messages)+1)
	if p.SystemPrompt != "" {
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeSystem, p.SystemPrompt))
	}
	for i, m := range p.Messages {
		if m == nil {
			continue
		}
		role := llms.ChatMessageTypeHuman
		if m.Role == "assistant" {
			role = llms.ChatMessageTypeAI
		}
		var part llms.ContentPart
		switch c := m.Content.(type) {
		case *mcp.TextContent:
			part = llms.TextPart(c.Text)
		case *mcp.ImageContent:
			part = llms.BinaryPart(c.MIMEType, c.Data)
		case *mcp.AudioContent:
			part = llms.BinaryPart(c.MIMEType, c.Data)
		default:
			return nil, fmt.Errorf("langchaingoadapter: message %d: content %T cannot be sent to the model", i, m.Content)
		}
		msgs = append(msgs, llms.MessageContent{Role: role, Parts: []llms.ContentPart{part}})
	}
	return msgs, nil
}
