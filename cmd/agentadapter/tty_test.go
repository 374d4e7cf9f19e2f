package main

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// On a terminal, servers connecting show their status and time; piped, the
// same command is quiet (TestCall checks that stderr stays empty).
func TestProgressOnTerminal(t *testing.T) {
	dir := t.TempDir()
	notesConfig(t, dir, "")
	cmd := exec.Command(bin, "--config", "gateway.json", "--accept-launches", "call", "list_notes")
	cmd.Dir = dir
	f, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&out, f); close(done) }()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("call on a terminal: %v\n%s", err, out.String())
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	s := out.String()
	if !strings.Contains(s, "✓") || !strings.Contains(s, "notes") || !strings.Contains(s, "7 tools") {
		t.Errorf("no progress on a terminal:\n%q", s)
	}
	if !strings.Contains(s, "structured (for the program)") {
		t.Errorf("no result:\n%q", s)
	}
}

// -v logs JSON on stderr.
func TestVerboseJSONLogs(t *testing.T) {
	dir := t.TempDir()
	notesConfig(t, dir, "")
	r := runBin(t, dir, nil, "--config", "gateway.json", "-v", "call", "list_notes")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatal("no logs with -v")
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, `{"time":`) {
			t.Errorf("not a JSON log line: %q", l)
		}
	}
}
