package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", name, diff)
	}
}

// inspect shows each tool as eino, genkit and langchaingo (plain and
// strict) see it, after the gateway's policy: golden files for
// server-everything (a table) and testserver (every definition, as JSON).
func TestInspectGolden(t *testing.T) {
	dir := t.TempDir()
	gatewayConfig(t, dir, "memory:")
	ev, path := everything(t)
	writeFile(t, dir, "everything.json", fmt.Sprintf(`{"mcpServers": {"everything": {"command": %q, "args": ["stdio"], "env": {"PATH": %q}}},
  "agentadapter": {"store": "memory:", "servers": {"everything": {"trust": "trusted"}}}}`, ev, path))
	r := runBin(t, dir, nil, "--config", "everything.json", "inspect")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	golden(t, "inspect_everything.txt", r.stdout)

	r = runBin(t, dir, nil, "--config", "gateway.json", "inspect", "notes", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	golden(t, "inspect_notes.json", r.stdout)
	if r.stderr != "" {
		t.Errorf("inspect wrote to stderr when piped: %q", r.stderr)
	}

	r = runBin(t, dir, nil, "--config", "gateway.json", "inspect", "--endpoint", "readonly")
	if r.code != 0 || strings.Contains(r.stdout, "add_note") || !strings.Contains(r.stdout, "notes_list") {
		t.Errorf("inspect --endpoint readonly: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, dir, nil, "--config", "gateway.json", "inspect", "nosuch")
	if r.code != exitUsage || !strings.Contains(r.stderr, `no server named "nosuch"`) {
		t.Errorf("inspect nosuch: exit %d %q", r.code, r.stderr)
	}
}
