package gateway

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// stuckWriter is the response of a client that stopped reading: a write
// blocks until released.
type stuckWriter struct {
	http.ResponseWriter
	writing chan struct{}
	release chan struct{}
}

func (w *stuckWriter) Header() http.Header { return http.Header{} }
func (w *stuckWriter) Write(b []byte) (int, error) {
	close(w.writing)
	<-w.release
	return len(b), nil
}

// A session whose client stopped reading its stream closes at once: a
// reload ending it (or the session's own end) does not wait for the
// blocked write.
func TestSSECloseWhileWriteBlocked(t *testing.T) {
	w := &stuckWriter{writing: make(chan struct{}), release: make(chan struct{})}
	defer close(w.release)
	c := &sseConn{id: "x", w: w, incoming: make(chan jsonrpc.Message, 1), done: make(chan struct{})}
	go func() { _ = c.Write(context.Background(), &jsonrpc.Response{}) }()
	<-w.writing
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for a blocked write")
	}
	if err := c.Write(context.Background(), &jsonrpc.Response{}); err == nil {
		t.Error("a write after Close succeeded")
	}
}
