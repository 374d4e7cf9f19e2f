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
// images, input_image data URLs.
func (t *Toolset) ResponseAnswers(ctx context.Context, output []responses.ResponseOutputItemUnion) ([]responses.ResponseInputItemUnionParam, []*kit.HeldCall, error) {
	var calls []responses.ResponseFunctionToolCall
	for _, item := range output {
		if item.Type == "function_call" {
			calls = append(calls, item.AsFunctionCall())
		}
	}
	return answers(ctx, t, calls, func(c responses.ResponseFunctionToolCall) call {
		return call{name: c.Name, args: c.Arguments, id: c.CallID}
	}, func(c responses.ResponseFunctionToolCall, o outcome) responses.ResponseInputItemUnionParam {
		return t.output(c.CallID, o)
	})
}

// ResponseResume is [Toolset.ChatResume] for the Responses API.
func (t *Toolset) ResponseResume(ctx context.Context, held []*kit.HeldCall) ([]responses.ResponseInputItemUnionParam, []*kit.HeldCall, error) {
	return answers(ctx, t, held, resumed, func(h *kit.HeldCall, o outcome) responses.ResponseInputItemUnionParam {
		return t.output(h.CallID, o)
	})
}

func (t *Toolset) output(callID string, o outcome) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfFunctionCallOutput(o.text)
	if o.res != nil {
		var parts responses.ResponseFunctionCallOutputItemListParam
		for _, p := range adapter.RenderParts(o.res, &t.opts.Render) {
			part := responses.ResponseFunctionCallOutputItemParamOfInputText(p.Text)
			if p.Media != nil && p.Media.Kind == adapter.MediaImage {
				part = responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{
					ImageURL: param.NewOpt(kit.DataURL(p.Media.MIMEType, p.Media.Data))}}
			} else if p.Media != nil { // no audio input here: the block as Render writes it
				part.OfInputText.Text = adapter.Render(&adapter.Result{Content: []adapter.Content{p.Content}}, &t.opts.Render)
			}
			parts = append(parts, part)
		}
		item = responses.ResponseInputItemParamOfFunctionCallOutput(parts)
	}
	item.OfFunctionCallOutput.CallID = param.NewOpt(callID)
	return item
}
