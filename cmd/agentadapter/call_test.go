package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// call makes one governed call and prints both channels; exit codes tell
// a script what happened.
func TestCall(t *testing.T) {
	dir := t.TempDir()
	notesConfig(t, dir, "")
	r := runBin(t, dir, nil, "--config", "gateway.json", "call", "add_note", `{"text": "milk"}`)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"content (for the model):\n  {\"id\":1,\"text\":\"milk\",\"where\":\"notes\"}", "structured (for the program):\n  {\n    \"id\": 1,"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.stderr != "" {
		t.Errorf("stderr when piped: %q", r.stderr)
	}

	r = runBin(t, dir, nil, "--config", "gateway.json", "call", "add_note", `{"text": "eggs"}`, "--json")
	var out struct {
		Content    []map[string]any `json:"content"`
		Structured map[string]any   `json:"structured"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
		t.Fatalf("exit %d, --json output %q: %v", r.code, r.stdout, err)
	}
	if out.Structured["text"] != "eggs" || len(out.Content) != 1 || out.Content[0]["type"] != "text" {
		t.Errorf("--json: %+v", out)
	}

	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"invalid arguments", []string{"call", "add_note", `{"text": 1}`}, exitToolError, `"kind": "args_invalid"`},
		{"unknown tool", []string{"call", "nosuch"}, exitUsage, `no tool "nosuch" here`},
		{"arguments not JSON", []string{"call", "add_note", `{text}`}, exitUsage, "ARGS is not valid JSON"},
		{"no tool", []string{"call"}, exitUsage, "accepts between 1 and 2 arg(s)"},
		{"unknown flag", []string{"call", "--bogus", "x"}, exitUsage, "unknown flag: --bogus"},
		{"unknown endpoint", []string{"call", "--endpoint", "nope", "list_notes"}, exitUsage, `no endpoint "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runBin(t, dir, nil, append([]string{"--config", "gateway.json", "--json"}, tt.args...)...)
			if r.code != tt.code || !strings.Contains(r.stdout+r.stderr, tt.want) {
				t.Errorf("exit %d (want %d)\nstdout: %s\nstderr: %s\nwant %q", r.code, tt.code, r.stdout, r.stderr, tt.want)
			}
		})
	}
}

// A call the policy holds prints its ticket and exits with 4.
func TestCallPending(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", `{"mcpServers": {"notes": {"command": "`+testServer+`"}},
  "agentadapter": {"store": "memory:", "policy": {"approval": {"default": "never", "rules": [{"tool": "add_note", "approve": "required"}]}}}}`)
	r := runBin(t, dir, nil, "--config", "gateway.json", "call", "add_note", `{"text": "x"}`)
	if r.code != exitPending {
		t.Fatalf("exit %d, want %d: %s %s", r.code, exitPending, r.stdout, r.stderr)
	}
	m := regexp.MustCompile(`agentadapter approvals approve (\S+)`).FindStringSubmatch(r.stderr)
	if m == nil || !strings.Contains(r.stdout, m[1]) || !strings.Contains(r.stdout, "approval_pending") {
		t.Errorf("no ticket to approve:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
	if r := runBin(t, dir, nil, "--config", "gateway.json", "call", "list_notes"); r.code != 0 {
		t.Errorf("list_notes (no rule) exit %d: %s", r.code, r.stderr)
	}
}

// Every command has --help; version prints the version.
func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"serve", "--help"}, {"call", "--help"}, {"inspect", "--help"}, {"ledger", "query", "--help"},
		{"approvals", "deny", "--help"}, {"pins", "accept", "--help"}, {"config", "check", "--help"}, {"version", "--help"}} {
		r := runBin(t, t.TempDir(), nil, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "Usage:") {
			t.Errorf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	if r := runBin(t, t.TempDir(), nil, "--help"); !strings.Contains(r.stdout, "Exit codes:") {
		t.Errorf("--help does not document the exit codes")
	}
	if r := runBin(t, t.TempDir(), nil, "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "agentadapter v") {
		t.Errorf("version: %d %q", r.code, r.stdout)
	}
	if r := runBin(t, t.TempDir(), nil, "bogus"); r.code != exitUsage {
		t.Errorf("unknown command: exit %d", r.code)
	}
}

// Without --config, the files clients keep in a project are found.
func TestConfigDiscovery(t *testing.T) {
	dir := t.TempDir()
	if r := runBin(t, dir, nil, "config", "check"); r.code != exitUsage || !strings.Contains(r.stderr, "no configuration: pass --config FILE") {
		t.Errorf("no config: exit %d %q", r.code, r.stderr)
	}
	writeFile(t, dir, ".vscode/mcp.json", `{"servers": {"found": {"command": "sh"}}}`)
	if r := runBin(t, dir, nil, "config", "check"); r.code != 0 || !strings.Contains(r.stdout, `"name": "found"`) {
		t.Errorf("discovery of .vscode/mcp.json: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
}
