package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
)

// The scripted models decide from the conversation alone, as a real model
// does, so that a run continued by another process goes on where it
// stopped: a question gets a lookup, a lookup's result gets a transfer, a
// transfer's result gets the answer. They print what they read.

type einoScripted struct{ out io.Writer }

func (m *einoScripted) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	last := in[len(in)-1]
	if last.Role != schema.Tool {
		return einoCall("lookup", `{"account":"bob"}`), nil
	}
	fmt.Fprintf(m.out, "eino: model reads %s: %s\n", last.ToolName, last.Content)
	if last.ToolName == "lookup" {
		return einoCall("transfer", `{"to":"bob","amount":100}`), nil
	}
	return schema.AssistantMessage("transfer: "+last.Content, nil), nil
}

func einoCall(name, args string) *schema.Message {
	return schema.AssistantMessage("", []schema.ToolCall{
		{ID: newCallID(), Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}},
	})
}

func (m *einoScripted) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *einoScripted) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}

func genkitScripted(g *genkit.Genkit, out io.Writer) ai.Model {
	return genkit.DefineModel(g, "durable/scripted", &ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true}},
		func(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			last := req.Messages[len(req.Messages)-1]
			var msg *ai.Message
			switch {
			case last.Role != ai.RoleTool || len(last.Content) == 0 || last.Content[0].ToolResponse == nil:
				msg = genkitCall("lookup", map[string]any{"account": "carol"})
			default:
				r := last.Content[0].ToolResponse
				b, _ := json.Marshal(r.Output)
				fmt.Fprintf(out, "genkit: model reads %s: %s\n", r.Name, b)
				if r.Name == "lookup" {
					msg = genkitCall("transfer", map[string]any{"to": "carol", "amount": 250})
				} else {
					msg = ai.NewModelTextMessage("transfer: " + string(b))
				}
			}
			return &ai.ModelResponse{Request: req, Message: msg}, nil
		})
}

func genkitCall(name string, input map[string]any) *ai.Message {
	return ai.NewMessage(ai.RoleModel, nil, ai.NewToolRequestPart(&ai.ToolRequest{Name: name, Ref: newCallID(), Input: input}))
}

func newCallID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "call_" + hex.EncodeToString(b)
}
