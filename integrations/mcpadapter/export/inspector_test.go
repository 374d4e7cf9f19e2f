package export_test

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/internal/testpeers"
)

// buildExportServer builds testdata/stdioserver, a registry exported
// over stdio or HTTP, into a temporary directory.
func buildExportServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "stdioserver")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/stdioserver")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// inspector runs the MCP Inspector CLI and decodes its JSON output. The
// CLI exits with status 5 when a tool returns isError; that is accepted
// when allowToolError is set.
func inspector(t *testing.T, allowToolError bool, args ...string) map[string]any {
	t.Helper()
	cmd := testpeers.Command(t, "mcp-inspector", append([]string{"--cli"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
		}
	}()
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && allowToolError && ee.ExitCode() == 5 {
		err = nil
	}
	if err != nil {
		t.Fatalf("inspector %v: %v\nstdout: %s\nstderr: %s", args, err, out, stderr.String())
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("inspector output is not JSON: %v\n%s", err, out)
	}
	return v
}

// TestInspectorCLI drives an exported registry with a real external client,
// the MCP Inspector CLI, over stdio and streamable HTTP.
func TestInspectorCLI(t *testing.T) {
	testpeers.Bin(t) // skip early without Node and the peers
	bin := buildExportServer(t)

	t.Run("stdio", func(t *testing.T) {
		checkInspector(t, bin)
	})
	t.Run("http", func(t *testing.T) {
		srv := exec.Command(bin, "-http")
		stdout, err := srv.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			srv.Process.Kill()
			srv.Wait()
		}()
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			t.Fatalf("reading the server's address: %v", err)
		}
		url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
		if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
			t.Fatalf("server printed %q, want a 127.0.0.1 URL", line)
		}
		checkInspector(t, url, "--transport", "http")
	})
}

func checkInspector(t *testing.T, target ...string) {
	t.Helper()
	list := inspector(t, false, append(target, "--method", "tools/list")...)
	tools, _ := list["tools"].([]any)
	var names []string
	var add map[string]any
	for _, tool := range tools {
		m := tool.(map[string]any)
		names = append(names, m["name"].(string))
		if m["name"] == "add" {
			add = m
		}
	}
	if diff := cmp.Diff([]string{"add", "greet"}, names); diff != "" {
		t.Fatalf("tools listed by the Inspector (-want +got):\n%s", diff)
	}
	wantIn := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"a": map[string]any{"type": "integer", "description": "first addend"},
			"b": map[string]any{"type": "integer", "description": "second addend"},
		},
		"required":             []any{"a", "b"},
		"additionalProperties": false,
	}
	if diff := cmp.Diff(wantIn, add["inputSchema"]); diff != "" {
		t.Errorf("add's input schema as the Inspector saw it (-want +got):\n%s", diff)
	}

	res := inspector(t, false, append(target, "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "b=40")...)
	if diff := cmp.Diff(map[string]any{"sum": 42.0}, res["structuredContent"]); diff != "" {
		t.Errorf("add(2, 40) structuredContent (-want +got):\n%s", diff)
	}
	res = inspector(t, false, append(target, "--method", "tools/call", "--tool-name", "greet", "--tool-arg", "name=Ada")...)
	want := []any{map[string]any{"type": "text", "text": "Hello, Ada!"}}
	if diff := cmp.Diff(want, res["content"]); diff != "" {
		t.Errorf("greet content (-want +got):\n%s", diff)
	}
	// Invalid arguments come back as a tool error the model can read.
	res = inspector(t, true, append(target, "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2")...)
	content, _ := res["content"].([]any)
	if res["isError"] != true || len(content) != 1 || !strings.Contains(content[0].(map[string]any)["text"].(string), `"kind":"args_invalid"`) {
		t.Errorf("add(2) = %v, want an args_invalid isError result", res)
	}
}
