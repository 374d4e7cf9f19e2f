// Package sampling holds what the MCP client's sampling needs besides the
// executor: the summary of a sampling request the ledger records, and the
// adaptation of a framework-neutral kit.Sampler to go-sdk's request.
//
//	answer := sampling.Adapt(kitSampler) // mcpadapter.Sample's Sampler
//	res, err := answer(ctx, params)
//
// It is internal to the module.
package sampling

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Adapt answers sampling requests with s (see mcpadapter.Sample).
func Adapt(s kit.Sampler) func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		req, err := request(p)
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

// Summary is what the ledger records of a sampling request.
func Summary(server string, p *mcp.CreateMessageParams) map[string]any {
	msgs := make([]map[string]any, 0, len(p.Messages))
	for _, m := range p.Messages {
		if m == nil {
			continue
		}
		msgs = append(msgs, map[string]any{"role": m.Role, "content": contentSummary(m.Content)})
	}
	s := map[string]any{"server": server, "messages": msgs, "maxTokens": p.MaxTokens}
	if p.SystemPrompt != "" {
		s["systemPrompt"] = p.SystemPrompt
	}
	if len(p.StopSequences) > 0 {
		s["stopSequences"] = p.StopSequences
	}
	if p.ModelPreferences != nil {
		s["modelPreferences"] = p.ModelPreferences
	}
	if p.Temperature != 0 {
		s["temperature"] = p.Temperature
	}
	return s
}

func contentSummary(c mcp.Content) any {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data))
	case nil:
		return nil
	default:
		return fmt.Sprintf("[%T]", c)
	}
}

func request(p *mcp.CreateMessageParams) (*kit.SampleRequest, error) {
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
