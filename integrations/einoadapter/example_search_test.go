package einoadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/toolsearch"
)

// foundSoFar wraps a chat model so that each turn sends it only the tools
// ix.Loaded admits: the meta-tools, the always-loaded tools, and those
// search_tools returned earlier in the run. The rest stay registered with
// the agent (a found tool is called directly) but hidden from the model.
type foundSoFar struct {
	model.ToolCallingChatModel
	ix    *toolsearch.Index
	opts  *toolsearch.ToolsOptions
	tools []*schema.ToolInfo
}

func (m *foundSoFar) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return &foundSoFar{m.ToolCallingChatModel, m.ix, m.opts, tools}, nil
}

func (m *foundSoFar) turn(ctx context.Context) (model.ToolCallingChatModel, error) {
	keep := m.ix.Loaded(ctx, m.opts)
	var sent []*schema.ToolInfo
	for _, t := range m.tools {
		if keep(t.Name) {
			sent = append(sent, t)
		}
	}
	return m.ToolCallingChatModel.WithTools(sent)
}

func (m *foundSoFar) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	inner, err := m.turn(ctx)
	if err != nil {
		return nil, err
	}
	return inner.Generate(ctx, in, opts...)
}

func (m *foundSoFar) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	inner, err := m.turn(ctx)
	if err != nil {
		return nil, err
	}
	return inner.Stream(ctx, in, opts...)
}

// Hand a react agent the meta-tools, an always-loaded tool and, hidden
// until a search finds them, the rest of the catalog: the model is sent
// the definitions of the tools found so far in its run.
func Example_foundSoFar() {
	reg := registry.New()
	city := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"city": {Type: "string"}}}
	for _, n := range []string{"weather_forecast", "weather_alerts", "stock_quote", "send_email", "translate_text"} {
		reg.MustRegister(adapter.MustRawTool(n, "Tool "+n+" of a city.", city, echoTool(n), &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}))
	}
	ix, err := toolsearch.New(reg, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()

	opts := &toolsearch.ToolsOptions{Filter: kit.Filter(registry.Filter{}, adapter.TargetEino), Always: []string{"send_email"}, Deferred: true}
	var tools []tool.BaseTool
	for _, s := range ix.Tools(opts) {
		t, err := einoadapter.Tool(s, exec, nil)
		if err != nil {
			log.Fatal(err)
		}
		tools = append(tools, t)
	}
	m := &searchModel{step: func(turn int, in []*schema.Message) *schema.Message {
		switch turn {
		case 0:
			return schema.AssistantMessage("", []schema.ToolCall{call("s1", "search_tools", `{"query":"weather","limit":2}`)})
		case 1:
			return schema.AssistantMessage("", []schema.ToolCall{call("c1", "weather_forecast", `{"city":"Oslo"}`)})
		}
		return schema.AssistantMessage(lastTool(in), nil)
	}}
	ctx := context.Background()
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: &foundSoFar{ToolCallingChatModel: m, ix: ix, opts: opts},
		ToolsConfig:      compose.ToolsNodeConfig{Tools: tools},
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, _ = adapter.WithRun(ctx, nil) // the model's turns and the tools' calls share the run
	out, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage("weather in Oslo?")})
	if err != nil {
		log.Fatal(err)
	}
	for i, sent := range m.turns() {
		fmt.Println("turn", i+1, sent)
	}
	fmt.Println(out.Content)
	// Output:
	// turn 1 [call_tool search_tools send_email]
	// turn 2 [call_tool search_tools send_email weather_alerts weather_forecast]
	// turn 3 [call_tool search_tools send_email weather_alerts weather_forecast]
	// weather_forecast {"city":"Oslo"}
}

func echoTool(name string) func(context.Context, json.RawMessage) (*adapter.Result, error) {
	return func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		return adapter.TextResult(name + " " + string(args)), nil
	}
}
