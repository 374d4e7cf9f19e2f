package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/registry"
)

// The README's "Define, register, call" snippet, as it is printed there:
// the tool is registered and called through an executor.

type WeatherIn struct {
	City string `json:"city" jsonschema:"the city"`
}
type WeatherOut struct {
	TempC    float64 `json:"temp_c"`
	Humidity int     `json:"humidity"`
}

func Example_readme() {
	ctx := context.Background()

	// README: begin
	weather := adapter.MustTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, in WeatherIn) (WeatherOut, error) {
			return WeatherOut{TempC: 21.5, Humidity: 48}, nil
		}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: new(bool)}})

	reg := registry.New()
	reg.MustRegister(weather)

	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	res, err := exec.Call(ctx, "get_weather", json.RawMessage(`{"city":"Paris"}`))
	// README: end

	if err != nil {
		panic(err)
	}
	fmt.Println(adapter.Render(res, nil))
	fmt.Printf("%#v\n", res.Structured)
	// Output:
	// {"temp_c":21.5,"humidity":48}
	// adapter_test.WeatherOut{TempC:21.5, Humidity:48}
}

// The package doc's first snippet, as it is printed there: through the
// executor, never Spec.Call.
func Example_doc() {
	ctx := context.Background()

	// doc.go: begin
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("add", "Add two integers",
		func(ctx context.Context, in AddArgs) (int, error) { return in.A + in.B, nil },
		&adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: new(bool)}}))

	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	res, err := exec.Call(ctx, "add", json.RawMessage(`{"a": 2, "b": 3}`))
	if err != nil {
		log.Fatal(err)
	}
	structured, _ := res.StructuredJSON()
	fmt.Println(adapter.Render(res, nil)) // 5: the text channel, for the model
	fmt.Println(string(structured))       // {"result":5}: the structured channel
	// doc.go: end

	// Output:
	// 5
	// {"result":5}
}

// The package doc's # Annotations section: a local tool built with nil
// options is destructive and open-world, so a Deferred port holds even a
// harmless get_time; marked read-only and closed-world, it runs at once.
func Example_readmeAnnotations() {
	ctx := context.Background()
	now := func(context.Context, struct{}) (string, error) {
		return time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC).Format(time.RFC3339), nil
	}
	reg := registry.New()
	reg.MustRegister(
		adapter.MustTool("get_time_unmarked", "The current time.", now, nil),
		// doc.go: begin
		adapter.MustTool("get_time", "The current time.", now,
			&adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: new(bool)}}),
		// doc.go: end
	)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
		Approval: adapter.ApprovalOptions{Port: &approval.Deferred{}},
	})
	defer exec.Close()

	for _, name := range []string{"get_time_unmarked", "get_time"} {
		spec, _ := reg.Lookup(name)
		a := spec.Annotations
		res, err := exec.Call(ctx, name, json.RawMessage(`{}`))
		var e *adapter.Error
		switch {
		case errors.As(err, &e) && e.Kind == adapter.KindApprovalPending:
			fmt.Printf("%s: destructive=%v open-world=%v: held (ticket issued: %v)\n", name, a.IsDestructive(), a.IsOpenWorld(), e.Ticket != "")
		case err != nil:
			fmt.Printf("%s: %v\n", name, err)
		default:
			fmt.Printf("%s: destructive=%v open-world=%v: ran: %s\n", name, a.IsDestructive(), a.IsOpenWorld(), adapter.Render(res, nil))
		}
	}
	// Output:
	// get_time_unmarked: destructive=true open-world=true: held (ticket issued: true)
	// get_time: destructive=false open-world=false: ran: 2026-07-28T09:00:00Z
}
