//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDiagnostics: serve with AGENTADAPTER_GOROUTINES writes every
// goroutine's stack to BASE.1, BASE.2 on each SIGUSR1 and keeps serving;
// with AGENTADAPTER_CPUPROFILE it writes a CPU profile when it stops.
// Without them it writes neither (nothing is on by default).
func TestDiagnostics(t *testing.T) {
	dir := t.TempDir()
	notesConfig(t, dir, "")
	base, prof, mem := filepath.Join(dir, "g"), filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	s := startServe(t, dir, []string{"AGENTADAPTER_GOROUTINES=" + base, "AGENTADAPTER_CPUPROFILE=" + prof, "AGENTADAPTER_MEMPROFILE=" + mem}, "--config", "gateway.json")
	for i := 1; i <= 2; i++ {
		s.cmd.Process.Signal(syscall.SIGUSR1)
		name := base + "." + string(rune('0'+i))
		var b []byte
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if b, _ = os.ReadFile(name); strings.Contains(string(b), "main.main") {
				break
			}
		}
		if !strings.Contains(string(b), "goroutine ") || !strings.Contains(string(b), "main.main") {
			t.Fatalf("dump %s: %d bytes, want every goroutine's stack", name, len(b))
		}
	}
	if _, err := os.Stat(base + ".3"); err == nil {
		t.Error("a third dump without a third signal")
	}
	cs := connect(t, s.base+"/mcp", nil)
	if names := toolNames(t, cs); len(names) == 0 {
		t.Error("serve lists no tools after the dumps")
	}
	cs.Close()
	s.stop(t)
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Errorf("CPU profile: %v, %v", fi, err)
	}
	if fi, err := os.Stat(mem); err != nil || fi.Size() == 0 {
		t.Errorf("allocation profile: %v, %v", fi, err)
	}

	plain := t.TempDir()
	notesConfig(t, plain, "")
	s = startServe(t, plain, nil, "--config", "gateway.json")
	s.stop(t)
	if m, _ := filepath.Glob(filepath.Join(plain, "*.pprof")); len(m) != 0 {
		t.Errorf("profiles written by default: %v", m)
	}
}
