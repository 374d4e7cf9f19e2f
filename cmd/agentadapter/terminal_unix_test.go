//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
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
