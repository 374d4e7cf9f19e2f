package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/firebase/genkit/go/genkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/einoadapter"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// serverEnv makes the test binary serve MCP over stdio instead of testing:
// the stdio benchmarks start it as their server process.
const serverEnv = "AGENTADAPTER_BENCH_STDIO_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) != "" {
		if err := newServer(1).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type addIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

// newServer returns a go-sdk server with an add tool and n-1 more tools.
func newServer(n int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	closed := false
	add := func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
		return nil, addOut{Sum: in.A + in.B}, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two integers.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closed}}, add)
	for i := 1; i < n; i++ {
		mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("add_%04d", i), Description: "Adds two integers, again."}, add)
	}
	return s
}

// transports returns client transports to a one-tool server: in memory,
// over stdio (a child process) and over streamable HTTP.
func transports(b *testing.B) map[string]func() mcp.Transport {
	ctx := context.Background()
	httpSrv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newServer(1) }, nil))
	b.Cleanup(httpSrv.Close)
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	return map[string]func() mcp.Transport{
		"inmemory": func() mcp.Transport {
			ct, st := mcp.NewInMemoryTransports()
			ss, err := newServer(1).Connect(ctx, st, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { ss.Close() })
			return ct
		},
		"stdio": func() mcp.Transport {
			cmd := exec.Command(self)
			cmd.Env = append(os.Environ(), serverEnv+"=1")
			return &mcp.CommandTransport{Command: cmd}
		},
		"http": func() mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: httpSrv.URL} },
	}
}

// BenchmarkMCPCall: one call of a remote add tool, made with a bare go-sdk
// ClientSession.CallTool, through import + executor, and through each
// framework's tool type, on each transport.
func BenchmarkMCPCall(b *testing.B) {
	ctx := context.Background()
	for _, tr := range []string{"inmemory", "stdio", "http"} {
		b.Run("transport="+tr, func(b *testing.B) {
			newTransport := transports(b)[tr]
			args := map[string]any{"a": 2, "b": 3}
			argsJSON, _ := json.Marshal(args)

			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "v0"}, nil).Connect(ctx, newTransport(), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { cs.Close() })

			reg := registry.New()
			m := mcpadapter.NewManager(reg, nil)
			b.Cleanup(func() { m.Close() })
			if err := m.Connect(ctx, mcpadapter.Upstream{Name: "bench", Transport: newTransport(), Trust: true}); err != nil {
				b.Fatal(err)
			}
			spec, ok := reg.Lookup("add")
			if !ok {
				b.Fatal("add not imported")
			}
			ex := adapter.NewExecutor(reg, nil)
			b.Cleanup(func() { ex.Close() })
			et, err := einoadapter.Tool(spec, ex, nil)
			if err != nil {
				b.Fatal(err)
			}
			gt, err := genkitadapter.NewTool(spec, ex, nil)
			if err != nil {
				b.Fatal(err)
			}
			lt, err := langchaingoadapter.NewTool(spec, ex, nil)
			if err != nil {
				b.Fatal(err)
			}
			want := `{"sum":5}`
			impls := []struct {
				name string
				call func() (string, error)
			}{
				{"gosdk", func() (string, error) {
					r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: args})
					if err != nil {
						return "", err
					}
					return r.Content[0].(*mcp.TextContent).Text, nil
				}},
				{"executor", func() (string, error) {
					r, err := ex.Call(ctx, "add", argsJSON)
					return r.Text(), err
				}},
				{"eino", func() (string, error) {
					return et.(tool.InvokableTool).InvokableRun(ctx, string(argsJSON))
				}},
				{"genkit", func() (string, error) {
					out, err := gt.RunRaw(ctx, args)
					if err != nil {
						return "", err
					}
					b, err := json.Marshal(out)
					return string(b), err
				}},
				{"langchaingo", func() (string, error) { return lt.Call(ctx, string(argsJSON)) }},
			}
			for _, impl := range impls {
				b.Run("impl="+impl.name, func(b *testing.B) {
					got, err := impl.call()
					if err != nil || got != want {
						b.Fatalf("got %q, %v; want %s", got, err, want)
					}
					b.ReportAllocs()
					for b.Loop() {
						if _, err := impl.call(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkImport1000: importing a server's 1,000 tools and turning them
// into each framework's tools. impl=gosdk only lists them; impl=registry
// imports them into a registry (listing, conversion, pinning; schemas
// compile on each tool's first call); the others add the framework
// conversion on top.
func BenchmarkImport1000(b *testing.B) {
	ctx := context.Background()
	g := genkit.Init(ctx)
	signal.Reset(os.Interrupt, syscall.SIGTERM)
	srv := newServer(1000)
	newTransport := func(b *testing.B) mcp.Transport {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ss.Close() })
		return ct
	}
	importAll := func(b *testing.B) (*registry.Registry, func()) {
		reg := registry.New()
		m := mcpadapter.NewManager(reg, nil)
		if err := m.Connect(ctx, mcpadapter.Upstream{Name: "bench", Transport: newTransport(b), Trust: true}); err != nil {
			b.Fatal(err)
		}
		if reg.Len() != 1000 {
			b.Fatalf("imported %d tools", reg.Len())
		}
		return reg, func() { m.Close() }
	}
	listExec := adapter.NewExecutor(nil, nil)
	defer listExec.Close()
	impls := []struct {
		name string
		run  func(b *testing.B)
	}{
		{"gosdk", func(b *testing.B) {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "v0"}, nil).Connect(ctx, newTransport(b), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			n := 0
			for _, err := range cs.Tools(ctx, nil) {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n != 1000 {
				b.Fatalf("listed %d", n)
			}
		}},
		{"registry", func(b *testing.B) { _, stop := importAll(b); stop() }},
		{"eino", func(b *testing.B) {
			reg, stop := importAll(b)
			defer stop()
			ts, err := einoadapter.Tools(reg, listExec, nil)
			if err != nil || len(ts) != 1000 {
				b.Fatalf("%d tools, %v", len(ts), err)
			}
		}},
		{"genkit", func(b *testing.B) {
			reg, stop := importAll(b)
			defer stop()
			ts, err := genkitadapter.Tools(g, reg, listExec, nil)
			if err != nil || len(ts) != 1000 {
				b.Fatalf("%d tools, %v", len(ts), err)
			}
		}},
		{"langchaingo", func(b *testing.B) {
			reg, stop := importAll(b)
			defer stop()
			ts, err := langchaingoadapter.Tools(reg, listExec, nil)
			defs, _ := langchaingoadapter.Definitions(reg, nil)
			if err != nil || len(ts) != 1000 || len(defs) != 1000 {
				b.Fatalf("%d tools, %d definitions, %v", len(ts), len(defs), err)
			}
		}},
	}
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				impl.run(b)
			}
		})
	}
}
