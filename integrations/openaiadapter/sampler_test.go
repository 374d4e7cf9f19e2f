package openaiadapter_test

import (
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/integrations/openaiadapter"
)

// TestSamplerContent: a sampling request reaches Chat Completions with its
// system prompt, an image as a data URL, the assistant's text, the
// settings, and the model hint the sampler has; the reply's finish reason
// maps to the stop reason.
func TestSamplerContent(t *testing.T) {
	api := newFakeAPI(t, func(int, wireRequest) any {
		c := completion("ok")
		c.Choices[0].FinishReason = "length"
		return c
	})
	client := api.client()
	s := openaiadapter.Sampler(&client.Chat.Completions, "gpt-default", "gpt-hinted")
	res, err := s(bg, &kit.SampleRequest{SystemPrompt: "be brief", MaxTokens: 9, Temperature: 0.5, StopSequences: []string{"END"},
		ModelHints: []string{"claude", "gpt-hinted"},
		Messages: []kit.Message{{Role: kit.RoleUser, Content: kit.Part{Kind: kit.PartImage, MIMEType: "image/png", Data: []byte("png")}},
			{Role: kit.RoleAssistant, Content: kit.Part{Kind: kit.PartText, Text: "seen"}}}})
	if err != nil || res.Text != "ok" || res.StopReason != kit.StopMaxTokens || res.Model != "gpt-test" {
		t.Fatalf("Sampler = %+v, %v", res, err)
	}
	r := api.requests()[0]
	if r.Model != "gpt-hinted" || r.MaxCompletionTokens != 9 || r.Temperature != 0.5 || len(r.Stop) != 1 || r.Stop[0] != "END" {
		t.Errorf("settings: %s", r.Raw)
	}
	if len(r.Messages) != 3 || r.Messages[0].Role != "system" || r.Messages[0].text() != "be brief" ||
		!strings.Contains(string(r.Messages[1].Content), `"url":"data:image/png;base64,cG5n"`) ||
		r.Messages[2].Role != "assistant" || r.Messages[2].text() != "seen" {
		t.Errorf("messages: %s", r.Raw)
	}
	for _, m := range []kit.Message{{Role: kit.RoleUser, Content: kit.Part{Kind: kit.PartAudio, MIMEType: "audio/wav", Data: []byte("wav")}},
		{Role: kit.RoleAssistant, Content: kit.Part{Kind: kit.PartImage, MIMEType: "image/png", Data: []byte("png")}}} {
		if _, err := s(bg, &kit.SampleRequest{Messages: []kit.Message{m}}); err == nil {
			t.Errorf("%s %s: no error", m.Role, m.Content.Kind)
		}
	}
	if n := len(api.requests()); n != 1 {
		t.Errorf("the model was asked %d times, want 1", n)
	}
}
