package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad: whatever the file holds, Load returns a config or one *Error
// of one line; it never panics.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		`{"mcpServers": {"a": {"command": "x", "args": ["${A:-b}"], "env": {"K": "${env:A}"}}}}`,
		`{"servers": {"a": {"type": "http", "url": "http://h/mcp", "headers": {"X": "${input:i}"}}}, "inputs": [{"id": "i", "default": "d"}]}`,
		`{"agentadapter": {"policy": {"approval": {"rules": [{"tool": "[", "approve": "none"}]}}, "virtualServers": {"v": {"tools": ["*"]}}}}`,
		`{"mcpServers": {"a": {"command": "x"}, "a": {}}}`,
		`// c
{"mcpServers": {"a": {"command": "$${x}", "timeout": 5,},},}`,
		`[1, 2]`, `{"a": "\u0000"}`, `{"mcpServers": {"a": {"command": "${"}}}`,
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data string) {
		p := filepath.Join(dir, "c.json")
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(p, &Options{LookupEnv: func(k string) (string, bool) { return "v", k == "A" }})
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("not a *config.Error: %T %v", err, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error: %q", err.Error())
			}
			return
		}
		if _, err := cfg.Masked(); err != nil {
			t.Fatalf("Masked: %v", err)
		}
	})
}
