package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio runs a command and speaks MCP over its stdin and stdout,
// like mcp.CommandTransport, but bounds every frame the child writes by the
// result size limit while it is read.
type Stdio struct {
	Cmd *exec.Cmd
	// Terminate is how long the child has to exit at each step of its
	// shutdown (stdin closed, SIGTERM, SIGKILL).
	Terminate time.Duration
	Limit     int          // frame bytes; 0 means no limit
	TooLarge  *atomic.Bool // set when a frame passes Limit
}

// Connect implements mcp.Transport: it starts the command.
func (t *Stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := t.Cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.Cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.Cmd.Start(); err != nil {
		return nil, err
	}
	maxLine := -1 // ours cuts first
	if t.Limit > 0 {
		maxLine = t.Limit + 4096
	}
	return (&mcp.IOTransport{
		// The connection closes by closing stdin, not stdout.
		Reader:        io.NopCloser(&frameBound{r: stdout, limit: t.Limit, tooLarge: t.TooLarge}),
		Writer:        &childStdin{WriteCloser: stdin, cmd: t.Cmd, terminate: t.Terminate},
		MaxLineLength: maxLine,
	}).Connect(ctx)
}

// frameBound fails a newline-delimited stream once a line passes limit.
type frameBound struct {
	r        io.Reader
	limit    int
	line     int
	tooLarge *atomic.Bool
}

func (f *frameBound) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if f.limit <= 0 {
		return n, err
	}
	for q := p[:n]; ; {
		i := bytes.IndexByte(q, '\n')
		if i < 0 {
			f.line += len(q)
		} else {
			f.line += i
		}
		if f.line > f.limit {
			f.tooLarge.Store(true)
			return 0, ErrTooLarge
		}
		if i < 0 {
			return n, err
		}
		f.line, q = 0, q[i+1:]
	}
}

// childStdin closes the child's stdin, then waits for it to exit, sending
// SIGTERM and then SIGKILL if it does not, as the MCP stdio transport
// prescribes.
type childStdin struct {
	io.WriteCloser
	cmd       *exec.Cmd
	terminate time.Duration
}

func (c *childStdin) Close() error {
	if err := c.WriteCloser.Close(); err != nil {
		return fmt.Errorf("closing stdin: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	wait := func() (error, bool) {
		t := time.NewTimer(c.terminate)
		defer t.Stop()
		select {
		case err := <-done:
			return err, true
		case <-t.C:
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if c.cmd.Process.Signal(syscall.SIGTERM) == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := c.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return errors.New("unresponsive MCP server process")
}
