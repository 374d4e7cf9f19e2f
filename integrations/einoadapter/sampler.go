package einoadapter

import (
	"cmp"
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
	t, _ := components.GetType(m)
	name := cmp.Or(t, "eino")
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

// message is one sampling message, media as base64 data parts of a user
// message (an assistant's is an error).
func message(r kit.Role, c kit.Part) (*schema.Message, error) {
	switch {
	case c.Kind == kit.PartText && r == kit.RoleAssistant:
		return schema.AssistantMessage(c.Text, nil), nil
	case c.Kind == kit.PartText:
		return schema.UserMessage(c.Text), nil
	case r == kit.RoleAssistant:
		return nil, fmt.Errorf("an assistant %s cannot be sent to the model", map[kit.PartKind]string{kit.PartImage: "image", kit.PartAudio: "audio clip"}[c.Kind])
	}
	m := media(c.MIMEType, c.Data)
	part := schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: m}}
	if c.Kind == kit.PartAudio {
		part = schema.MessageInputPart{Type: schema.ChatMessagePartTypeAudioURL, Audio: &schema.MessageInputAudio{MessagePartCommon: m}}
	}
	return &schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{part}}, nil
}
