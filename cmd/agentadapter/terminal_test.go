package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// hostile is the text the hostile server answers with (the server's own
// copy: internal/hostileserver.Hostile); hostileEnv the same without NUL,
// which an environment variable cannot carry.
const (
	hostile    = "A\x1b[2J\x1b]0;owned\a\x1b]8;;https://evil.example\x1b\\docs\x1b]8;;\x1b\\\rB\x00C\u009b31mD\u202eE"
	hostileEnv = "A\x1b[2J\x1b]0;owned\a\x1b]8;;https://evil.example\x1b\\docs\x1b]8;;\x1b\\\rBC\u009b31mD\u202eE"
)

// rawControls may not appear in anything the command prints.
var rawControls = []string{"\x1b", "\a", "\r", "\x00", "\u009b", "\u202e"}

// shownEscaped are the escapes the hostile text must be shown as, outside
// JSON.
var shownEscaped = []string{`\x1b]0;owned\a`, `\x1b]8;;https://evil.example\x1b\docs`, `\r`, `\x9b31m`, `\u202e`}

var (
	hostileOnce sync.Once
	hostileBin  string
	hostileErr  error
)

// hostileServer builds internal/hostileserver once and returns its path.
func hostileServer(t *testing.T) string {
	t.Helper()
	hostileOnce.Do(func() {
		hostileBin = filepath.Join(filepath.Dir(bin), "hostileserver")
		out, err := exec.Command("go", "build", "-o", hostileBin, "./internal/hostileserver").CombinedOutput()
		if err != nil {
			hostileErr = fmt.Errorf("building hostileserver: %v\n%s", err, out)
		}
	})
	if hostileErr != nil {
		t.Fatal(hostileErr)
	}
	return hostileBin
}

// noRawControls fails the test for each control rune out carries raw.
func noRawControls(t *testing.T, what, out string) {
	t.Helper()
	for _, r := range rawControls {
		if strings.Contains(out, r) {
			t.Errorf("%s carries %q raw:\n%q", what, r, out)
		}
	}
}

// shows fails the test for each of wants out does not contain.
func shows(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("%s does not show %q:\n%s", what, w, out)
		}
	}
}

// call prints an upstream's text, its isError text, its JSON-RPC error
// and its structured output escaped: nothing it prints moves the cursor,
// retitles the window, hides a link or reorders the line.
func TestCallHostileUpstream(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"hostile": {"command": %q}},
  "agentadapter": {"store": "memory:", "policy": {"approval": {"default": "never"}}, "servers": {"hostile": {"trust": "trusted"}}}}`, hostileServer(t)))
	for _, tool := range []string{"text", "fail", "rpcerr", "structured"} {
		t.Run(tool, func(t *testing.T) {
			r := runBin(t, dir, nil, "--config", "gateway.json", "call", tool)
			if r.code != exitOK && r.code != exitToolError && r.code != exitFailure {
				t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			out := r.stdout + r.stderr
			noRawControls(t, "call "+tool, out)
			if tool == "structured" {
				// Structured content prints as JSON, with JSON's escapes.
				shows(t, "call "+tool, out, `\u001b]0;owned\u0007`, `\u009b31m`, `\u202e`)
			} else {
				shows(t, "call "+tool, out, shownEscaped...)
			}

			r = runBin(t, dir, nil, "--config", "gateway.json", "call", tool, "--json")
			noRawControls(t, "call --json "+tool, r.stdout+r.stderr)
			if r.stdout == "" {
				return // a protocol error is not a result: it is on stderr
			}
			var v any
			if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
				t.Fatalf("--json output is not JSON: %v\n%s", err, r.stdout)
			}
			// JSON escapes that decode to the same text.
			shows(t, "call --json "+tool, r.stdout, `\u001b]0;owned\u0007`, `\u009b31m`, `\u202e`)
			if !strings.Contains(fmt.Sprint(v), hostile) {
				t.Errorf("--json does not decode to the upstream's text:\n%s", r.stdout)
			}
		})
	}
}

// call prints what the model reads: an image is a short description, not
// kilobytes of base64; --json keeps the blocks in full.
func TestCallPrintsModelText(t *testing.T) {
	dir := t.TempDir()
	gatewayConfig(t, dir, "memory:")
	r := runBin(t, dir, nil, "--config", "gateway.json", "call", "everything_get-tiny-image")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`\[image \(image/png, \d+ bytes\)\]`).MatchString(r.stdout) || len(r.stdout) > 1024 {
		t.Errorf("call prints %d bytes, not the model's text:\n%.400s", len(r.stdout), r.stdout)
	}
	r = runBin(t, dir, nil, "--config", "gateway.json", "call", "everything_get-tiny-image", "--json")
	var out struct {
		Text    string           `json:"text"`
		Content []map[string]any `json:"content"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
		t.Fatalf("exit %d, --json %q: %v", r.code, r.stdout, err)
	}
	var data string
	for _, c := range out.Content {
		if c["type"] == "image" {
			data, _ = c["data"].(string)
		}
	}
	if data == "" || !strings.Contains(out.Text, "[image (image/png,") {
		t.Errorf("--json: text %q, image data %d bytes", out.Text, len(data))
	}
}

