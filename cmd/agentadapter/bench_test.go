package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkGatewayCall measures one tools/call through the gateway (go-sdk
// client → agentadapter serve → testserver over stdio) beside the same call
// made to testserver directly over streamable HTTP: the difference is what
// the gateway adds (a second MCP hop, the executor, the ledger).
func BenchmarkGatewayCall(b *testing.B) {
	dir := b.TempDir()
	writeFileB(b, dir+"/gateway.json", `{"mcpServers": {"notes": {"command": "`+testServer+`"}},
  "agentadapter": {"store": "memory:", "servers": {"notes": {"trust": "trusted"}}}}`)
	cmd := exec.Command(bin, "--config", "gateway.json", "--accept-launches", "serve", "--listen", "127.0.0.1:0")
	cmd.Dir = dir
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var base string
	for deadline := time.Now().Add(time.Minute); base == ""; time.Sleep(20 * time.Millisecond) {
		if m := urlRE.FindString(out.String()); m != "" && strings.Contains(out.String(), "msg=serving") {
			base = m
		}
		if time.Now().After(deadline) {
			b.Fatalf("serve did not start:\n%s", out.String())
		}
	}
	direct := exec.Command(testServer, "-http", "127.0.0.1:0")
	stdout, _ := direct.StdoutPipe()
	if err := direct.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { direct.Process.Kill(); direct.Wait() }()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	for name, url := range map[string]string{"gateway": base + "/mcp", "direct": strings.TrimSpace(line)} {
		b.Run(name, func(b *testing.B) {
			c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "list_notes", Arguments: map[string]any{}}
			b.ResetTimer()
			for b.Loop() {
				res, err := cs.CallTool(context.Background(), params)
				if err != nil || res.IsError {
					b.Fatalf("%v %v", err, res)
				}
			}
		})
	}
}

func writeFileB(b *testing.B, path, content string) {
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
}
