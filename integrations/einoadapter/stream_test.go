package einoadapter_test

import (
	"context"
	"errors"
	"io"
	"iter"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
)

type storyIn struct {
	Words []string `json:"words" jsonschema:"the words to tell, one part each"`
}

// storySpec yields one part per word; after each part it waits on step (if
// set), so a test can prove a part arrived before the next was produced.
func storySpec(step chan struct{}) *adapter.Spec {
	return adapter.MustStreamTool("story", "tells a story word by word", func(ctx context.Context, in storyIn) iter.Seq2[adapter.Content, error] {
		return func(yield func(adapter.Content, error) bool) {
			for i, w := range in.Words {
				if i > 0 && step != nil {
					select {
					case <-step:
					case <-ctx.Done():
						return
					}
				}
				if w == "FAIL" {
					yield(nil, errors.New("the story broke"))
					return
				}
				if !yield(&adapter.TextContent{Text: w}, nil) {
					return
				}
			}
		}
	}, nil)
}

func recvAll(t *testing.T, sr *schema.StreamReader[string], step chan struct{}) []string {
	t.Helper()
	defer sr.Close()
	var got []string
	for {
		chunk, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil {
			t.Fatalf("Recv: %v", err)
		}
		got = append(got, chunk)
		if step != nil {
			select {
			case step <- struct{}{}:
			default:
			}
		}
	}
}

func TestStreamableTool(t *testing.T) {
	step := make(chan struct{}, 1)
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	bt, err := einoadapter.Tool(storySpec(step), exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := bt.(tool.StreamableTool)
	if !ok {
		t.Fatalf("a streaming spec is a %T, not a tool.StreamableTool", bt)
	}
	sr, err := st.StreamableRun(context.Background(), `{"words":["once ","upon ","a time"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := recvAll(t, sr, step); strings.Join(got, "|") != "once |upon |a time" {
		t.Fatalf("parts %q", got)
	}

	// A failure mid-stream reaches the model as a last part: its payload.
	whole, err := einoadapter.Tool(storySpec(nil), exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	st = whole.(tool.StreamableTool)
	sr, err = st.StreamableRun(context.Background(), `{"words":["a ","FAIL"]}`)
	if err != nil {
		t.Fatal(err)
	}
	got := recvAll(t, sr, nil)
	if len(got) != 2 || got[0] != "a " || !strings.Contains(got[1], `"kind":"tool_error"`) || !strings.Contains(got[1], "the story broke") {
		t.Fatalf("parts %q", got)
	}
	// A failure before any output is one payload part, with no Go error.
	sr, err = st.StreamableRun(context.Background(), `{"words":"not a list"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := recvAll(t, sr, nil); len(got) != 1 || !strings.Contains(got[0], `"kind":"args_invalid"`) {
		t.Fatalf("parts %q", got)
	}
	// InvokableRun gives the whole text.
	out, err := whole.(tool.InvokableTool).InvokableRun(context.Background(), `{"words":["x","y"]}`)
	if err != nil || out != "xy" {
		t.Fatalf("InvokableRun = %q, %v", out, err)
	}
}

// TestStreamingReactAgent: a react agent run in stream mode streams the
// tool through the executor, and the model reads the whole story.
func TestStreamingReactAgent(t *testing.T) {
	ctx := context.Background()
	ledger := adapter.NewMemoryLedger(0)
	exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Ledger: ledger})
	defer exec.Close()
	bt, err := einoadapter.Tool(storySpec(nil), exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(call("s1", "story", `{"words":["once ","upon ","a time"]}`))
	agent, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: m, ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{bt}}})
	if err != nil {
		t.Fatal(err)
	}
	sr, err := agent.Stream(ctx, []*schema.Message{schema.UserMessage("tell me a story")})
	if err != nil {
		t.Fatal(err)
	}
	var answer strings.Builder
	for {
		msg, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		answer.WriteString(msg.Content)
	}
	sr.Close()
	if want := "done: s1=once upon a time"; answer.String() != want {
		t.Fatalf("answer %q, want %q", answer.String(), want)
	}
	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	recs := ledger.Records()
	if len(recs) != 1 || recs[0].Integration != "eino" || recs[0].CallID != "s1" || recs[0].Outcome != adapter.OutcomeOK {
		t.Fatalf("ledger %+v", recs)
	}
}
