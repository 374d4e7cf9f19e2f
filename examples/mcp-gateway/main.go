// Command mcp-gateway imports the tools of several MCP servers and serves
// them again as one MCP server, every call governed by one executor:
// approval of destructive and open-world tools, and a JSONL audit ledger.
//
//	go run ./examples/mcp-gateway                       # two built-in demo servers, self-check, exit
//	go run ./examples/mcp-gateway -serve -addr 127.0.0.1:8931 \
//	    -stdio 'everything=npx -y @modelcontextprotocol/server-everything stdio' \
//	    -http 'docs=http://127.0.0.1:9000/mcp'
//
// Tools are prefixed with their server's name (everything_echo, docs_search)
// so that two servers may offer tools of the same name. With -serve it
// listens on 127.0.0.1 (DNS-rebinding and Origin protection on) until
// interrupted; without it, it connects to itself as an MCP client, lists and
// calls a tool, prints what it saw, and exits.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
	"github.com/agentadapter/agentadapter/registry"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	var stdio, urls multiFlag
	flag.Var(&stdio, "stdio", "name=command args...: an MCP server to start over stdio (repeatable)")
	flag.Var(&urls, "http", "name=URL: a streamable HTTP MCP server (repeatable)")
	addr := flag.String("addr", "127.0.0.1:0", "address to serve on (loopback unless a host is named)")
	serve := flag.Bool("serve", false, "serve until interrupted instead of running the self-check")
	ledgerPath := flag.String("ledger", "", "JSONL ledger path (default: a temporary file)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, stdio, urls, *addr, *serve, *ledgerPath); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer, stdio, urls []string, addr string, serve bool, ledgerPath string) error {
	servers, closeDemo, err := upstreams(ctx, stdio, urls)
	if err != nil {
		return err
	}
	defer closeDemo()

	reg := registry.New()
	mgr := mcpadapter.NewManager(reg, nil)
	defer mgr.Close()
	if err := mgr.Connect(ctx, servers...); err != nil {
		return err
	}
	for _, s := range mgr.Servers() {
		fmt.Fprintf(w, "upstream %s: %+v\n", s.Name, s)
	}

	if ledgerPath == "" {
		dir, err := os.MkdirTemp("", "mcp-gateway-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		ledgerPath = filepath.Join(dir, "ledger.jsonl")
	}
	ledger, err := ledger.OpenJSONL(ledgerPath)
	if err != nil {
		return err
	}
	defer ledger.Close()
	approvals := &approval.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
		Approval: adapter.ApprovalOptions{Port: approvals},
		Ledger:   ledger,
	})
	defer exec.Close()

	exp, err := export.NewServer(reg, exec, &export.Options{Name: "mcp-gateway", Approver: approvals})
	if err != nil {
		return err
	}
	defer exp.Close()
	ln, err := export.Listen(addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	fmt.Fprintf(w, "serving %d tools at %s (ledger %s)\n", reg.Len(), url, ledgerPath)
	if serve {
		return exp.ServeListener(ctx, ln, nil)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- exp.ServeListener(sctx, ln, nil) }()
	err = selfCheck(ctx, w, url, approvals)
	cancel()
	if serr := <-done; serr != nil && !errors.Is(serr, http.ErrServerClosed) && !errors.Is(serr, net.ErrClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		return err
	}
	if err := exec.Flush(ctx); err != nil {
		return err
	}
	b, err := os.ReadFile(ledgerPath)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "ledger: %d records\n", strings.Count(string(b), "\n"))
	return nil
}

