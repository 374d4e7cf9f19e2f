// Command testserver is the second MCP server the gateway's tests run
// against (server-everything is the first): a small notes service over
// stdio, or over streamable HTTP with -http ADDR (printing its URL).
//
// Tools: add_note (destructive), list_notes (read-only), sleep (read-only,
// for drain tests), whoami (read-only: the request headers it got),
// describe, whose description is read from $TESTSERVER_DESCRIPTION at start
// (to change a definition between runs), and grow, which adds a tool at run
// time (so the server sends tools/list_changed), and redefine, which
// replaces describe's description at run time (a definition changing
// under a running gateway). With $TESTSERVER_LOG set, each add_note that
// runs appends its text and a newline to that file (the fleet tests count
// executions across restarts of the server).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type noteIn struct {
	Text string `json:"text" jsonschema:"the note"`
}
type noteOut struct {
	ID    int    `json:"id"`
	Text  string `json:"text"`
	Where string `json:"where"`
}
type listOut struct {
	Notes []string `json:"notes"`
}
type sleepIn struct {
	MS int `json:"ms" jsonschema:"milliseconds to sleep"`
}
type echoIn struct {
	Text string `json:"text"`
}

type whoOut struct {
	Authorization string `json:"authorization"`
	XTenant       string `json:"x_tenant"`
	Env           string `json:"env"`
	Cwd           string `json:"cwd"`
}

func main() {
	addr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	bench := flag.Bool("bench", false, "add bench_echo, the call of scripts/bench gateway")
	fillers := flag.Int("tools", 0, "add this many more read-only tools (filler_<n>), for listing benchmarks")
	flag.Parse()
	// A line on stderr: the gateway logs what its servers write there.
	fmt.Fprintf(os.Stderr, "notes server starting (pid %d)\n", os.Getpid())
	var mu sync.Mutex
	var notes []string
	f, t := false, true
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v1"}, nil)
	var runs *os.File
	if p := os.Getenv("TESTSERVER_LOG"); p != "" {
		var err error
		if runs, err = os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add_note", Description: "Add a note.", Annotations: &mcp.ToolAnnotations{DestructiveHint: &t, OpenWorldHint: &f}},
		func(ctx context.Context, req *mcp.CallToolRequest, in noteIn) (*mcp.CallToolResult, noteOut, error) {
			mu.Lock()
			defer mu.Unlock()
			if runs != nil {
				if _, err := runs.WriteString(in.Text + "\n"); err != nil {
					return nil, noteOut{}, err
				}
			}
			notes = append(notes, in.Text)
			return nil, noteOut{ID: len(notes), Text: in.Text, Where: "notes"}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "list_notes", Description: "List the notes.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, listOut, error) {
			mu.Lock()
			defer mu.Unlock()
			return nil, listOut{Notes: append([]string{}, notes...)}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Sleep, then answer.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}},
		func(ctx context.Context, req *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, listOut, error) {
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
			case <-ctx.Done():
				return nil, listOut{}, ctx.Err()
			}
			return nil, listOut{Notes: []string{fmt.Sprintf("slept %dms", in.MS)}}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "whoami", Description: "What the server was given.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, whoOut, error) {
			var out whoOut
			if req.Extra != nil && req.Extra.Header != nil {
				out.Authorization = req.Extra.Header.Get("Authorization")
				out.XTenant = req.Extra.Header.Get("X-Tenant")
			}
			out.Env = os.Getenv("TESTSERVER_SECRET")
			out.Cwd, _ = os.Getwd()
			return nil, out, nil
		})
	grown := 0
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "Add a tool named extra_<n> (the server then sends tools/list_changed).", Annotations: &mcp.ToolAnnotations{OpenWorldHint: &f}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, listOut, error) {
			mu.Lock()
			grown++
			name := fmt.Sprintf("extra_%d", grown)
			mu.Unlock()
			mcp.AddTool(s, &mcp.Tool{Name: name, Description: "A tool added at run time.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}},
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, listOut, error) {
					return nil, listOut{Notes: []string{name}}, nil
				})
			return nil, listOut{Notes: []string{name}}, nil
		})
	if *bench { // bench_echo answers with its text: the call of scripts/bench gateway
		mcp.AddTool(s, &mcp.Tool{Name: "bench_echo", Description: "Answer with the text.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}},
			func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoIn, error) {
				return nil, in, nil
			})
	}
	for i := range *fillers {
		name := fmt.Sprintf("filler_%d", i)
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "A tool that only fills the listing.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}},
			func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, echoIn, error) {
				return nil, echoIn{Text: name}, nil
			})
	}
	desc := os.Getenv("TESTSERVER_DESCRIPTION")
	if desc == "" {
		desc = "Describe things."
	}
	describe := func(desc string) {
		mcp.AddTool(s, &mcp.Tool{Name: "describe", Description: desc, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}},
			func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, listOut, error) {
				return nil, listOut{Notes: []string{desc}}, nil
			})
	}
	describe(desc)
	mcp.AddTool(s, &mcp.Tool{Name: "redefine", Description: "Replace describe's description (the server then sends tools/list_changed).", Annotations: &mcp.ToolAnnotations{OpenWorldHint: &f}},
		func(ctx context.Context, req *mcp.CallToolRequest, in noteIn) (*mcp.CallToolResult, listOut, error) {
			describe(in.Text)
			return nil, listOut{Notes: []string{in.Text}}, nil
		})
	if *addr == "" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	log.Fatal(http.Serve(ln, h))
}
