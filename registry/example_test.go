package registry_test

import (
	"context"
	"fmt"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

type cityArgs struct {
	City string `json:"city"`
}

func Example() {
	weather := adapter.MustTool("get_weather", "Current weather for a city",
		func(_ context.Context, a cityArgs) (string, error) { return "sunny in " + a.City, nil },
		&adapter.ToolOptions{Tags: []string{"geo"}})
	wiki := adapter.MustTool("search_wiki", "Search the wiki",
		func(_ context.Context, a struct {
			Query string `json:"query"`
		}) ([]string, error) {
			return []string{a.Query}, nil
		},
		&adapter.ToolOptions{Targets: []string{adapter.TargetMCP}})

	reg := registry.New()
	cancel := reg.Subscribe(func(c registry.Change) { fmt.Println(c.Op, c.Name) })
	defer cancel()
	reg.MustRegister(wiki, weather)

	for s := range reg.List(registry.Filter{Target: adapter.TargetEino}) {
		fmt.Println("eino exports", s.Name)
	}
	for s := range reg.List(registry.Filter{Tags: []string{"geo"}}) {
		fmt.Println("tagged geo:", s.Name)
	}
	if err := reg.Register(weather); err != nil {
		fmt.Println(err)
	}
	// Output:
	// added search_wiki
	// added get_weather
	// eino exports get_weather
	// tagged geo: get_weather
	// registry: duplicate tool name: "get_weather" (registered from local)
}