// selfCheck connects to the gateway as an ordinary MCP client, lists its
// tools and calls two of them, the second after approving its ticket.
func selfCheck(ctx context.Context, w io.Writer, url string, approvals *approval.Deferred) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "gateway-self-check", Version: "v0"}, nil)
	// A session (2025-11-25): this client proves no identity and declares
	// no elicitation, so only its session ties its retry to the ticket the
	// operator approves. At 2026-07-28 each of its requests would be another
	// anonymous caller; a client there authenticates, or declares
	// elicitation and is asked to wait for the decision.
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return err
	}
	defer cs.Close()
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  tool %-20s %s\n", t.Name, t.Description)
	}
	call := func(name string, args map[string]any) (*mcp.CallToolResult, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return nil, err
		}
		sc, _ := json.Marshal(res.StructuredContent)
		text := ""
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		fmt.Fprintf(w, "  call %s %v -> isError=%v text=%s structured=%s\n", name, args, res.IsError, text, sc)
		return res, nil
	}
	if _, err := call("weather_forecast", map[string]any{"city": "Lyon"}); err != nil {
		return err
	}
	res, err := call("files_delete", map[string]any{"path": "/tmp/old.log"})
	if err != nil {
		return err
	}
	if !res.IsError {
		return errors.New("files_delete ran without approval")
	}
	for t, err := range approvals.Pending(ctx) {
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  approving %s for %s\n", t.ID, t.Tool)
		if err := approvals.Approve(ctx, t.ID, "gateway-operator"); err != nil {
			return err
		}
	}
	_, err = call("files_delete", map[string]any{"path": "/tmp/old.log"})
	return err
}

// upstreams turns the flags into servers to import; with none, it starts two
// demo servers in process.
func upstreams(ctx context.Context, stdio, urls []string) ([]mcpadapter.Upstream, func(), error) {
	var servers []mcpadapter.Upstream
	for _, s := range stdio {
		name, cmd, ok := strings.Cut(s, "=")
		fields := strings.Fields(cmd)
		if !ok || len(fields) == 0 {
			return nil, nil, fmt.Errorf("-stdio %q: want name=command args", s)
		}
		servers = append(servers, mcpadapter.Upstream{Name: name, Command: fields[0], Args: fields[1:], Prefix: true})
	}
	for _, u := range urls {
		name, url, ok := strings.Cut(u, "=")
		if !ok {
			return nil, nil, fmt.Errorf("-http %q: want name=URL", u)
		}
		servers = append(servers, mcpadapter.Upstream{Name: name, URL: url, Prefix: true})
	}
	if len(servers) > 0 {
		return servers, func() {}, nil
	}
	var closers []func()
	for name, srv := range demoServers() {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			return nil, nil, err
		}
		closers = append(closers, func() { ss.Close() })
		// The demo servers are ours: their annotations are policy.
		servers = append(servers, mcpadapter.Upstream{Name: name, Transport: ct, Prefix: true, Trust: true})
	}
	return servers, func() {
		for _, c := range closers {
			c()
		}
	}, nil
}

type forecastIn struct {
	City string `json:"city" jsonschema:"the city"`
}
type forecastOut struct {
	City  string `json:"city"`
	Skies string `json:"skies"`
	HighC int    `json:"high_c"`
}
type deleteIn struct {
	Path string `json:"path" jsonschema:"the file to delete"`
}
type deleteOut struct {
	Deleted string `json:"deleted"`
}

func demoServers() map[string]*mcp.Server {
	closed, destructive := false, true
	weather := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1"}, nil)
	mcp.AddTool(weather, &mcp.Tool{Name: "forecast", Description: "Tomorrow's forecast for a city.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closed}},
		func(ctx context.Context, req *mcp.CallToolRequest, in forecastIn) (*mcp.CallToolResult, forecastOut, error) {
			return nil, forecastOut{City: in.City, Skies: "clear", HighC: 24}, nil
		})
	files := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "v1"}, nil)
	mcp.AddTool(files, &mcp.Tool{Name: "delete", Description: "Delete a file.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive, OpenWorldHint: &closed}},
		func(ctx context.Context, req *mcp.CallToolRequest, in deleteIn) (*mcp.CallToolResult, deleteOut, error) {
			return nil, deleteOut{Deleted: in.Path}, nil
		})
	return map[string]*mcp.Server{"weather": weather, "files": files}
}
