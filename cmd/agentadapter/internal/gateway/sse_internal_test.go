package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
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

// A client posting to a session whose queue stays full (the server is
// not reading: its client stopped reading the stream) is refused with 503
// after a bounded wait, not held until the write timeout.
func TestSSEQueueFull(t *testing.T) {
	c := &sseConn{id: "x", incoming: make(chan jsonrpc.Message, 1), done: make(chan struct{})}
	c.incoming <- &jsonrpc.Response{}
	h := &sseHub{sessions: map[string]*sseSession{"x": {conn: c}}, perID: map[string]int{}}
	req := httptest.NewRequest("POST", "/message?sessionid=x", strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	start := time.Now()
	h.message(rec, req, "")
	if rec.Code != http.StatusServiceUnavailable || time.Since(start) > sseQueueWait+5*time.Second {
		t.Errorf("a full queue: %d after %v, want 503 after %v", rec.Code, time.Since(start), sseQueueWait)
	}
}
