package einoadapter

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Sampler returns a [kit.Sampler] that answers MCP servers' sampling
// requests with m, the agent's own model (mcpadapter.Sample(Sampler(m))
// as ManagerOptions.Sampler). The system prompt becomes a system message,
// images and audio base64 data parts of user messages; maxTokens,
// stopSequences and temperature become model options. One model answers
// every request, whatever the server's preferences; the result names its
// type.
func Sampler(m model.BaseChatModel) kit.Sampler {
	if m == nil {
		panic("einoadapter: Sampler with a nil model")
	}
	name := "eino"
	if t, ok := components.GetType(m); ok && t != "" {
		name = t
	}
	return func(ctx context.Context, p *kit.SampleRequest) (*kit.SampleResult, error) {
		msgs, err := samplingMessages(p)
		if err != nil {
			return nil, err
		}
		var opts []model.Option
		if p.MaxTokens > 0 {
			opts = append(opts, model.WithMaxTokens(int(p.MaxTokens)))
		}
		if len(p.StopSequences) > 0 {
			opts = append(opts, model.WithStop(p.StopSequences))
		}
		if p.Temperature != 0 {
			opts = append(opts, model.WithTemperature(float32(p.Temperature)))
		}
		out, err := m.Generate(ctx, msgs, opts...)
		if err != nil {
			return nil, err
		}
		if out == nil {
			return nil, errors.New("einoadapter: the model returned no message")
		}
		res := &kit.SampleResult{Text: out.Content, Model: name, StopReason: kit.StopEndTurn}
		if out.ResponseMeta != nil && out.ResponseMeta.FinishReason == "length" {
			res.StopReason = kit.StopMaxTokens
		}
		return res, nil
	}
}

func samplingMessages(p *kit.SampleRequest) ([]*schema.Message, error) {
	msgs := make([]*schema.Message, 0, len(p.Messages)+1)
	if p.SystemPrompt != "" {
		msgs = append(msgs, schema.SystemMessage(p.SystemPrompt))
	}
	for i, m := range p.Messages {
		role := schema.User
		if m.Role == kit.RoleAssistant {
			role = schema.Assistant
		}
		msg := &schema.Message{Role: role}
		c := m.Content
		switch c.Kind {
		case kit.PartText:
			msg.Content = c.Text
		case kit.PartImage:
			if role != schema.User {
				return nil, fmt.Errorf("einoadapter: message %d: an assistant image cannot be sent to the model", i)
			}
			data := base64.StdEncoding.EncodeToString(c.Data)
			msg.UserInputMultiContent = []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeImageURL,
				Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &data, MIMEType: c.MIMEType}}}}
		case kit.PartAudio:
			if role != schema.User {
				return nil, fmt.Errorf("einoadapter: message %d: an assistant audio clip cannot be sent to the model", i)
			}
			data := base64.StdEncoding.EncodeToString(c.Data)
			msg.UserInputMultiContent = []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeAudioURL,
				Audio: &schema.MessageInputAudio{MessagePartCommon: schema.MessagePartCommon{Base64Data: &data, MIMEType: c.MIMEType}}}}
		default:
			return nil, fmt.Errorf("einoadapter: message %d: content %q cannot be sent to the model", i, c.Kind)
		}
		msgs = append(msgs, msg)
	}
	return msgs, nil
}
