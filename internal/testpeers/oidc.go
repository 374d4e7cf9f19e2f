package testpeers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// OIDCProvider runs script (a test's .mjs) with Node 22 as
// "node script <oidc-provider package dir> args...", and returns the first
// line the script prints that is a JSON object (its issuer, keys, ...),
// waiting up to a minute for it. The provider is stopped at the end of
// the test by closing its stdin (scripts exit on that), killed after 10 s.
// It skips (fails under CI) when oidc-provider is not installed.
func OIDCProvider(tb testing.TB, script string, args ...string) json.RawMessage {
	tb.Helper()
	_, nodeBin := Bin(tb)
	pkg := filepath.Join(Root(tb), ".tools", "node_modules", "oidc-provider")
	if _, err := os.Stat(filepath.Join(pkg, "package.json")); err != nil {
		missing(tb, "oidc-provider (run scripts/setup-node)")
	}
	cmd := exec.Command(filepath.Join(nodeBin, "node"), append([]string{script, pkg}, args...)...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	lines := make(chan []byte, 1)
	read := make(chan struct{})
	go func() {
		defer close(read)
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadBytes('\n')
			if line = bytes.TrimSpace(line); bytes.HasPrefix(line, []byte("{")) {
				lines <- line
				break
			}
			if err != nil {
				close(lines)
				return
			}
		}
		io.Copy(io.Discard, r)
	}()
	tb.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { <-read; cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	select {
	case line, ok := <-lines:
		if !ok {
			tb.Fatalf("testpeers: %s exited without printing its issuer", script)
		}
		return line
	case <-time.After(time.Minute):
		tb.Fatalf("testpeers: %s did not start in a minute", script)
	}
	return nil
}
