//go:build linux

package outbound

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// heldConn holds net/http's read loop once a read returned data until the
// next write: the read loop cannot see the server's FIN on an idle kept
// connection, as when a call picks that connection within the moment
// between the server's close and the read loop's wake-up.
type heldConn struct {
	net.Conn
	mu    sync.Mutex
	held  bool          // a read returned data and no write followed
	wrote chan struct{} // closed by the next write or Close

	parkOnce sync.Once
	parked   chan struct{} // closed when a read is first held: the connection is idle in the pool
}

func newHeldConn(c net.Conn) *heldConn {
	return &heldConn{Conn: c, wrote: make(chan struct{}), parked: make(chan struct{})}
}

func (c *heldConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	held, wrote := c.held, c.wrote
	c.mu.Unlock()
	if held {
		c.parkOnce.Do(func() { close(c.parked) })
		<-wrote
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		c.held = true
		c.mu.Unlock()
	}
	return n, err
}

// unhold ends the hold; the caller closes the channel returned, if any,
// to let the held reads go on.
func (c *heldConn) unhold() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.held {
		return nil
	}
	ch := c.wrote
	c.held = false
	c.wrote = make(chan struct{})
	return ch
}

// Write lets the reads held before it go on once it is done; a read that
// returns data during the write (its answer) holds the next one again.
func (c *heldConn) Write(p []byte) (int, error) {
	ch := c.unhold()
	n, err := c.Conn.Write(p)
	if ch != nil {
		close(ch)
	}
	return n, err
}

func (c *heldConn) Close() error {
	err := c.Conn.Close()
	if ch := c.unhold(); ch != nil {
		close(ch)
	}
	return err
}

// waitPeerClosed waits until the kernel holds the server's FIN for c.
func waitPeerClosed(t *testing.T, c *checkedConn) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !c.peerClosed(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server's close never reached the client")
		}
	}
}

// TestPostAfterServerClosedKeptConn: the server closes a kept connection
// (it restarted, or its idle timeout ended it) and a POST picks that
// connection before net/http has seen the FIN. The write is refused with
// nothing written, net/http sends the POST again on a new connection, and
// the handler runs once for it. Unchecked, the POST went into the dead
// socket and failed with EOF, as if it might have run.
func TestPostAfterServerClosedKeptConn(t *testing.T) {
	var runs atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			t.Error(err)
		}
		runs.Add(1)
		_, _ = io.WriteString(w, "ok")
	}))
	defer ts.Close()

	tr := NewTransport(4)
	defer tr.CloseIdleConnections()
	var mu sync.Mutex
	var conns []*heldConn
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		h := newHeldConn(c)
		mu.Lock()
		conns = append(conns, h)
		mu.Unlock()
		return h, nil
	}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	post := func() error {
		resp, err := client.Post(ts.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && string(b) != "ok" {
			err = errors.New("answer " + string(b))
		}
		return err
	}
	if err := post(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	first := conns[0]
	mu.Unlock()
	select { // net/http's read loop puts the connection in the pool, then reads
	case <-first.parked:
	case <-time.After(5 * time.Second):
		t.Fatal("the connection never went back to the pool")
	}
	ts.CloseClientConnections() // the kept connection is closed by the server
	checked, ok := first.Conn.(*checkedConn)
	if !ok {
		t.Fatalf("the transport's connection is a %T, not checked", first.Conn)
	}
	waitPeerClosed(t, checked)

	if err := post(); err != nil {
		t.Fatalf("POST on a kept connection the server had closed = %v, want it sent on a new one", err)
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("handler ran %d times, want 2", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(conns) != 2 {
		t.Errorf("%d connections dialled, want 2 (the kept one, then a new one)", len(conns))
	}
}

// TestCheckedConnRefusesAfterPeerClose: a write on a live connection goes
// out; once the peer's FIN is in, a write is refused with ErrPeerClosed and
// nothing of it reaches the peer.
func TestCheckedConnRefusesAfterPeerClose(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	raw, err := NewTransport(1).DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	c, ok := raw.(*checkedConn)
	if !ok {
		t.Fatalf("dialled a %T, not a checked connection", raw)
	}
	srv := <-accepted
	if srv == nil {
		t.Fatal("accept failed")
	}
	if _, err := c.Write([]byte("a")); err != nil {
		t.Fatalf("write on a live connection: %v", err)
	}
	buf := make([]byte, 8)
	if n, err := srv.Read(buf); n != 1 || err != nil {
		t.Fatalf("server read %d, %v", n, err)
	}
	srv.(*net.TCPConn).CloseWrite() // FIN, still reading: what reaches it shows
	waitPeerClosed(t, c)
	if n, err := c.Write([]byte("b")); n != 0 || !errors.Is(err, ErrPeerClosed) {
		t.Fatalf("write after the peer's FIN = %d, %v; want 0, ErrPeerClosed", n, err)
	}
	c.Close()
	_ = srv.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := srv.Read(buf); n != 0 || err != io.EOF {
		t.Errorf("server read %d (%q), %v after the refused write; want 0, EOF", n, buf[:n], err)
	}
	srv.Close()
}
