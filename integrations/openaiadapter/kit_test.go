package openaiadapter_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit/kittest"
	"github.com/agentadapter/agentadapter/integrations/openaiadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// heldError is the harness's report of a loop stopped on a held call.
type heldError struct{ ticket string }

func (e heldError) Error() string { return "held: " + e.ticket }

// stepByStep scripts a model asking for one call a turn, in order, then
// answering "done".
func stepByStep(calls []kittest.Call) func(int, wireRequest) any {
	return func(n int, _ wireRequest) any {
		if n < len(calls) {
			return completion("", toolCall(fmt.Sprint("call_", n), calls[n].Tool, calls[n].Args))
		}
		return completion("done")
	}
}

// TestKit: Toolset.Loop, driving Chat Completions through the SDK's client
// against the fake API, gives the model what every integration gives it.
// What the model read is what the fake API received. A held call stops
// the loop.
func TestKit(t *testing.T) {
	kittest.Run(t, kittest.Harness{
		Run: func(ctx context.Context, reg *registry.Registry, exec *adapter.Executor, calls []kittest.Call) ([]string, error) {
			ts, err := openaiadapter.New(reg, exec, nil)
			if err != nil {
				return nil, err
			}
			api := newFakeAPI(t, stepByStep(calls))
			client := api.client()
			conv, err := ts.Loop(ctx, &client.Chat.Completions, openai.ChatCompletionNewParams{Model: "gpt-test", Messages: userMsg("go")})
			if errors.Is(err, openaiadapter.ErrPending) && len(conv.Held) == 1 {
				return nil, heldError{conv.Held[0].Ticket}
			}
			if err != nil {
				return nil, err
			}
			reqs := api.requests()
			var read []string
			for i := range calls {
				// Each result reaches the model in the request after its call.
				if i+1 < len(reqs) {
					if text, ok := reqs[i+1].toolText(fmt.Sprint("call_", i)); ok {
						read = append(read, text)
					}
				}
			}
			return read, nil
		},
		Held: func(err error) (string, bool) {
			var h heldError
			return h.ticket, errors.As(err, &h)
		},
	})
}

// TestKitResponses: a Responses API loop over the SDK's client, its
// outputs from ResponseAnswers, gives the model what every integration
// gives it; images reach it as input_image parts beside the text, audio
// (which a function output cannot carry) as the renderer's text.
func TestKitResponses(t *testing.T) {
	kittest.Run(t, kittest.Harness{
		MediaParts: true,
		TextMedia:  func(k adapter.MediaKind) bool { return k == adapter.MediaAudio },
		Run: func(ctx context.Context, reg *registry.Registry, exec *adapter.Executor, calls []kittest.Call) ([]string, error) {
			ts, err := openaiadapter.New(reg, exec, nil)
			if err != nil {
				return nil, err
			}
			api := newFakeAPI(t, scriptResponses(calls))
			_, held, err := responseLoop(ctx, ts, api.client(), "go")
			if len(held) == 1 {
				return nil, heldError{held[0].ticket}
			}
			if err != nil {
				return nil, err
			}
			reqs := api.requests()
			var read []string
			for i := range calls {
				if i+1 < len(reqs) {
					if out, ok := reqs[i+1].outputs(t)[fmt.Sprint("call_", i)]; ok {
						read = append(read, out.text(t))
					}
				}
			}
			return read, nil
		},
		Held: func(err error) (string, bool) {
			var h heldError
			return h.ticket, errors.As(err, &h)
		},
	})
}
