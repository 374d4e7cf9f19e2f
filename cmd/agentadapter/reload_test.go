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
	virtual := `"virtualServers": {"ev": {"tools": ["everything_*"]}, "nt": {"tools": ["add_note", "list_notes"]}}`
	write := func(servers ...string) {
		writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {%s},
  "agentadapter": {"store": "memory:", "servers": {"everything": {"prefix": true, "trust": "trusted"}}, "policy": {"approval": {"default": "never"}}, %s}}`, strings.Join(servers, ","), virtual))
	}
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {%s}, "agentadapter": {"store": "memory:", "policy": {"approval": {"default": "never"}}, %s}}`, notes, virtual))
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
	// Clients of two virtual servers: only the one that exports a new tool
	// is told of it.
	evChanged, ntChanged := make(chan struct{}, 16), make(chan struct{}, 16)
	evc := connect(t, s.base+"/mcp/ev", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { evChanged <- struct{}{} }})
	nt := connect(t, s.base+"/mcp/nt", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { ntChanged <- struct{}{} }})
	if n := toolNames(t, evc); len(n) != 0 {
		t.Errorf("/mcp/ev before everything is added: %v", n)
	}

	write(notes, evs)
	select {
	case <-changed:
	case <-time.After(60 * time.Second):
		t.Fatalf("no tools/list_changed after adding a server\n%s", s.out.String())
	}
	waitTools("after adding everything", func(n []string) bool { return slices.Contains(n, "everything_echo") && slices.Contains(n, "add_note") })
	select {
	case <-evChanged:
	case <-time.After(30 * time.Second):
		t.Errorf("the client of /mcp/ev was not told of everything's tools")
	}
	if n := toolNames(t, evc); !slices.Contains(n, "everything_echo") || slices.Contains(n, "add_note") {
		t.Errorf("/mcp/ev after reload: %v", n)
	}
	select {
	case <-ntChanged:
		t.Errorf("the client of /mcp/nt was told of tools it does not export")
	default:
	}
	if n := toolNames(t, nt); !slices.Contains(n, "add_note") || slices.Contains(n, "everything_echo") {
		t.Errorf("/mcp/nt after reload: %v", n)
	}
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

// A tool an upstream server adds at run time (tools/list_changed) reaches
// the clients of every endpoint that exports it, and only those.
func TestUpstreamListChanged(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "servers": {"notes": {"trust": "trusted"}}, "policy": {"approval": {"default": "never"}},
    "virtualServers": {"extras": {"tools": ["extra_*", "grow"]}, "plain": {"tools": ["list_notes"]}}}}`, testServer))
	s := startServe(t, dir, nil, "--config", "gateway.json")
	notify := func() (chan struct{}, *mcp.ClientOptions) {
		ch := make(chan struct{}, 16)
		return ch, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { ch <- struct{}{} }}
	}
	allCh, allOpts := notify()
	exCh, exOpts := notify()
	plCh, plOpts := notify()
	all := connect(t, s.base+"/mcp", allOpts)
	extras := connect(t, s.base+"/mcp/extras", exOpts)
	plain := connect(t, s.base+"/mcp/plain", plOpts)
	if res := callTool(t, extras, "grow", map[string]any{}); res.IsError {
		t.Fatalf("grow: %q", text(res))
	}
	for name, ch := range map[string]chan struct{}{"/mcp": allCh, "/mcp/extras": exCh} {
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Errorf("the client of %s was not told of extra_1\n%s", name, s.out.String())
		}
	}
	if n := toolNames(t, extras); !slices.Contains(n, "extra_1") {
		t.Errorf("/mcp/extras after grow: %v", n)
	}
	if res := callTool(t, all, "extra_1", map[string]any{}); res.IsError || !strings.Contains(text(res), "extra_1") {
		t.Errorf("extra_1 through /mcp: %q", text(res))
	}
	select {
	case <-plCh:
		t.Errorf("the client of /mcp/plain was told of a tool it does not export")
	default:
	}
	if n := toolNames(t, plain); len(n) != 1 {
		t.Errorf("/mcp/plain: %v", n)
	}
	s.stop(t)
}
