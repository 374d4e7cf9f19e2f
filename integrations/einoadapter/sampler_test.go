package einoadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

// replyModel is a scripted eino model that answers every request with one
// text, remembering what it was asked.
type replyModel struct {
	text string
	mu   sync.Mutex
	in   [][]*schema.Message
	opts []*model.Options
}

func (m *replyModel) Generate(_ context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.in = append(m.in, in)
	m.opts = append(m.opts, model.GetCommonOptions(nil, opts...))
	return schema.AssistantMessage(m.text, nil), nil
}

func (m *replyModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	out, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{out}), nil
}

// TestSamplerServerEverything: server-everything's trigger-sampling-request
// is answered by the agent's own (scripted) eino model.
func TestSamplerServerEverything(t *testing.T) {
	cmd := testpeers.Command(t, "mcp-server-everything", "stdio")
	m := &replyModel{text: "eino scripted answer"}
	reg := registry.New()
	led := adapter.NewMemoryLedger(100)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: led})
	mgr := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Sampler: mcpadapter.Sample(einoadapter.Sampler(m)), Executor: exec})
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
	if !strings.Contains(res.Text(), "eino scripted answer") {
		t.Errorf("the tool's result lacks the model's text: %s", res.Text())
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.in) != 1 {
		t.Fatalf("the model was asked %d times", len(m.in))
	}
	in, o := m.in[0], m.opts[0]
	if len(in) != 2 || in[0].Role != schema.System || in[0].Content != "You are a helpful test server." ||
		in[1].Role != schema.User || !strings.Contains(in[1].Content, "capital of France?") {
		t.Errorf("the model got %v", in)
	}
	if o.MaxTokens == nil || *o.MaxTokens != 64 || o.Temperature == nil || *o.Temperature != 0.7 {
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
	s := mcpadapter.Sample(einoadapter.Sampler(m))
	res, err := s(context.Background(), &mcp.CreateMessageParams{
		Messages: []*mcp.SamplingMessage{
			{Role: "user", Content: &mcp.ImageContent{MIMEType: "image/png", Data: []byte("png")}},
			{Role: "assistant", Content: &mcp.TextContent{Text: "seen"}},
		},
		StopSequences: []string{"END"},
	})
	if err != nil || res.Role != "assistant" || res.Content.(*mcp.TextContent).Text != "ok" {
		t.Fatalf("Sampler = %+v, %v", res, err)
	}
	in := m.in[0]
	img := in[0].UserInputMultiContent[0].Image
	if img == nil || *img.Base64Data != "cG5n" || img.MIMEType != "image/png" || in[1].Role != schema.Assistant {
		t.Errorf("messages %+v", in)
	}
	if got := m.opts[0].Stop; len(got) != 1 || got[0] != "END" {
		t.Errorf("stop = %v", got)
	}
	// Content the model cannot take is an error, not a silent drop.
	if _, err := s(context.Background(), &mcp.CreateMessageParams{Messages: []*mcp.SamplingMessage{
		{Role: "assistant", Content: &mcp.ImageContent{MIMEType: "image/png", Data: []byte("x")}}}}); err == nil {
		t.Error("an assistant image was accepted")
	}
}
