package einoadapter_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
	"github.com/agentadapter/agentadapter/integrations/kit/kittest"
	"github.com/agentadapter/agentadapter/registry"
)

// stepModel makes the tool calls of one step per turn, then answers with
// the tool results it read.
type stepModel struct {
	steps [][]schema.ToolCall

	mu     sync.Mutex
	inputs [][]*schema.Message
}

func (m *stepModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	turn := len(m.inputs)
	m.inputs = append(m.inputs, append([]*schema.Message(nil), in...))
	if turn < len(m.steps) {
		return schema.AssistantMessage("", m.steps[turn]), nil
	}
	var parts []string
	for _, msg := range in {
		if msg.Role == schema.Tool {
			parts = append(parts, msg.ToolCallID+"="+toolText(msg))
		}
	}
	return schema.AssistantMessage("done: "+strings.Join(parts, " | "), nil), nil
}

func (m *stepModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *stepModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

// A model that calls a tool that does not exist reads the not_found
// payload and the react agent goes on to the real tool and the answer.
func TestUnknownToolReact(t *testing.T) {
	ctx := context.Background()
	reg := registry.New()
	reg.MustRegister(addSpec())
	ledger := adapter.NewMemoryLedger(0)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: ledger})
	defer exec.Close()
	tools, err := einoadapter.Tools(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &stepModel{steps: [][]schema.ToolCall{
		{call("c1", "no_such_tool", `{"a":1}`)},
		{call("c2", "add", `{"a":2,"b":3}`)},
	}}
	a, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: m,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: tools, UnknownToolsHandler: einoadapter.UnknownToolsHandler(exec)},
		MaxStep:          10,
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Generate(ctx, userMsg("add"))
	if err != nil {
		t.Fatalf("the run ended on the unknown tool: %v", err)
	}
	// The made-up call has exactly one record, as every call does.
	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var recs []string
	for _, r := range ledger.Records() {
		recs = append(recs, r.CallID+" "+r.Tool+" "+r.Outcome+" "+r.Integration)
	}
	if want := []string{"c1 no_such_tool not_found eino", "c2 add ok eino"}; strings.Join(recs, "|") != strings.Join(want, "|") {
		t.Errorf("records:\n got %q\nwant %q", recs, want)
	}
	want := `done: c1={"error":{"kind":"not_found","message":"no tool named \"no_such_tool\"","tool":"no_such_tool"}} | c2={"sum":5}`
	if out.Content != want {
		t.Errorf("answer = %q\nwant     %q", out.Content, want)
	}
	// The second turn is the one that saw the payload.
	m.mu.Lock()
	second := m.inputs[1]
	m.mu.Unlock()
	if last := second[len(second)-1]; last.Role != schema.Tool || !strings.Contains(last.Content, `"kind":"not_found"`) {
		t.Errorf("the model's second turn read %+v, want the not_found payload", last)
	}
	// Without the handler, eino ends the run: the reason the helper exists.
	b, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: &stepModel{steps: m.steps}, ToolsConfig: compose.ToolsNodeConfig{Tools: tools}, MaxStep: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Generate(ctx, userMsg("add")); err == nil {
		t.Error("eino went on past an unknown tool without the handler; UnknownTool may no longer be needed")
	}
}

// The cross-integration golden: every case's tool, called as eino calls a
// tool, gives the model exactly the text in internal/kittest.
func TestRenderGolden(t *testing.T) {
	golden, err := kittest.Golden()
	if err != nil {
		t.Fatal(err)
	}
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	text := &einoadapter.Options{Multimodal: func(*adapter.Spec) bool { return false }}
	multi := &einoadapter.Options{Multimodal: func(*adapter.Spec) bool { return true }}
	for _, c := range kittest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			want, ok := golden[c.Name]
			if !ok {
				t.Fatalf("no golden for %s", c.Name)
			}
			got, err := mustTool(t, c.Spec, exec, text).(tool.InvokableTool).InvokableRun(context.Background(), `{}`)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("eino text tool: model reads %q\nwant %q", got, want)
			}
			// A multimodal tool gives the same text, with media as parts.
			res, err := mustTool(t, c.Spec, exec, multi).(tool.EnhancedInvokableTool).InvokableRun(context.Background(), &schema.ToolArgument{Text: `{}`})
			if err != nil {
				t.Fatal(err)
			}
			var texts, media []string
			for _, p := range res.Parts {
				switch p.Type {
				case schema.ToolPartTypeText:
					texts = append(texts, p.Text)
				case schema.ToolPartTypeImage:
					media = append(media, fmt.Sprintf("image %s", p.Image.MIMEType))
				case schema.ToolPartTypeAudio:
					media = append(media, fmt.Sprintf("audio %s", p.Audio.MIMEType))
				default:
					t.Errorf("unexpected part type %s", p.Type)
				}
			}
			wantText := want
			switch c.Name {
			case "image":
				wantText = "a red dot:"
				if len(media) != 1 || media[0] != "image image/png" {
					t.Errorf("media parts = %v, want one PNG image", media)
				}
			case "audio":
				wantText = ""
				if len(media) != 1 || media[0] != "audio audio/wav" {
					t.Errorf("media parts = %v, want one WAV clip", media)
				}
			}
			if got := strings.Join(texts, "\n"); got != wantText {
				t.Errorf("eino multimodal tool: text parts %q, want %q", got, wantText)
			}
		})
	}
}
