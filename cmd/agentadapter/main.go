// Command agentadapter is a governed MCP gateway. It reads the MCP server
// list you already have (the "mcpServers" of desktop clients, Cursor and
// Claude Code, or VS Code's "servers" and "inputs"), starts or dials those
// servers, puts policy on every call (approval, cache, limits, timeouts, an
// audit ledger, definition pins) and serves the result to any MCP client
// over streamable HTTP or stdio.
//
//	agentadapter serve --config ~/.cursor/mcp.json
//	agentadapter call --config mcp.json echo '{"message":"hi"}'
//	agentadapter approvals list
//
// Exit codes:
//
//	0  success
//	1  failure: a server, the store or the network
//	2  bad usage or configuration (one line says what and where)
//	3  the tool call failed (its payload is printed)
//	4  the tool call awaits approval (its ticket is printed)
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
	"github.com/agentadapter/agentadapter/termtext"
)

// Exit codes.
const (
	exitOK        = 0
	exitFailure   = 1
	exitUsage     = 2
	exitToolError = 3
	exitPending   = 4
)

// version is set at build time (-ldflags "-X main.version=...").
var version = "v0.0.0-dev"

// exitError carries an exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	endDiagnostics := startDiagnostics(os.Stderr)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	endDiagnostics()
	stop()
	os.Exit(code)
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(&env{stdin: stdin, stdout: stdout, stderr: stderr})
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitFailure
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	} else if strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "unknown flag") {
		code = exitUsage
	}
	if msg := err.Error(); msg != "" {
		// An error can quote an upstream's or a model's text, or a
		// configured URL with its credentials.
		fmt.Fprintln(stderr, "agentadapter:", termtext.Block(config.MaskText(msg)))
	}
	return code
}
