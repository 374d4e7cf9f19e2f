package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A reload adds and removes servers while a client stays connected: the
// client is told (tools/list_changed) and its session goes on. A bad
// reload keeps the configuration in force and says why.
func TestReload(t *testing.T) {
	dir := t.TempDir()
	ev, path := everything(t)
	notes := fmt.Sprintf(`"notes": {"command": %q}`, testServer)
	evs := fmt.Sprintf(`"everything": {"command": %q, "args": ["stdio"], "env": {"PATH": %q}}`, ev, path)
	write := func(servers ...string) {
		writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {%s},
  "agentadapter": {"store": "memory:", "servers": {"everything": {"prefix": true, "trust": "trusted"}}, "policy": {"approval": {"default": "never"}}}}`, strings.Join(servers, ",")))
	}
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {%s}, "agentadapter": {"store": "memory:", "policy": {"approval": {"default": "never"}}}}`, notes))
	s := startServe(t, dir, nil, "--config", "gateway.json")

	changed := make(chan struct{}, 16)
	cs := connect(t, s.base+"/mcp", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	waitTools := func(what string, ok func([]string) bool) []string {
		t.Helper()
		deadline := time.After(60 * time.Second)
		for {
			names := toolNames(t, cs)
			if ok(names) {
				return names
			}
			select {
			case <-changed:
			case <-time.After(200 * time.Millisecond):
			case <-deadline:
				t.Fatalf("%s: tools are %v\n%s", what, names, s.out.String())
			}
		}
	}
	waitTools("start", func(n []string) bool { return slices.Contains(n, "add_note") })

	write(notes, evs)
	select {
	case <-changed:
	case <-time.After(60 * time.Second):
		t.Fatalf("no tools/list_changed after adding a server\n%s", s.out.String())
	}
	waitTools("after adding everything", func(n []string) bool { return slices.Contains(n, "everything_echo") && slices.Contains(n, "add_note") })
	if res := callTool(t, cs, "everything_echo", map[string]any{"message": "after reload"}); res.IsError || text(res) != "Echo: after reload" {
		t.Errorf("everything_echo after reload: %q", text(res))
	}

	write(evs)
	waitTools("after removing notes", func(n []string) bool { return !slices.Contains(n, "add_note") && slices.Contains(n, "everything_echo") })
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_note", Arguments: map[string]any{"text": "x"}}); err == nil && !res.IsError {
		t.Errorf("add_note ran after its server was removed")
	}

	// A bad configuration is refused; the one in force keeps serving.
	writeFile(t, dir, "gateway.json", `{"mcpServers": {"everything": {"comand": "x"}}}`)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(s.out.String(), "reload refused") {
		if time.Now().After(deadline) {
			t.Fatalf("no refusal logged:\n%s", s.out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(s.out.String(), `unknown key \"comand\"`) {
		t.Errorf("the refusal does not say why:\n%s", s.out.String())
	}
	if res := callTool(t, cs, "everything_echo", map[string]any{"message": "still here"}); res.IsError || text(res) != "Echo: still here" {
		t.Errorf("everything_echo after a bad reload: %q", text(res))
	}

	// SIGHUP reloads too.
	write(evs, notes)
	s.cmd.Process.Signal(syscall.SIGHUP)
	waitTools("after SIGHUP", func(n []string) bool { return slices.Contains(n, "add_note") })
	s.stop(t)
}
