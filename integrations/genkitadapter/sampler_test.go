package genkitadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

// defineReply defines a model taking system prompts and media that answers
// every request with text, recording the requests.
func defineReply(g *genkit.Genkit, name, text string) *scripted {
	s := &scripted{}
	s.Model = genkit.DefineModel(g, "test/"+name,
		&ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, SystemRole: true, Media: true}},
		func(ctx context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.reqs = append(s.reqs, req)
			return &ai.ModelResponse{Request: req, Message: ai.NewModelTextMessage(text), FinishReason: ai.FinishReasonStop}, nil
		})
	return s
}

// TestSamplerServerEverything: server-everything's trigger-sampling-request
// is answered by the flow's own (scripted) genkit model.
func TestSamplerServerEverything(t *testing.T) {
	cmd := testpeers.Command(t, "mcp-server-everything", "stdio")
	g := newGenkit(t)
	model := defineReply(g, "sampler", "genkit scripted answer")
	reg := registry.New()
	led := adapter.NewMemoryLedger(100)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: led})
	mgr := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Sampler: mcpadapter.Sample(genkitadapter.Sampler(g, "test/sampler")), Executor: exec})
	defer func() {
		mgr.Close()
		exec.Close()
	}()
	ctx := context.Background()
	if err := mgr.Connect(ctx, mcpadapter.Server{Name: "everything", Command: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env,
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
	if !strings.Contains(res.Text(), "genkit scripted answer") || !strings.Contains(res.Text(), "test/sampler") {
		t.Errorf("the tool's result lacks the model's text or name: %s", res.Text())
	}
	reqs := model.requests()
	if len(reqs) != 1 {
		t.Fatalf("the model was asked %d times", len(reqs))
	}
	var roles, texts []string
	for _, m := range reqs[0].Messages {
		roles = append(roles, string(m.Role))
		texts = append(texts, m.Text())
	}
	if strings.Join(roles, ",") != "system,user" || texts[0] != "You are a helpful test server." || !strings.Contains(texts[1], "capital of France?") {
		t.Errorf("the model got roles %v, texts %q", roles, texts)
	}
	cfg, _ := reqs[0].Config.(*ai.GenerationCommonConfig)
	if cfg == nil || cfg.MaxOutputTokens != 64 || cfg.Temperature != 0.7 {
		t.Errorf("the model got config %#v", reqs[0].Config)
	}
	exec.Flush(ctx)
	var sampled int
	for _, r := range led.Records() {
		if r.Tool == mcpadapter.SamplingTool && r.Outcome == adapter.OutcomeOK {
			sampled++
		}
	}
	if sampled != 1 {
		t.Errorf("%d sampling records in the ledger, want 1", sampled)
	}
}

func TestSamplerPreferencesAndMedia(t *testing.T) {
	g := newGenkit(t)
	def := defineReply(g, "default", "from default")
	fast := defineReply(g, "fast", "from fast")
	s := mcpadapter.Sample(genkitadapter.Sampler(g, "test/default"))
	res, err := s(context.Background(), &mcp.CreateMessageParams{
		Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.ImageContent{MIMEType: "image/png", Data: []byte("png")}}},
		// An unknown hint is skipped; the first known one wins.
		ModelPreferences: &mcp.ModelPreferences{Hints: []*mcp.ModelHint{{Name: "gpt-nonexistent"}, {Name: "test/fast"}}},
		StopSequences:    []string{"END"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != "test/fast" || res.Content.(*mcp.TextContent).Text != "from fast" || len(def.requests()) != 0 {
		t.Errorf("result %+v: the preferred model did not answer", res)
	}
	p := fast.requests()[0].Messages[0].Content[0]
	if !p.IsMedia() || p.ContentType != "image/png" || p.Text != "data:image/png;base64,cG5n" {
		t.Errorf("image part = %+v", p)
	}
	if cfg := fast.requests()[0].Config.(*ai.GenerationCommonConfig); len(cfg.StopSequences) != 1 {
		t.Errorf("config %+v", cfg)
	}
}
