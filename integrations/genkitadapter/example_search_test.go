package genkitadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/toolsearch"
)

// foundSoFar is a model middleware sending the model, on each turn, only
// the tool definitions ix.Loaded admits: the meta-tools, the always-loaded
// tools, and those search_tools returned earlier in the run. The rest
// stay with the generation (a found tool is called directly) but hidden.
// Genkit does not keep the order of its tools from turn to turn: sorting
// them by name keeps the definitions the same (prompt caching).
func foundSoFar(ix *toolsearch.Index, opts *toolsearch.ToolsOptions) ai.ModelMiddleware {
	return func(next ai.ModelFunc) ai.ModelFunc {
		return func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			keep := ix.Loaded(ctx, opts)
			r := *req
			r.Tools = slices.DeleteFunc(slices.Clone(req.Tools), func(d *ai.ToolDefinition) bool { return !keep(d.Name) })
			slices.SortFunc(r.Tools, func(a, b *ai.ToolDefinition) int { return strings.Compare(a.Name, b.Name) })
			return next(ctx, &r, cb)
		}
	}
}

// Hand a generation the meta-tools, an always-loaded tool and, hidden
// until a search finds them, the rest of the catalog: the model is sent
// the definitions of the tools found so far in its run.
func Example_foundSoFar() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := genkit.Init(ctx)
	signal.Reset(os.Interrupt, syscall.SIGTERM)

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

	opts := &toolsearch.ToolsOptions{Filter: kit.Filter(registry.Filter{}, adapter.TargetGenkit), Always: []string{"send_email"}, Deferred: true}
	var tools []ai.ToolRef
	for _, s := range ix.Tools(opts) {
		t, err := genkitadapter.NewTool(s, exec, nil)
		if err != nil {
			log.Fatal(err)
		}
		tools = append(tools, t)
	}
	var sent [][]string
	turn := 0
	m := genkit.DefineModel(g, "example/searcher", &ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true}},
		func(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			sent = append(sent, sentNames(req))
			turn++
			var msg *ai.Message
			switch turn {
			case 1:
				msg = ai.NewMessage(ai.RoleModel, nil, ai.NewToolRequestPart(&ai.ToolRequest{Name: "search_tools", Ref: "s1", Input: map[string]any{"query": "weather", "limit": 2}}))
			case 2:
				msg = ai.NewMessage(ai.RoleModel, nil, ai.NewToolRequestPart(&ai.ToolRequest{Name: "weather_forecast", Ref: "c1", Input: map[string]any{"city": "Oslo"}}))
			default:
				msg = ai.NewModelTextMessage(lastOutput(req))
			}
			return &ai.ModelResponse{Request: req, Message: msg}, nil
		})

	ctx, _ = adapter.WithRun(ctx, nil) // the model's turns and the tools' calls share the run
	resp, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithTools(tools...), ai.WithMiddleware(foundSoFar(ix, opts)), ai.WithPrompt("weather in Oslo?"))
	if err != nil {
		log.Fatal(err)
	}
	for i, s := range sent {
		fmt.Println("turn", i+1, s)
	}
	fmt.Println(resp.Text())
	// Output:
	// turn 1 [call_tool search_tools send_email]
	// turn 2 [call_tool search_tools send_email weather_alerts weather_forecast]
	// turn 3 [call_tool search_tools send_email weather_alerts weather_forecast]
	// weather_forecast {"city":"Oslo"}
}
