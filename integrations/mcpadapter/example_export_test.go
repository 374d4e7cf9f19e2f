package mcpadapter_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type sumIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

// Serve a registry as an MCP server. Here a go-sdk client connects in
// memory; &mcp.StdioTransport{} serves a real client such as Claude Desktop.
func ExampleNewExporter() {
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("add", "Adds two integers.", func(_ context.Context, in sumIn) (sumOut, error) {
		return sumOut{Sum: in.A + in.B}, nil
	}, nil))
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	ex, err := mcpadapter.NewExporter(reg, exec, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ex.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clientT, serverT := mcp.NewInMemoryTransports()
	go ex.Serve(ctx, serverT)

	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v1"}, nil)
	cs, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text, res.StructuredContent)

	// A failure the model should read is an isError result, not a protocol error.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": "two"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.IsError)
	// Output:
	// {"sum":5} map[sum:5]
	// true
}

// Serve over streamable HTTP behind bearer authentication. The verified
// identity reaches hooks and approval policies as adapter.Call.Identity.
func ExampleExporter_Handler() {
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("whoami", "Tells who is calling.", func(ctx context.Context, _ struct{}) (string, error) {
		return adapter.ToolCallFromContext(ctx).Identity.Subject, nil
	}, &adapter.ToolOptions{Output: adapter.OutputText}))
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	ex, err := mcpadapter.NewExporter(reg, exec, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ex.Close()

	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token != "s3cret" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: "ada", Expiration: time.Now().Add(time.Hour)}, nil
	}
	// In production: ex.ListenAndServe(ctx, ":8080", opts), which binds 127.0.0.1.
	srv := httptest.NewServer(ex.Handler(&mcpadapter.HTTPOptions{Auth: &mcpadapter.AuthOptions{Verifier: verify}}))
	defer srv.Close()

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: bearerClient("s3cret")}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// ada
}
