package genkitadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/integrations/kit/kittest"
	"github.com/agentadapter/agentadapter/registry"
)

// heldRun is the harness's error for a generation that stopped on a call
// held for approval (genkit reports it as an interrupted response).
type heldRun struct{ ticket string }

func (h *heldRun) Error() string { return "held for approval: " + h.ticket }

// TestKit: genkit.Generate, with the tools of Tools and
// UnknownToolsMiddleware, gives the model what every integration gives it.
// A held call interrupts the generation. Images and audio reach the model
// as media parts.
func TestKit(t *testing.T) {
	var n int
	var mu sync.Mutex
	kittest.Run(t, kittest.Harness{
		MediaParts: true,
		Run: func(ctx context.Context, reg *registry.Registry, exec *adapter.Executor, calls []kittest.Call) ([]string, error) {
			g := newGenkit(t)
			tools, err := genkitadapter.Tools(g, reg, exec, nil)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			n++
			name := fmt.Sprint("kit", n)
			mu.Unlock()
			var read []string
			next := 0
			genkit.DefineModel(g, "test/"+name, &ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true}},
				func(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
					if last := req.Messages[len(req.Messages)-1]; last.Role == ai.RoleTool {
						for _, p := range last.Content {
							if p.IsToolResponse() {
								read = append(read, modelText(t, p.ToolResponse.Output))
							}
						}
					}
					msg := ai.NewModelTextMessage("done")
					if next < len(calls) {
						c := calls[next]
						next++
						var input any
						if err := json.Unmarshal([]byte(c.Args), &input); err != nil {
							return nil, err
						}
						msg = ai.NewMessage(ai.RoleModel, nil, ai.NewToolRequestPart(&ai.ToolRequest{Name: c.Tool, Ref: fmt.Sprint("call_", next), Input: input}))
					}
					return &ai.ModelResponse{Request: req, Message: msg, FinishReason: ai.FinishReasonStop}, nil
				})
			resp, err := genkit.Generate(ctx, g, ai.WithModelName("test/"+name), ai.WithPrompt("go"), ai.WithTools(tools...),
				ai.WithMiddleware(genkitadapter.UnknownToolsMiddleware(exec)), ai.WithMaxTurns(2*len(calls)+2))
			if err != nil {
				return nil, err
			}
			if a := genkitadapter.Approvals(resp); len(a) > 0 {
				return read, &heldRun{a[0].Ticket}
			}
			return read, nil
		},
		Held: func(err error) (string, bool) {
			var h *heldRun
			if errors.As(err, &h) {
				return h.ticket, true
			}
			return "", false
		},
	})
}

// modelText is the text a genkit model plugin sends the model of a tool's
// output: a string as is, any other value as its JSON.
func modelText(t *testing.T, out any) string {
	if s, ok := out.(string); ok {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		t.Error(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
