package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/outbound"
)

// Fate says what became of a call that failed without an answer.
type Fate int

// The fates of a failed call.
const (
	Answered Fate = iota // the server answered with an error
	NotSent              // it never reached the server: safe to send again
	Lost                 // the connection broke while it was out: it may have run
	Refused              // the transport refused it (an HTTP 429 or 5xx, say)
)

// CodeRejected is the code of the go-sdk's "rejected by transport" error,
// which it wraps around any HTTP failure, sent or not: its cause decides.
const CodeRejected = -32005

// Classify tells by cause (error types, and what the HTTP layer saw of
// the call, w), never by message text, what became of a failed call.
func Classify(err error, w *Watch) Fate {
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != CodeRejected {
		return Answered
	}
	var op *net.OpError
	if errors.Is(err, mcp.ErrSessionMissing) || errors.Is(err, syscall.EPIPE) || errors.Is(err, outbound.ErrPeerClosed) ||
		errors.As(err, &op) && op.Op == "dial" {
		// An unknown session runs nothing; a refused dial, a dead pipe or
		// a connection the server had closed before the write sent nothing.
		return NotSent
	}
	if w.Broken() != nil || IsConnectionError(err) {
		return Lost
	}
	if we != nil {
		return Refused
	}
	return Lost
}

// IsConnectionError reports, by the error's types, whether err means the
// session is gone, as opposed to an error the server answered with.
func IsConnectionError(err error) bool {
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != CodeRejected {
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ne net.Error
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, mcp.ErrSessionMissing) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.As(err, &ne)
}
