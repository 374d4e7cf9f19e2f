package mcpadapter_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A real go-sdk server with typed tools, used over in-memory and HTTP.

type impAddIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}
type impAddOut struct {
	Sum int `json:"sum"`
}

type impDivIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}
type impDivOut struct {
	Quotient float64 `json:"quotient"`
}

// pixelPNG is a 1×1 PNG.
var pixelPNG = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89}

func impPtr[T any](v T) *T { return &v }

// nestedSchema uses $defs and $ref, which must survive the import.
const nestedSchema = `{"type":"object","$defs":{"point":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"]}},"properties":{"from":{"$ref":"#/$defs/point"},"to":{"$ref":"#/$defs/point"}},"required":["from","to"]}`

// newImportServer returns a go-sdk server with a page size of 4 and these
// tools: add (typed, structured, read-only), divide (typed; errors on b=0),
// image, progress, nested ($defs), badout (breaks its output schema),
// big (10 MB), block (never answers), meta (echoes _meta), dotted.name and
// filler tools f0..f5, so tools/list takes 4 pages.
func newImportServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "v1"}, &mcp.ServerOptions{PageSize: 4})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Title: "Add", Description: "adds two integers",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: impPtr(false)}, Meta: mcp.Meta{"owner": "math"}},
		func(ctx context.Context, req *mcp.CallToolRequest, in impAddIn) (*mcp.CallToolResult, impAddOut, error) {
			return nil, impAddOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "divide", Description: "divides a by b"},
		func(ctx context.Context, req *mcp.CallToolRequest, in impDivIn) (*mcp.CallToolResult, impDivOut, error) {
			if in.B == 0 {
				return nil, impDivOut{}, errors.New("division by zero")
			}
			return nil, impDivOut{Quotient: in.A / in.B}, nil
		})
	s.AddTool(&mcp.Tool{Name: "image", Description: "returns an image", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a pixel"},
				&mcp.ImageContent{Data: pixelPNG, MIMEType: "image/png"},
				&mcp.ResourceLink{URI: "file:///pixel.png", Name: "pixel"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://note", MIMEType: "text/plain", Text: "note"}},
			}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "progress", Description: "reports progress 3 times", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			tok := req.Params.GetProgressToken()
			for i := 1; i <= 3; i++ {
				if tok != nil {
					if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)}); err != nil {
						return nil, err
					}
				}
			}
			text := "done"
			if tok == nil {
				text = "done without a progress token"
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "nested", Description: "takes two points", InputSchema: impSchema(nestedSchema)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "badout", Description: "violates its output schema", InputSchema: &jsonschema.Schema{Type: "object"},
		OutputSchema: impSchema(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"n":"x"}`}}, StructuredContent: map[string]any{"n": "x"}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "big", Description: "returns 10 MB", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 10<<20)}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "block", Description: "never answers", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Bounded so that a lost notifications/cancelled cannot hang
			// the test server's Close.
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(15 * time.Second):
				return nil, errors.New("block was never cancelled")
			}
		})
	s.AddTool(&mcp.Tool{Name: "meta", Description: "echoes _meta", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			m := map[string]any{}
			for k, v := range req.Params.Meta {
				if k != "progressToken" && !strings.HasPrefix(k, "io.modelcontextprotocol/") {
					m[k] = v
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: m}, nil
		})
	s.AddTool(&mcp.Tool{Name: "dotted.name", Description: "has a dot", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "dotted " + req.Params.Name}}}, nil
		})
	for i := range 6 {
		name := fmt.Sprintf("f%d", i)
		s.AddTool(&mcp.Tool{Name: name, Description: "filler", InputSchema: &jsonschema.Schema{Type: "object"}},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
			})
	}
	return s
}

// importServerTools are the names newImportServer serves.
var importServerTools = []string{"add", "badout", "big", "block", "divide", "dotted.name", "f0", "f1", "f2", "f3", "f4", "f5", "image", "meta", "nested", "progress"}

func impSchema(s string) *jsonschema.Schema {
	var sc jsonschema.Schema
	if err := sc.UnmarshalJSON([]byte(s)); err != nil {
		panic(err)
	}
	return &sc
}

// inMemory starts srv on one end of an in-memory pipe and returns the other.
func inMemoryTo(t testing.TB, srv *mcp.Server) mcp.Transport {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return ct
}

// overHTTP serves srv over streamable HTTP on 127.0.0.1 and returns its URL.
func httpTo(t testing.TB, srv *mcp.Server) string {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.CloseClientConnections() // end a client's standing SSE stream
		ts.Close()
	})
	return ts.URL
}