// pins names tools as clients call them, shows an upstream's raw tool
// name escaped, and its diff (of a pin from an earlier run) escapes the
// new definition; calling a quarantined tool says it is quarantined and
// how to review it, by either name.
func TestPinsHostileAndNames(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"hostile": {"command": %q}, "notes": {"command": %q}},
  "agentadapter": {"store": "sqlite:state.db", "policy": {"approval": {"default": "never"}},
    "servers": {"hostile": {"trust": "trusted"}, "notes": {"trust": "trusted", "prefix": true, "rename": {"list_notes": "notes_ls", "describe": "notes_what"}}}}}`, hostileServer(t), testServer))
	if r := runBin(t, dir, nil, "--config", "gateway.json", "call", "notes_what"); r.code != 0 {
		t.Fatalf("first run: exit %d: %s", r.code, r.stderr)
	}
	r := runBin(t, dir, nil, "--config", "gateway.json", "pins", "list")
	if r.code != 0 {
		t.Fatalf("pins list: exit %d: %s", r.code, r.stderr)
	}
	noRawControls(t, "pins list", r.stdout+r.stderr)
	shows(t, "pins list", r.stdout, `evilA\x1b[2J\x1b]0;owned\a`, `\x00C\x9b31mD\u202eE`)
	for _, want := range []string{`notes_what\s+notes\s+describe\s`, `notes_ls\s+notes\s+list_notes\s`} {
		if !regexp.MustCompile(`(?m)^` + want).MatchString(r.stdout) {
			t.Errorf("pins list lacks a row %q:\n%s", want, r.stdout)
		}
	}
	r = runBin(t, dir, nil, "--config", "gateway.json", "pins", "list", "--json")
	noRawControls(t, "pins list --json", r.stdout+r.stderr)
	var pl struct {
		Tools []struct{ Tool, Server, RemoteName, State string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &pl); err != nil || len(pl.Tools) == 0 {
		t.Fatalf("pins list --json: %v\n%s", err, r.stdout)
	}

	// The definition changes between runs: the pin is an earlier run's.
	env := []string{"TESTSERVER_DESCRIPTION=" + hostileEnv}
	r = runBin(t, dir, env, "--config", "gateway.json", "call", "notes_what")
	if r.code == 0 || !strings.Contains(r.stderr, `tool "notes_what" is quarantined: its definition changed`) ||
		!strings.Contains(r.stderr, "agentadapter pins diff notes describe") {
		t.Errorf("call of a quarantined tool: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	noRawControls(t, "call of a quarantined tool", r.stdout+r.stderr)
	for _, args := range [][]string{{"notes", "describe"}, {"notes_what"}, {"notes/describe"}} {
		r = runBin(t, dir, nil, append([]string{"--config", "gateway.json", "pins", "diff"}, args...)...)
		if r.code != 0 || !strings.Contains(r.stdout, "notes_what (server notes, remote name describe)") {
			t.Errorf("pins diff %v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		noRawControls(t, "pins diff", r.stdout+r.stderr)
		shows(t, fmt.Sprintf("pins diff %v", args), r.stdout, `\u001b]0;owned\u0007`, `\u009b31m`, `\u202e`)
	}
	if r := runBin(t, dir, nil, "--config", "gateway.json", "pins", "diff", "notes_list"); !strings.Contains(r.stdout, "no quarantined tools") {
		t.Errorf("pins diff of a tool that is not quarantined: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// approvals list shows a model's arguments and a caller's subject escaped,
// and --json prints the documented shape (lowercase keys, the state as a
// word) with the same escapes.
func TestApprovalsListHostile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "sqlite:state.db", "servers": {"notes": {"trust": "trusted"}},
    "policy": {"approval": {"default": "never", "rules": [{"tool": "add_note", "approve": "required"}]}}}}`, testServer))
	// JSON carries C1 and bidi raw; ESC only as \u001b.
	args := `{"text":"\u001b]0;owned\u0007` + "\u009b31m\u202eE" + `"}`
	r := runBin(t, dir, nil, "--config", "gateway.json", "call", "--as", "mallory\x1b]0;x\a\u202e", "add_note", args)
	if r.code != exitPending {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, dir, nil, "--config", "gateway.json", "approvals", "list")
	noRawControls(t, "approvals list", r.stdout+r.stderr)
	shows(t, "approvals list", r.stdout, `\x9b31m\u202eE`, `mallory\x1b]0;x\a\u202e`)

	r = runBin(t, dir, nil, "--config", "gateway.json", "approvals", "list", "--json")
	if r.code != 0 {
		t.Fatalf("approvals list --json: exit %d: %s", r.code, r.stderr)
	}
	noRawControls(t, "approvals list --json", r.stdout+r.stderr)
	// What varies from run to run is replaced; the rest is the contract.
	got := r.stdout
	for _, key := range []string{"id", "session", "runId", "callId", "created", "expires"} {
		got = regexp.MustCompile(`"`+key+`":"[^"]*"`).ReplaceAllString(got, `"`+key+`":"…"`)
	}
	golden(t, "approvals_list.jsonl", got)
}

// version --json is JSON.
func TestVersionJSON(t *testing.T) {
	r := runBin(t, t.TempDir(), nil, "version", "--json")
	var v struct{ Version, Go string }
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || r.code != 0 || !strings.HasPrefix(v.Version, "v") || !strings.HasPrefix(v.Go, "go") {
		t.Errorf("version --json: exit %d %q: %v", r.code, r.stdout, err)
	}
}
