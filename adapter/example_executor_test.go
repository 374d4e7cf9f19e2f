package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

type CityArgs struct {
	City string `json:"city" jsonschema:"the city"`
}

type CityWeather struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
}

func weatherTool() *adapter.Spec {
	return adapter.MustTool("get_weather", "Current weather for a city.",
		func(_ context.Context, in CityArgs) (CityWeather, error) {
			if in.City == "Atlantis" {
				return CityWeather{}, errors.New("no weather station in Atlantis")
			}
			return CityWeather{City: in.City, TempC: 21.5}, nil
		}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: new(bool)}})
}

// An executor runs every call through one pipeline; what the model reads is
// adapter.Render of the result, or the payload of a model-facing error.
func ExampleExecutor() {
	reg := registry.New()
	reg.MustRegister(weatherTool())
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()

	ctx := context.Background()
	res, err := exec.Call(ctx, "get_weather", json.RawMessage(`{"city":"Paris"}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(adapter.Render(res, nil))

	_, err = exec.Call(ctx, "get_weather", json.RawMessage(`{"city":"Atlantis"}`))
	payload, _ := adapter.ModelPayload(err)
	fmt.Println(payload)

	_, err = exec.Call(ctx, "get_wether", json.RawMessage(`{}`))
	payload, _ = adapter.ModelPayload(err)
	fmt.Println(payload)
	// Output:
	// {"city":"Paris","temp_c":21.5}
	// {"error":{"kind":"tool_error","message":"no weather station in Atlantis","tool":"get_weather"}}
	// {"error":{"kind":"not_found","message":"no tool named \"get_wether\"","tool":"get_wether"}}
}

// A guard refuses calls by rule, before approval (Input) or on the result
// (Output); the model reads why.
func ExampleGuard() {
	reg := registry.New()
	reg.MustRegister(weatherTool())
	noMoon := adapter.Guard{
		Name: "no-moon",
		Input: func(_ context.Context, c *adapter.ToolCall) error {
			if strings.Contains(string(c.Args), "Moon") {
				return errors.New("the Moon is out of scope")
			}
			return nil
		},
	}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Guards: []adapter.Guard{noMoon}})
	defer exec.Close()

	_, err := exec.Call(context.Background(), "get_weather", json.RawMessage(`{"city":"Moon"}`))
	fmt.Println(adapter.KindOf(err))
	// Output:
	// guardrail_blocked
}

// A hook is middleware around every call: here it logs each call and its
// outcome.
func ExampleHook() {
	reg := registry.New()
	reg.MustRegister(weatherTool())
	logCalls := func(next adapter.Invoker) adapter.Invoker {
		return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
			res, err := next(ctx, c)
			outcome := "ok"
			if err != nil {
				outcome = string(adapter.KindOf(err))
			}
			fmt.Printf("%s %s -> %s\n", c.Tool, c.Args, outcome)
			return res, err
		}
	}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Hooks: []adapter.Hook{logCalls}})
	defer exec.Close()

	ctx := context.Background()
	exec.Call(ctx, "get_weather", json.RawMessage(`{"city":"Oslo"}`))
	exec.Call(ctx, "get_weather", json.RawMessage(`{"city":"Atlantis"}`))
	// Output:
	// get_weather {"city":"Oslo"} -> ok
	// get_weather {"city":"Atlantis"} -> tool_error
}

// A streaming tool yields its result in parts; Executor.Stream hands them
// on as they come, through the same pipeline.
func ExampleExecutor_Stream() {
	story := adapter.MustStreamTool("story", "Tells a story in parts.",
		func(_ context.Context, in struct {
			Parts int `json:"parts"`
		}) iter.Seq2[adapter.Content, error] {
			return func(yield func(adapter.Content, error) bool) {
				for i := range in.Parts {
					if !yield(&adapter.TextContent{Text: fmt.Sprintf("part %d", i+1)}, nil) {
						return
					}
				}
			}
		}, nil)
	reg := registry.New()
	reg.MustRegister(story)
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()

	for part, err := range exec.Stream(context.Background(), &adapter.Request{Tool: "story", Args: json.RawMessage(`{"parts":3}`)}) {
		if err != nil {
			fmt.Println("error:", err)
			break
		}
		fmt.Println(adapter.Render(&adapter.Result{Content: []adapter.Content{part}}, nil))
	}
	// Output:
	// part 1
	// part 2
	// part 3
}
