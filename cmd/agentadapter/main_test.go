package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/internal/testpeers"
)

// The tests drive the real binary, built once here (with -race when the
// tests run with it), against server-everything and testserver.
var (
	bin        string // the agentadapter binary
	testServer string // the second MCP server
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agentadapter-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "agentadapter")
	testServer = filepath.Join(dir, "testserver")
	args := []string{"build"}
	if raceEnabled {
		args = append(args, "-race")
	}
	for out, pkg := range map[string]string{bin: ".", testServer: "./internal/testserver"} {
		cmd := exec.Command("go", append(args, "-o", out, pkg)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, b)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what a run of the binary produced.
type result struct {
	stdout, stderr string
	code           int
}

// runBin runs the binary in dir with args and the given extra environment,
// accepting the launches of the stdio servers it starts (the tests of
// launch review use runBinReview).
func runBin(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	return runBinReview(t, dir, env, append([]string{"--accept-launches"}, args...)...)
}

// runBinReview runs the binary in dir with args alone.
func runBinReview(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// everything returns the command and environment that start
// server-everything over stdio (fails under CI when it is missing).
func everything(t *testing.T) (command string, path string) {
	t.Helper()
	cmd := testpeers.Command(t, "mcp-server-everything")
	for _, kv := range cmd.Env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = p
		}
	}
	return cmd.Path, path
}

// writeFile writes a file under dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
