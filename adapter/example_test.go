package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
)

type AddArgs struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

// A typed tool: both schemas are inferred once, here. A scalar result is
// wrapped as {"result": v} on the structured channel; the model reads its
// JSON text.
func Example() {
	add := adapter.MustTool("add", "Add two integers",
		func(_ context.Context, in AddArgs) (int, error) { return in.A + in.B, nil }, nil)

	res, err := add.CallDirect(context.Background(), json.RawMessage(`{"a": 2, "b": 3}`))
	if err != nil {
		panic(err)
	}
	structured, _ := res.StructuredJSON()
	fmt.Println("model reads:", res.Text())
	fmt.Println("program gets:", string(structured))

	_, err = add.CallDirect(context.Background(), json.RawMessage(`{"a": "two"}`))
	payload, _ := adapter.ModelPayload(err)
	fmt.Println(payload)
	// Output:
	// model reads: 5
	// program gets: {"result":5}
	// {"error":{"kind":"args_invalid","message":"arguments do not match the input schema: at $.a: type: two has type \"string\", want \"integer\"","tool":"add"}}
}

type Reading struct {
	Station  string  `json:"station"`
	TempC    float64 `json:"temp_c"`
	Humidity int     `json:"humidity"`
}

// A list result is one text block per element for the model, and
// {"result": [...]} for the program, its schema referencing the element's
// definition in $defs.
func ExampleNewTool_list() {
	readings := adapter.MustTool("readings", "Latest readings",
		func(context.Context, struct{}) ([]Reading, error) {
			return []Reading{{"north", 3.5, 81}, {"south", 11, 64}}, nil
		}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}})

	res, err := readings.CallDirect(context.Background(), nil)
	if err != nil {
		panic(err)
	}
	for _, c := range res.Content {
		fmt.Println(c.(*adapter.TextContent).Text)
	}
	fmt.Println(readings.OutputSchema.Properties["result"].Items.Ref)
	// Output:
	// {"station":"north","temp_c":3.5,"humidity":81}
	// {"station":"south","temp_c":11,"humidity":64}
	// #/$defs/Reading
}

// A raw tool forwards upstream JSON; its declared output schema is
// enforced, so a reply missing a field is a tool error naming it.
func ExampleNewRawTool() {
	out := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"temp_c":   {Type: "number"},
			"humidity": {Type: "integer"},
		},
		Required: []string{"temp_c", "humidity"},
	}
	upstream := func(context.Context, json.RawMessage) (*adapter.Result, error) {
		body := json.RawMessage(`{"temp_c": 21.5}`) // what the weather API sent
		return &adapter.Result{Content: []adapter.Content{&adapter.TextContent{Text: string(body)}}, Structured: body}, nil
	}
	weather, err := adapter.NewRawTool("weather", "Current weather", &jsonschema.Schema{Type: "object"}, upstream,
		&adapter.ToolOptions{OutputSchema: out})
	if err != nil {
		panic(err)
	}
	_, err = weather.CallDirect(context.Background(), json.RawMessage(`{}`))
	fmt.Println(errors.Is(err, adapter.ErrToolError))
	fmt.Println(err)
	// Output:
	// true
	// tool_error (tool weather): the result does not match the output schema: at $: required: missing properties: ["humidity"]
}

// ModelPayload renders model-facing errors for the model; infrastructure
// errors stay Go errors.
func ExampleModelPayload() {
	denied := &adapter.Error{Kind: adapter.KindApprovalDenied, Tool: "rm", Message: "the call was denied: not on Fridays"}
	p, ok := adapter.ModelPayload(denied)
	fmt.Println(ok, p)

	down := &adapter.Error{Kind: adapter.KindConnection, Tool: "rm", Err: errors.New("dial tcp: connection refused")}
	_, ok = adapter.ModelPayload(down)
	fmt.Println(ok)
	// Output:
	// true {"error":{"kind":"approval_denied","message":"the call was denied: not on Fridays","tool":"rm"}}
	// false
}

// A tool name must be 1 to 64 characters from [A-Za-z0-9_-].
func ExampleValidateName() {
	fmt.Println(adapter.ValidateName("get_weather"))
	fmt.Println(adapter.ValidateName("fs.read"))
	// Output:
	// <nil>
	// adapter: tool name "fs.read" has invalid character '.' at byte 2; allowed: A-Z a-z 0-9 _ -
}
