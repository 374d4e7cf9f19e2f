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
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
)

// scriptedModel is an offline model.ToolCallingChatModel: on a user turn it
// asks for the scripted tool calls; once tool results arrive it answers
// with "done: " and the results' contents. It records every input.
type scriptedModel struct {
	calls []schema.ToolCall

	mu     sync.Mutex
	inputs [][]*schema.Message
	tools  []*schema.ToolInfo
}

func newModel(calls ...schema.ToolCall) *scriptedModel { return &scriptedModel{calls: calls} }

func call(id, name, args string) schema.ToolCall {
	return schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}
}

func (m *scriptedModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	m.inputs = append(m.inputs, append([]*schema.Message(nil), in...))
	m.mu.Unlock()
	if len(in) == 0 {
		return nil, fmt.Errorf("scripted model: no input")
	}
	if in[len(in)-1].Role != schema.Tool {
		return schema.AssistantMessage("", m.calls), nil
	}
	var parts []string
	for _, msg := range in {
		if msg.Role == schema.Tool {
			parts = append(parts, msg.ToolCallID+"="+toolText(msg))
		}
	}
	return schema.AssistantMessage("done: "+strings.Join(parts, " | "), nil), nil
}

func (m *scriptedModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *scriptedModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	m.mu.Lock()
	m.tools = tools
	m.mu.Unlock()
	return m, nil
}

// toolResults returns the tool messages the model received in its last
// call, by tool call id.
func (m *scriptedModel) toolResults() map[string]*schema.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]*schema.Message{}
	if len(m.inputs) == 0 {
		return out
	}
	for _, msg := range m.inputs[len(m.inputs)-1] {
		if msg.Role == schema.Tool {
			out[msg.ToolCallID] = msg
		}
	}
	return out
}

func (m *scriptedModel) turns() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.inputs)
}

func toolText(msg *schema.Message) string {
	if msg.Content != "" || len(msg.UserInputMultiContent) == 0 {
		return msg.Content
	}
	var b strings.Builder
	for _, p := range msg.UserInputMultiContent {
		if p.Type == schema.ChatMessagePartTypeText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// memStore is an in-memory compose.CheckPointStore.
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memStore) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *memStore) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[id] = b
	return nil
}

// runFunc runs an agent on messages with graph options.
type runFunc func(ctx context.Context, msgs []*schema.Message, opts ...compose.Option) (*schema.Message, error)

// setup configures one agent flavour.
type setup struct {
	model *scriptedModel
	tools []tool.BaseTool
	// middlewares for the ToolsNode.
	middlewares []compose.ToolMiddleware
	argsHandler func(ctx context.Context, name, args string) (string, error)
	// store, if set, is the checkpoint store the agent is compiled with.
	store compose.CheckPointStore
}

// flavours are the two agent loops every end-to-end test runs through:
// eino's react agent and a graph built by hand.
var flavours = []struct {
	name  string
	build func(t *testing.T, s setup) runFunc
}{
	{"react", buildReact},
	{"graph", buildGraph},
}

func buildReact(t *testing.T, s setup) runFunc {
	t.Helper()
	ctx := context.Background()
	a, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: s.model,
		ToolsConfig: compose.ToolsNodeConfig{Tools: s.tools, ToolCallMiddlewares: s.middlewares,
			ToolArgumentsHandler: s.argsHandler},
		MaxStep: 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.store == nil {
		return func(ctx context.Context, msgs []*schema.Message, opts ...compose.Option) (*schema.Message, error) {
			return a.Generate(ctx, msgs, agent.WithComposeOptions(opts...))
		}
	}
	// react.Agent takes no checkpoint store: run its graph inside one that does.
	g := compose.NewGraph[[]*schema.Message, *schema.Message]()
	ag, addOpts := a.ExportGraph()
	if err := g.AddGraphNode("agent", ag, addOpts...); err != nil {
		t.Fatal(err)
	}
	must(t, g.AddEdge(compose.START, "agent"))
	must(t, g.AddEdge("agent", compose.END))
	r, err := g.Compile(ctx, compose.WithCheckPointStore(s.store))
	if err != nil {
		t.Fatal(err)
	}
	return r.Invoke
}

type loopState struct{ Messages []*schema.Message }

func init() { schema.RegisterName[*loopState]("einoadapter_test_loop_state") }

func buildGraph(t *testing.T, s setup) runFunc {
	t.Helper()
	ctx := context.Background()
	var infos []*schema.ToolInfo
	for _, tl := range s.tools {
		info, err := tl.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, info)
	}
	m, err := s.model.WithTools(infos)
	if err != nil {
		t.Fatal(err)
	}
	tn, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{Tools: s.tools, ToolCallMiddlewares: s.middlewares,
		ToolArgumentsHandler: s.argsHandler})
	if err != nil {
		t.Fatal(err)
	}
	g := compose.NewGraph[[]*schema.Message, *schema.Message](compose.WithGenLocalState(func(context.Context) *loopState {
		return &loopState{}
	}))
	must(t, g.AddChatModelNode("model", m, compose.WithStatePreHandler(
		func(_ context.Context, in []*schema.Message, st *loopState) ([]*schema.Message, error) {
			st.Messages = append(st.Messages, in...)
			return st.Messages, nil
		})))
	must(t, g.AddToolsNode("tools", tn, compose.WithStatePreHandler(
		func(_ context.Context, in *schema.Message, st *loopState) (*schema.Message, error) {
			if in == nil { // resumed from a checkpoint: the input is not replayed
				return st.Messages[len(st.Messages)-1], nil
			}
			st.Messages = append(st.Messages, in)
			return in, nil
		})))
	must(t, g.AddEdge(compose.START, "model"))
	must(t, g.AddBranch("model", compose.NewGraphBranch(func(_ context.Context, msg *schema.Message) (string, error) {
		if len(msg.ToolCalls) > 0 {
			return "tools", nil
		}
		return compose.END, nil
	}, map[string]bool{"tools": true, compose.END: true})))
	must(t, g.AddEdge("tools", "model"))
	opts := []compose.GraphCompileOption{compose.WithNodeTriggerMode(compose.AnyPredecessor), compose.WithMaxRunSteps(20)}
	if s.store != nil {
		opts = append(opts, compose.WithCheckPointStore(s.store))
	}
	r, err := g.Compile(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return r.Invoke
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func userMsg(s string) []*schema.Message { return []*schema.Message{schema.UserMessage(s)} }
