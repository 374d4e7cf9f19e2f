package toolsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
	"github.com/agentadapter/agentadapter/toolsearch"
)

func Example() {
	reg := registry.New()
	for _, t := range [][2]string{
		{"read_file", "Read the contents of a file."},
		{"send_email", "Send an email to a recipient."},
		{"get_weather", "Current weather of a city."},
	} {
		reg.MustRegister(adapter.MustRawTool(t[0], t[1], &jsonschema.Schema{Type: "object"},
			func(context.Context, json.RawMessage) (*adapter.Result, error) { return adapter.TextResult("ok"), nil },
			&adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}))
	}
	ix, err := toolsearch.New(reg, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()
	hits, err := ix.Search(context.Background(), "what is the weather in Oslo", 5, registry.Filter{}.Match)
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Println(h.Spec.Name)
	}

	// A model gets the two meta-tools in place of the list; call_tool runs
	// the tool it names through the executor, as a direct call.
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	meta := ix.Tools(nil)
	res, err := exec.Do(context.Background(), &adapter.Request{Spec: meta[0], Args: json.RawMessage(`{"name":"get_weather","arguments":{}}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(meta[0].Name, "→", res.Text())
	// Output:
	// get_weather
	// call_tool → ok
}
