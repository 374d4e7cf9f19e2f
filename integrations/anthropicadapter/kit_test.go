package anthropicadapter_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/anthropicadapter"
	"github.com/agentadapter/agentadapter/integrations/kit/kittest"
	"github.com/agentadapter/agentadapter/registry"
)

// TestKit: the SDK's tool runner, driven by Toolset.Run against a fake
// Messages API, gives the model what every integration gives it. A held
// call stops the conversation; Resume goes on from it. Images reach the
// model as image blocks, audio as the renderer's text.
func TestKit(t *testing.T) {
	var mu sync.Mutex
	var last *anthropicadapter.Held
	// converse runs calls, one a turn, and returns what the model read of each.
	converse := func(ctx context.Context, reg *registry.Registry, exec *adapter.Executor, calls []kittest.Call, resume bool) ([]string, error) {
		ts, err := anthropicadapter.Tools(reg, exec, nil)
		if err != nil {
			return nil, err
		}
		var got []string
		first := 0
		if resume {
			first = 1 // the held call is the first
		}
		f := newFakeAPI(t, func(n int, req *anthropic.BetaMessageNewParams) turn {
			if n > 0 || resume {
				for _, r := range results(req) {
					text, _, _ := read(t, r)
					got = append(got, text)
				}
			}
			if i := n + first; i < len(calls) {
				return turn{calls: []anthropic.BetaToolUseBlockParam{use(fmt.Sprint("toolu_", i), calls[i].Tool, calls[i].Args)}}
			}
			return turn{text: "done"}
		})
		c := f.client()
		var msg *anthropic.BetaMessage
		if resume {
			mu.Lock()
			h := last
			mu.Unlock()
			if h == nil {
				return nil, errors.New("nothing to resume")
			}
			msg, err = ts.Resume(ctx, &c.Beta.Messages, ask("go"), h)
		} else {
			msg, err = ts.Run(ctx, &c.Beta.Messages, ask("go"))
		}
		var h *anthropicadapter.Held
		if errors.As(err, &h) {
			mu.Lock()
			last = h
			mu.Unlock()
		}
		if err == nil && (len(msg.Content) != 1 || msg.Content[0].Text != "done") {
			t.Errorf("the conversation ended with %+v, want the model's done", msg.Content)
		}
		return got, err
	}
	kittest.Run(t, kittest.Harness{
		MediaParts: true,
		TextMedia:  func(k adapter.MediaKind) bool { return k == adapter.MediaAudio },
		Run: func(ctx context.Context, reg *registry.Registry, exec *adapter.Executor, calls []kittest.Call) ([]string, error) {
			return converse(ctx, reg, exec, calls, false)
		},
		Resume: func(ctx context.Context, reg *registry.Registry, exec *adapter.Executor, calls []kittest.Call) ([]string, error) {
			return converse(ctx, reg, exec, calls, true)
		},
		Held: func(err error) (string, bool) {
			var h *anthropicadapter.Held
			if errors.As(err, &h) && len(h.Calls) == 1 {
				return h.Calls[0].Ticket, true
			}
			return "", false
		},
	})
}
