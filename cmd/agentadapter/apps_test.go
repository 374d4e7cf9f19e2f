package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/internal/testpeers"
)

// nodeScript runs one of testdata/tsclient's scripts with Node 22 and the
// installed TypeScript SDKs (a missing peer fails under CI) and returns
// what it printed: {"errors": [...], "figures": {...}}.
func nodeScript(t *testing.T, script string, args ...string) (errs []string, figures map[string]any) {
	t.Helper()
	return nodeScriptEnv(t, nil, script, args...)
}

// nodeScriptEnv is nodeScript with more environment variables.
func nodeScriptEnv(t *testing.T, env []string, script string, args ...string) (errs []string, figures map[string]any) {
	t.Helper()
	bin, nodeBin := testpeers.Bin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	abs, err := filepath.Abs(filepath.Join("testdata", "tsclient", script))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(nodeBin, "node"), append([]string{abs}, args...)...)
	cmd.Env = append(append(testpeers.Env(nodeBin, bin), "NODE_MODULES="+filepath.Join(testpeers.Root(t), ".tools", "node_modules")), env...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("node %s: %v\n%s\n%s", script, err, out, stderr)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var r struct {
		Errors  []string       `json:"errors"`
		Figures map[string]any `json:"figures"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		t.Fatalf("node %s printed %q: %v", script, out, err)
	}
	return r.Errors, r.Figures
}

// An MCP Apps server from npm (server-system-monitor) behind serve: the
// official TypeScript clients (sdk 1.x at 2025-11-25, client 2.x at
// 2026-07-28) read its ui:// resource through the gateway
// byte for byte as it reads it from the server directly, sees each tool's
// _meta unchanged, and calls the app-only poll-system-stats through the
// gateway under the upstream's name, the one the app's HTML calls, also
// where the gateway prefixes the server's tools.
func TestServeMCPApps(t *testing.T) {
	monitor := testpeers.Command(t, "mcp-system-monitor-server", "--stdio")
	var path string
	for _, kv := range monitor.Env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = p
		}
	}
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{
  "mcpServers": {
    "monitor": {"command": %[1]q, "args": ["--stdio"], "env": {"PATH": %[2]q}},
    "pmon": {"command": %[1]q, "args": ["--stdio"], "env": {"PATH": %[2]q}}
  },
  "agentadapter": {
    "store": "memory:",
    "servers": {"monitor": {"trust": "trusted"}, "pmon": {"trust": "trusted", "prefix": true}},
    "policy": {"approval": {"default": "never"}},
    "virtualServers": {"apps": {"servers": ["monitor"]}, "prefixed": {"servers": ["pmon"]}}
  }
}`, monitor.Path, path))
	s := startServe(t, dir, nil, "--config", "gateway.json")
	for _, ep := range []struct{ path, prefix, client string }{
		{"/mcp", "", "sdk"}, {"/mcp/apps", "", "sdk"}, {"/mcp/prefixed", "pmon_", "sdk"},
		{"/mcp", "", "client"}, {"/mcp/prefixed", "pmon_", "client"},
	} {
		t.Run(ep.client+ep.path, func(t *testing.T) {
			errs, figures := nodeScriptEnv(t, []string{"GATEWAY_CLIENT=" + ep.client}, "apps.mjs", s.base+ep.path, ep.prefix, "poll-system-stats", monitor.Path, "--stdio")
			for _, e := range errs {
				t.Error(e)
			}
			if want := map[string]string{"sdk": "2025-11-25", "client": "2026-07-28"}[ep.client]; fmt.Sprint(figures["protocolVersion"]) != want {
				t.Errorf("negotiated %v, want %s", figures["protocolVersion"], want)
			}
			t.Logf("figures: %v", figures)
		})
	}
	s.stop(t)
}
