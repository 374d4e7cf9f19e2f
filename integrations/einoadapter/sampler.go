package einoadapter

import (
	"context"
	"errors"
	"fmt"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Sampler returns a [kit.Sampler] answering MCP servers' sampling requests
// with m, whatever the server's model preferences; the result names m's
// type. m must not be nil.
func Sampler(m model.BaseChatModel) kit.Sampler {
	if m == nil {
		panic("einoadapter: Sampler with a nil model")
	}
	name := "eino"
	if t, ok := components.GetType(m); ok && t != "" {
		name = t
	}
	return func(ctx context.Context, p *kit.SampleRequest) (*kit.SampleResult, error) {
		msgs, err := kit.Messages(p, schema.SystemMessage, message)
		if err != nil {
			return nil, fmt.Errorf("einoadapter: %w", err)
		}
		out, err := m.Generate(ctx, msgs, kit.SampleOptions(p, model.WithMaxTokens, model.WithStop,
			func(t float64) model.Option { return model.WithTemperature(float32(t)) })...)
		if err != nil {
			return nil, err
		}
		if out == nil {
			return nil, errors.New("einoadapter: the model returned no message")
		}
		res := &kit.SampleResult{Text: out.Content, Model: name, StopReason: kit.StopEndTurn}
		if out.ResponseMeta != nil {
			res.StopReason = kit.StopReasonOf(out.ResponseMeta.FinishReason)
		}
		return res, nil
	}
}

// message is one sampling message; an assistant's media is an error.
func message(r kit.Role, c kit.Part) (*schema.Message, error) {
	msg := &schema.Message{Role: schema.User}
	switch {
	case r == kit.RoleAssistant && c.Kind == kit.PartText:
		msg.Role = schema.Assistant
	case r == kit.RoleAssistant && c.Kind == kit.PartAudio:
		return nil, errors.New("an assistant audio clip cannot be sent to the model")
	case r == kit.RoleAssistant:
		return nil, errors.New("an assistant image cannot be sent to the model")
	}
	switch c.Kind {
	case kit.PartText:
		msg.Content = c.Text
	case kit.PartImage:
		msg.UserInputMultiContent = []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeImageURL,
			Image: &schema.MessageInputImage{MessagePartCommon: media(c.MIMEType, c.Data)}}}
	case kit.PartAudio:
		msg.UserInputMultiContent = []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeAudioURL,
			Audio: &schema.MessageInputAudio{MessagePartCommon: media(c.MIMEType, c.Data)}}}
	}
	return msg, nil
}
