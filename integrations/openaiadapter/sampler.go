package openaiadapter

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Sampler returns a [kit.Sampler] (for mcpadapter.Sample) answering MCP
// servers' sampling with chat and the first model hint in models, else
// models[0]; a user's image goes as a data URL, audio is an error.
func Sampler(chat *openai.ChatCompletionService, models ...string) kit.Sampler {
	if chat == nil || len(models) == 0 {
		panic("openaiadapter: Sampler needs a ChatCompletionService and a model")
	}
	return func(ctx context.Context, req *kit.SampleRequest) (*kit.SampleResult, error) {
		msgs, err := kit.Messages(req, func(s string) openai.ChatCompletionMessageParamUnion { return openai.SystemMessage(s) }, message)
		if err != nil {
			return nil, fmt.Errorf("openaiadapter: %w", err)
		}
		p := openai.ChatCompletionNewParams{Messages: msgs, Model: kit.ChooseModel(req, func(h string) bool { return slices.Contains(models, h) }, models[0])}
		for _, set := range kit.SampleOptions(req, func(n int) func() { return func() { p.MaxCompletionTokens = param.NewOpt(int64(n)) } },
			func(s []string) func() { return func() { p.Stop.OfStringArray = s } },
			func(f float64) func() { return func() { p.Temperature = param.NewOpt(f) } }) {
			set()
		}
		c, err := chat.New(ctx, p)
		if err != nil || len(c.Choices) == 0 {
			return nil, cmp.Or(err, errNoChoice)
		}
		return &kit.SampleResult{Text: c.Choices[0].Message.Content, Model: cmp.Or(c.Model, p.Model),
			StopReason: kit.StopReasonOf(c.Choices[0].FinishReason)}, nil
	}
}

func message(r kit.Role, c kit.Part) (openai.ChatCompletionMessageParamUnion, error) {
	switch {
	case c.Kind == kit.PartText && r == kit.RoleAssistant:
		return openai.AssistantMessage(c.Text), nil
	case c.Kind == kit.PartText:
		return openai.UserMessage(c.Text), nil
	case c.Kind == kit.PartImage && r == kit.RoleUser:
		return openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
			openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: kit.DataURL(c.MIMEType, c.Data)})}), nil
	}
	return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("%s %s content cannot be sent to the model", r, c.Kind)
}
