package anthropicadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/anthropicadapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

// TestSampler: a sampling request reaches the Messages API as the SDK's
// request: the system prompt, the messages (a user's image as an image
// block), the limits and the first model hint the sampler has.
func TestSampler(t *testing.T) {
	api := newFakeAPI(t, func(int, *anthropic.BetaMessageNewParams) turn {
		return turn{text: "sampled", stop: anthropic.BetaStopReasonMaxTokens}
	})
	c := api.client()
	s := anthropicadapter.Sampler(&c.Beta.Messages, "claude-a", []anthropic.Model{"claude-b"})
	res, err := s(context.Background(), &kit.SampleRequest{
		SystemPrompt: "be brief",
		Messages: []kit.Message{
			{Role: kit.RoleUser, Content: kit.Part{Kind: kit.PartText, Text: "what is this?"}},
			{Role: kit.RoleUser, Content: kit.Part{Kind: kit.PartImage, MIMEType: "image/png", Data: []byte("PNG")}},
			{Role: kit.RoleAssistant, Content: kit.Part{Kind: kit.PartText, Text: "a dot"}},
		},
		MaxTokens: 64, StopSequences: []string{"END"}, ModelHints: []string{"claude-z", "claude-b"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "sampled" || res.Model != "claude-b" || res.StopReason != kit.StopMaxTokens {
		t.Errorf("result %+v", res)
	}
	req := api.requests()[0]
	if req.Model != "claude-b" || req.MaxTokens != 64 || len(req.StopSequences) != 1 || len(req.System) != 1 || req.System[0].Text != "be brief" {
		t.Errorf("request model %s, max %d, stop %q, system %+v", req.Model, req.MaxTokens, req.StopSequences, req.System)
	}
	if len(req.Messages) != 3 || req.Messages[1].OfUser == nil || req.Messages[1].OfUser.Content[0].OfImage == nil ||
		req.Messages[2].OfAssistant == nil || req.Messages[2].OfAssistant.Content[0].OfText.Text != "a dot" {
		b, _ := json.Marshal(req.Messages)
		t.Errorf("messages %s", b)
	}
	// What the API cannot take fails before any request.
	for _, p := range []kit.Message{
		{Role: kit.RoleUser, Content: kit.Part{Kind: kit.PartAudio, MIMEType: "audio/wav", Data: []byte("RIFF")}},
		{Role: kit.RoleAssistant, Content: kit.Part{Kind: kit.PartImage, MIMEType: "image/png", Data: []byte("PNG")}},
		{Role: kit.RoleUser, Content: kit.Part{Kind: kit.PartImage, MIMEType: "image/tiff", Data: []byte("TIFF")}},
	} {
		if _, err := s(context.Background(), &kit.SampleRequest{Messages: []kit.Message{p}}); err == nil {
			t.Errorf("a %s %s was sampled", p.Role, p.Content.Kind)
		}
	}
	if n := len(api.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// TestSamplerServerEverything: server-everything's trigger-sampling-request
// is answered by the Messages API (the fake) through the manager.
func TestSamplerServerEverything(t *testing.T) {
	cmd := testpeers.Command(t, "mcp-server-everything", "stdio")
	api := newFakeAPI(t, func(int, *anthropic.BetaMessageNewParams) turn { return turn{text: "Paris, says the runner's model"} })
	c := api.client()
	reg := registry.New()
	exec := adapter.NewExecutor(reg, nil)
	mgr := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Executor: exec,
		Sampler: mcpadapter.Sample(anthropicadapter.Sampler(&c.Beta.Messages, "claude-test", nil))})
	defer func() {
		mgr.Close()
		exec.Close()
	}()
	ctx := context.Background()
	if err := mgr.Connect(ctx, mcpadapter.Upstream{Name: "everything", Command: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env,
		ConnectTimeout: time.Minute, CallTimeout: time.Minute, Trust: true}); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if _, ok := reg.Lookup("trigger-sampling-request"); ok {
			break
		}
		if i == 600 {
			t.Fatal("trigger-sampling-request never appeared")
		}
		mgr.Refresh(ctx)
		time.Sleep(50 * time.Millisecond)
	}
	res, err := exec.Call(ctx, "trigger-sampling-request", json.RawMessage(`{"prompt":"capital of France?","maxTokens":64}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text(), "Paris, says the runner's model") {
		t.Errorf("the tool's result lacks the model's text: %s", res.Text())
	}
	reqs := api.requests()
	if len(reqs) != 1 || reqs[0].MaxTokens != 64 || !strings.Contains(reqs[0].Messages[0].OfUser.Content[0].OfText.Text, "capital of France?") {
		t.Errorf("the API was asked %d times: %+v", len(reqs), reqs)
	}
}
