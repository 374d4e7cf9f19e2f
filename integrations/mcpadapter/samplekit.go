package mcpadapter

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Sample returns s, a framework-neutral [kit.Sampler] (einoadapter,
// genkitadapter and langchaingoadapter each make one from their model),
// as the Sampler of [ManagerOptions]. Content other than text, images and
// audio is an error the server receives. A nil s panics.
func Sample(s kit.Sampler) Sampler {
	if s == nil {
		panic("mcpadapter: Sample with a nil kit.Sampler")
	}
	return func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		req, err := sampleRequest(p)
		if err != nil {
			return nil, err
		}
		out, err := s(ctx, req)
		if err != nil {
			return nil, err
		}
		if out == nil {
			return nil, nil // sample reports a nil result
		}
		stop := string(out.StopReason)
		if stop == "" {
			stop = string(kit.StopEndTurn)
		}
		return &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{Text: out.Text}, Model: out.Model, StopReason: stop}, nil
	}
}

func sampleRequest(p *mcp.CreateMessageParams) (*kit.SampleRequest, error) {
	req := &kit.SampleRequest{}
	if p == nil {
		return req, nil
	}
	req.SystemPrompt, req.MaxTokens, req.StopSequences, req.Temperature = p.SystemPrompt, p.MaxTokens, p.StopSequences, p.Temperature
	if p.ModelPreferences != nil {
		for _, h := range p.ModelPreferences.Hints {
			if h != nil && h.Name != "" {
				req.ModelHints = append(req.ModelHints, h.Name)
			}
		}
	}
	for i, m := range p.Messages {
		if m == nil {
			continue
		}
		msg := kit.Message{Role: kit.RoleUser}
		if m.Role == "assistant" {
			msg.Role = kit.RoleAssistant
		}
		switch c := m.Content.(type) {
		case *mcp.TextContent:
			msg.Content = kit.Part{Kind: kit.PartText, Text: c.Text}
		case *mcp.ImageContent:
			msg.Content = kit.Part{Kind: kit.PartImage, MIMEType: c.MIMEType, Data: c.Data}
		case *mcp.AudioContent:
			msg.Content = kit.Part{Kind: kit.PartAudio, MIMEType: c.MIMEType, Data: c.Data}
		default:
			return nil, fmt.Errorf("mcpadapter: message %d: content %T cannot be sent to the model", i, m.Content)
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}
