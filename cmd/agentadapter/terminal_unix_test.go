//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// call and inspect return once they have their answer: a stdio server
// that ignores the end of its input is terminated soon after, not waited
// for the 2 s of mcpadapter.DefaultStopGrace, and is reaped, not
// orphaned.
func TestOneShotStopsLingeringServer(t *testing.T) {
	for _, args := range [][]string{{"call", "text"}, {"inspect"}} {
		t.Run(args[0], func(t *testing.T) {
			dir := t.TempDir()
			linger := filepath.Join(dir, "linger")
			writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"hostile": {"command": %q, "env": {"HOSTILE_LINGER": %q}}},
  "agentadapter": {"store": "memory:", "policy": {"approval": {"default": "never"}}, "servers": {"hostile": {"trust": "trusted"}}}}`, hostileServer(t), linger))
			r := runBin(t, dir, nil, append([]string{"--config", "gateway.json"}, args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			b, err := os.ReadFile(linger)
			if err != nil {
				t.Fatalf("the server was not sent SIGTERM: %v", err)
			}
			ms, _ := strconv.Atoi(string(b))
			// 2000 before; a bound far above the 250 ms grace, for a loaded machine.
			if ms >= 1500 {
				t.Errorf("SIGTERM came %d ms after the end of the server's input", ms)
			}
			pid, err := os.ReadFile(linger + ".pid")
			if err != nil {
				t.Fatal(err)
			}
			n, _ := strconv.Atoi(string(pid))
			if err := syscall.Kill(n, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("the server (pid %d) outlived the command: kill 0: %v", n, err)
			}
		})
	}
}

// An input's description comes from the client file (which an editor or
// an agent may write); on a terminal its prompt shows it escaped.
func TestInputPromptHostile(t *testing.T) {
	dir := t.TempDir()
	desc, err := json.Marshal(hostileEnv + " [sudo] password for root")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "mcp.json", `{"inputs": [{"type": "promptString", "id": "k", "description": `+string(desc)+`}],
  "servers": {"notes": {"type": "stdio", "command": "`+testServer+`", "env": {"K": "${input:k}"}}}}`)
	cmd := exec.Command(bin, "--config", "mcp.json", "config", "check")
	cmd.Dir = dir
	f, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 4096)
		for {
			n, err := f.Read(b)
			mu.Lock()
			out.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	// Answer once the prompt is shown (polled, with a generous bound).
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		asked := strings.Contains(out.String(), "password for root: ")
		mu.Unlock()
		if asked {
			break
		}
		if time.Now().After(deadline) {
			mu.Lock()
			t.Fatalf("no prompt:\n%q", out.String())
		}
	}
	if _, err := io.WriteString(f, "secret-value\n"); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("config check: %v\n%q", err, out.String())
	}
	<-done
	got := out.String()
	prompt := got[:strings.Index(got, "password for root: ")]
	noRawControls(t, "the input's prompt", prompt)
	shows(t, "the input's prompt", prompt, shownEscaped...)
}
