package openaiadapter

import (
	"context"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

// ResponseAnswers is [Toolset.ChatAnswers] for the function calls among a
// response's output items: function_call_output items for the next input,
// the result's parts ([adapter.RenderParts]) as input_text and, for
// images, input_image data URLs. The calls run in ctx's run scope or in
// none: this package has no Responses loop, so wrap yours in [adapter.WithRun].
func (t *Toolset) ResponseAnswers(ctx context.Context, output []responses.ResponseOutputItemUnion) ([]responses.ResponseInputItemUnionParam, []*kit.HeldCall, error) {
	var calls []call
	for _, item := range output {
		if item.Type == "function_call" {
			c := item.AsFunctionCall()
			calls = append(calls, call{name: c.Name, args: c.Arguments, id: c.CallID})
		}
	}
	return answers(ctx, t, calls, func(c call) call { return c }, t.output)
}

// ResponseResume is [Toolset.ChatResume] for the Responses API.
func (t *Toolset) ResponseResume(ctx context.Context, held []*kit.HeldCall) ([]responses.ResponseInputItemUnionParam, []*kit.HeldCall, error) {
	return answers(ctx, t, held, resumed, t.output)
}

// output is a call's function_call_output: the result's parts, or the text
// when there are none (a payload, an empty result): the API requires an output.
func (t *Toolset) output(c call, o outcome) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfFunctionCallOutput(o.text)
	notImage := func(k adapter.MediaKind) bool { return k != adapter.MediaImage } // no audio input here: Render's text
	parts := kit.TextMedia(adapter.RenderParts(o.res, &t.opts.Render), notImage, &t.opts.Render)
	if len(parts) > 0 {
		item = responses.ResponseInputItemParamOfFunctionCallOutput(responses.ResponseFunctionCallOutputItemListParam(
			kit.MapParts(parts, responses.ResponseFunctionCallOutputItemParamOfInputText, image)))
	}
	item.OfFunctionCallOutput.CallID = param.NewOpt(c.id)
	return item
}

func image(m *adapter.Media) (responses.ResponseFunctionCallOutputItemUnionParam, bool) {
	return responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{
		ImageURL: param.NewOpt(kit.DataURL(m.MIMEType, m.Data))}}, true
}
