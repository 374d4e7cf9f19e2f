// Command stdioserver exports a small registry over stdio (the default) or,
// with -http, over streamable HTTP on a free 127.0.0.1 port, printing
// "listening on URL". The tests build it to drive it with external clients.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
	"github.com/agentadapter/agentadapter/registry"
)

type addIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

type greetIn struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

func main() {
	useHTTP := flag.Bool("http", false, "serve streamable HTTP instead of stdio")
	flag.Parse()

	reg := registry.New()
	reg.MustRegister(
		adapter.MustTool("add", "Adds two integers.", func(_ context.Context, in addIn) (addOut, error) {
			return addOut{Sum: in.A + in.B}, nil
		}, &adapter.ToolOptions{Title: "Add", Annotations: adapter.Annotations{ReadOnly: true}}),
		adapter.MustTool("greet", "Greets someone.", func(_ context.Context, in greetIn) (string, error) {
			return "Hello, " + in.Name + "!", nil
		}, &adapter.ToolOptions{Output: adapter.OutputText, Annotations: adapter.Annotations{ReadOnly: true}}),
	)
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	ex, err := export.NewServer(reg, exec, &export.Options{Name: "stdioserver"})
	if err != nil {
		log.Fatal(err)
	}
	defer ex.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if !*useHTTP {
		if err := ex.Serve(ctx, &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := export.Listen("")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on http://%s%s\n", ln.Addr(), export.DefaultPath)
	if err := ex.ServeListener(ctx, ln, nil); err != nil {
		log.Fatal(err)
	}
}
