package langchaingoadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmc/langchaingo/llms"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

// replyModel is a scripted llms.Model answering every request with one
// text, remembering what it was asked.
type replyModel struct {
	text string
	mu   sync.Mutex
	in   [][]llms.MessageContent
	opts []llms.CallOptions
}

func (m *replyModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, f := range opts {
		f(&o)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.in = append(m.in, msgs)
	m.opts = append(m.opts, o)
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: m.text, StopReason: "stop"}}}, nil
}

func (m *replyModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// TestSamplerServerEverything: server-everything's trigger-sampling-request
// is answered by the agent's own (scripted) langchaingo model.
func TestSamplerServerEverything(t *testing.T) {
	cmd := testpeers.Command(t, "mcp-server-everything", "stdio")
	m := &replyModel{text: "langchaingo scripted answer"}
	reg := registry.New()
	led := adapter.NewMemoryLedger(100)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: led})
	mgr := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Sampler: mcpadapter.Sample(langchaingoadapter.Sampler(m)), Executor: exec})
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
	if !strings.Contains(res.Text(), "langchaingo scripted answer") {
		t.Errorf("the tool's result lacks the model's text: %s", res.Text())
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.in) != 1 {
		t.Fatalf("the model was asked %d times", len(m.in))
	}
	in, o := m.in[0], m.opts[0]
	if len(in) != 2 || in[0].Role != llms.ChatMessageTypeSystem || in[0].Parts[0].(llms.TextContent).Text != "You are a helpful test server." ||
		in[1].Role != llms.ChatMessageTypeHuman || !strings.Contains(in[1].Parts[0].(llms.TextContent).Text, "capital of France?") {
		t.Errorf("the model got %+v", in)
	}
	if o.MaxTokens != 64 || o.Temperature != 0.7 {
		t.Errorf("the model got options %+v", o)
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

func TestSamplerContent(t *testing.T) {
	m := &replyModel{text: "ok"}
	res, err := mcpadapter.Sample(langchaingoadapter.Sampler(m))(context.Background(), &mcp.CreateMessageParams{
		Messages: []*mcp.SamplingMessage{
			{Role: "user", Content: &mcp.ImageContent{MIMEType: "image/png", Data: []byte("png")}},
			{Role: "assistant", Content: &mcp.TextContent{Text: "seen"}},
		},
		StopSequences: []string{"END"},
	})
	if err != nil || res.Content.(*mcp.TextContent).Text != "ok" {
		t.Fatalf("Sampler = %+v, %v", res, err)
	}
	in := m.in[0]
	if b, ok := in[0].Parts[0].(llms.BinaryContent); !ok || string(b.Data) != "png" || b.MIMEType != "image/png" || in[1].Role != llms.ChatMessageTypeAI {
		t.Errorf("messages %+v", in)
	}
	if got := m.opts[0].StopWords; len(got) != 1 || got[0] != "END" {
		t.Errorf("stop words = %v", got)
	}
}
