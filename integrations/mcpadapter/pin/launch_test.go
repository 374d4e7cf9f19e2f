package pin_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
)

func TestLaunch(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "server")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho v1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	base, err := pin.NewLaunch(prog, []string{"stdio"}, map[string]string{"TOKEN": "s3cret", "A": "1"}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if base.Path != prog || !strings.HasPrefix(base.FileHash, "sha256:") || len(base.Env) != 2 || base.Env[0].Name != "A" {
		t.Errorf("launch = %+v", base)
	}
	if b, _ := jsonMarshal(base); strings.Contains(string(b), "s3cret") {
		t.Errorf("the launch holds an environment value: %s", b)
	}
	same, err := pin.NewLaunch(prog, []string{"stdio"}, map[string]string{"A": "1", "TOKEN": "s3cret"}, dir)
	if err != nil || same.Hash() != base.Hash() {
		t.Fatalf("the same launch hashes differently: %v", err)
	}
	// Every part of a launch is in its hash.
	for name, change := range map[string]func() (*pin.Launch, error){
		"args": func() (*pin.Launch, error) {
			return pin.NewLaunch(prog, []string{"stdio", "--x"}, nil, dir)
		},
		"env value": func() (*pin.Launch, error) {
			return pin.NewLaunch(prog, []string{"stdio"}, map[string]string{"TOKEN": "other", "A": "1"}, dir)
		},
		"env name": func() (*pin.Launch, error) {
			return pin.NewLaunch(prog, []string{"stdio"}, map[string]string{"TOKEN": "s3cret", "B": "1"}, dir)
		},
		"cwd": func() (*pin.Launch, error) {
			return pin.NewLaunch(prog, []string{"stdio"}, map[string]string{"TOKEN": "s3cret", "A": "1"}, "/")
		},
		"file content": func() (*pin.Launch, error) {
			if err := os.WriteFile(prog, []byte("#!/bin/sh\necho v2\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			return pin.NewLaunch(prog, []string{"stdio"}, map[string]string{"TOKEN": "s3cret", "A": "1"}, dir)
		},
	} {
		l, err := change()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if l.Hash() == base.Hash() {
			t.Errorf("changing the %s kept the launch hash", name)
		}
	}
	if _, err := pin.NewLaunch("no-such-command-agentadapter", nil, nil, ""); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing command: %v", err)
	}
	if _, err := pin.NewLaunch(dir, nil, nil, ""); err == nil {
		t.Error("a directory as the command was hashed")
	}
}

func TestLaunchShellWrapper(t *testing.T) {
	for _, tc := range []struct {
		command string
		args    []string
		want    string
	}{
		{"sh", []string{"-c", "touch marker; exec server"}, "sh -c"},
		{"/bin/bash", []string{"-lc", "x"}, "bash -lc"},
		{"npx", []string{"-c", "x"}, "npx -c"},
		{"cmd.exe", []string{"/C", "x"}, "cmd /C"},
		{"powershell", []string{"-NoProfile", "-Command", "x"}, "powershell -Command"},
		{"pwsh", []string{"-EncodedCommand", "eA=="}, "pwsh -EncodedCommand"},
		{"python3", []string{"-c", "import os"}, "python3 -c"},
		{"node", []string{"-e", "x"}, "node -e"},
		{"env", []string{"A=1", "sh", "-c", "x"}, "sh -c"},
		{"npx", []string{"-y", "@modelcontextprotocol/server-everything"}, ""},
		{"node", []string{"server.js"}, ""},
		{"bash", []string{"--norc", "script.sh"}, ""},
	} {
		l := &pin.Launch{Command: tc.command, Args: tc.args}
		if got := l.ShellWrapper(); got != tc.want {
			t.Errorf("ShellWrapper(%s %q) = %q, want %q", tc.command, tc.args, got, tc.want)
		}
	}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
