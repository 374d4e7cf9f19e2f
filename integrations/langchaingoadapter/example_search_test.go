package langchaingoadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/toolsearch"
)

// foundSoFar wraps a model so that each call sends it only the tools
// ix.Loaded admits (functions and tools alike): the meta-tools, the
// always-loaded tools, and those search_tools returned earlier in the run.
// Give the agent every tool of ix.Tools with Deferred; open the run
// (adapter.WithRun) around the agent's run.
type foundSoFar struct {
	llms.Model
	ix   *toolsearch.Index
	opts *toolsearch.ToolsOptions
}

func (m *foundSoFar) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range options {
		opt(&o)
	}
	keep := m.ix.Loaded(ctx, m.opts)
	fns := slices.DeleteFunc(slices.Clone(o.Functions), func(f llms.FunctionDefinition) bool { return !keep(f.Name) })
	tls := slices.DeleteFunc(slices.Clone(o.Tools), func(t llms.Tool) bool { return t.Function != nil && !keep(t.Function.Name) })
	return m.Model.GenerateContent(ctx, msgs, append(options, llms.WithFunctions(fns), llms.WithTools(tls))...)
}

func (m *foundSoFar) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// Hand a functions agent the meta-tools, an always-loaded tool and, hidden
// until a search finds them, the rest of the catalog: the model is sent
// the definitions of the tools found so far in its run.
func Example_foundSoFar() {
	reg := registry.New()
	city := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"city": {Type: "string"}}}
	for _, n := range []string{"weather_forecast", "weather_alerts", "stock_quote", "send_email", "translate_text"} {
		reg.MustRegister(adapter.MustRawTool(n, "Tool "+n+" of a city.", city, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
			return adapter.TextResult(n + " " + string(args)), nil
		}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}))
	}
	ix, err := toolsearch.New(reg, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()

	opts := &toolsearch.ToolsOptions{Filter: kit.Filter(registry.Filter{}, lca.Integration), Always: []string{"send_email"}, Deferred: true}
	var tls []tools.Tool
	for _, s := range ix.Tools(opts) {
		t, err := lca.NewTool(s, exec, nil)
		if err != nil {
			log.Fatal(err)
		}
		tls = append(tls, t)
	}
	m := &scriptedModel{turns: []turn{
		callTools(toolCall("s1", "search_tools", `{"__arg1": {"query":"weather","limit":2}}`)),
		callTools(toolCall("c1", "weather_forecast", `{"__arg1": {"city":"Oslo"}}`)),
		answerWithLastTool(""),
	}}
	ctx, _ := adapter.WithRun(context.Background(), nil) // the model's turns and the tools' calls share the run
	out, err := lca.Run(ctx, agents.NewExecutor(agents.NewOpenAIFunctionsAgent(&foundSoFar{Model: m, ix: ix, opts: opts}, tls)), "weather in Oslo?", nil)
	if err != nil {
		log.Fatal(err)
	}
	for i, o := range m.opts {
		fmt.Println("turn", i+1, functionNames(o))
	}
	fmt.Println(out)
	// Output:
	// turn 1 [call_tool search_tools send_email]
	// turn 2 [call_tool search_tools send_email weather_alerts weather_forecast]
	// turn 3 [call_tool search_tools send_email weather_alerts weather_forecast]
	// weather_forecast {"city":"Oslo"}
}
