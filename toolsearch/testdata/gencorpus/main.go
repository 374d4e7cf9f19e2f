// Command gencorpus lists the tools of real MCP servers over the go-sdk
// client and writes them to ../tools.json, the benchmark corpus of package
// toolsearch. It is a module of its own (under testdata, so no go command
// of the workspace builds it): the root module stays free of the MCP SDK.
//
//	cd toolsearch/testdata/gencorpus && GOWORK=off go run . -node-bin DIR -repo ../../..
//
// The npm servers are @modelcontextprotocol/server-everything,
// -filesystem, -memory, -sequential-thinking and -postgres (listing needs
// no database); the conformance server is examples/conformance-server.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tool is one definition as the corpus keeps it.
type tool struct {
	Server      string          `json:"server"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

func main() {
	bin := flag.String("bin", "", "directory of the npm servers' executables (node_modules/.bin)")
	nodeBin := flag.String("node-bin", "", "directory of Node 22")
	repo := flag.String("repo", "../../..", "repository root (for examples/conformance-server)")
	out := flag.String("o", "../tools.json", "output file")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tmp, err := os.MkdirTemp("", "gencorpus")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	env := append(os.Environ(), "PATH="+*nodeBin+string(os.PathListSeparator)+os.Getenv("PATH"))
	stdio := []struct {
		server string
		args   []string
	}{
		{"everything", []string{"mcp-server-everything"}},
		{"filesystem", []string{"mcp-server-filesystem", tmp}},
		{"memory", []string{"mcp-server-memory"}},
		{"sequential-thinking", []string{"mcp-server-sequential-thinking"}},
		{"postgres", []string{"mcp-server-postgres", "postgresql://127.0.0.1:1/none"}},
	}
	var all []tool
	for _, s := range stdio {
		cmd := exec.Command(filepath.Join(*bin, s.args[0]), s.args[1:]...)
		cmd.Env = append(env, "MEMORY_FILE_PATH="+filepath.Join(tmp, "memory.json"))
		ts, err := list(ctx, s.server, &mcp.CommandTransport{Command: cmd})
		if err != nil {
			log.Fatalf("%s: %v", s.server, err)
		}
		all = append(all, ts...)
	}
	ts, err := conformance(ctx, *repo, tmp)
	if err != nil {
		log.Fatalf("conformance: %v", err)
	}
	all = append(all, ts...)
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "%d tools written to %s\n", len(all), *out)
}

// conformance builds and starts examples/conformance-server and lists its
// tools over streamable HTTP.
func conformance(ctx context.Context, repo, tmp string) ([]tool, error) {
	exe := filepath.Join(tmp, "conformance-server")
	build := exec.CommandContext(ctx, "go", "build", "-o", exe, "./examples/conformance-server")
	build.Dir, build.Stderr = repo, os.Stderr
	build.Env = append(os.Environ(), "GOWORK="+filepath.Join(repo, "go.work"))
	if err := build.Run(); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return nil, err
	}
	url := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	return list(ctx, "conformance", &mcp.StreamableClientTransport{Endpoint: url})
}

// list lists a server's tools as a client that declares sampling,
// elicitation and roots (server-everything offers some tools only then).
func list(ctx context.Context, server string, t mcp.Transport) ([]tool, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "gencorpus", Version: "v0"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, fmt.Errorf("not supported")
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, fmt.Errorf("not supported")
		},
	})
	c.AddRoots(&mcp.Root{URI: "file:///tmp", Name: "tmp"})
	s, err := c.Connect(ctx, t, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out []tool
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, err
		}
		out = append(out, tool{Server: server, Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: schema})
	}
	slices.SortFunc(out, func(a, b tool) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
