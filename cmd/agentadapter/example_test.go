package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/internal/testpeers"
)

// The ready config under examples/gateway works offline, as the README says.
func TestExampleGateway(t *testing.T) {
	testpeers.Bin(t)
	cfg := filepath.Join(testpeers.Root(t), "examples", "gateway", "agentadapter.json")
	dir := t.TempDir()
	store := "sqlite:" + filepath.Join(dir, "state.db") // not the example's own
	if r := runBin(t, dir, nil, "config", "check", cfg); r.code != 0 {
		t.Fatalf("config check: exit %d: %s", r.code, r.stderr)
	}
	r := runBin(t, dir, nil, "-c", cfg, "--store", store, "call", "everything_get-sum", `{"a": 2, "b": 40}`)
	if r.code != 0 || !strings.Contains(r.stdout, "42") {
		t.Errorf("get-sum: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, dir, nil, "-c", cfg, "--store", store, "call", "everything_echo", `{"message": "rm *"}`)
	if r.code != exitPending {
		t.Errorf("echo(rm *) should be held by the argument rule: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, dir, nil, "-c", cfg, "--store", store, "inspect", "--endpoint", "readonly")
	if r.code != 0 || strings.Count(r.stdout, "\n") != 4 {
		t.Errorf("inspect --endpoint readonly: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
