// Command conformance-client is the client under test for the official MCP
// conformance suite's client scenarios (initialize, tools_call), built on
// mcpadapter's import side:
//
//	conformance client --command "conformance-client" --scenario tools_call
//
// The suite passes the server URL as the last argument and the scenario in
// MCP_CONFORMANCE_SCENARIO. The client imports the server's tools into a
// registry and, for tools_call, calls add_numbers through an executor.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: conformance-client [flags] <server URL>")
	}
	if err := run(os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Args[len(os.Args)-1]); err != nil {
		log.Fatal(err)
	}
}

func run(scenario, url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	reg := registry.New()
	m := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Strict: true})
	defer m.Close()
	if err := m.Connect(ctx, mcpadapter.Server{Name: "conformance", URL: url}); err != nil {
		return err
	}
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	for s := range reg.List(registry.Filter{}) {
		fmt.Printf("tool %s: %s\n", s.Name, s.Description)
	}
	switch scenario {
	case "tools_call":
		res, err := exec.Call(ctx, "add_numbers", json.RawMessage(`{"a":5,"b":3}`))
		if err != nil {
			return err
		}
		fmt.Println(res.Text())
	}
	return nil
}
