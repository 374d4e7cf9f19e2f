package outbound

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// DrainGrace is how long a response body may still be read once its
// request's context has ended: the go-sdk hands a call its answer from an
// event stream, the call returns and ends its context, and only then reads
// the rest of the stream (the end of the chunked body). Ended at once, the
// context would close the connection under that read; ended DrainGrace
// later, the read has found the end and the connection is back in the pool.
const DrainGrace = 250 * time.Millisecond

// ErrPeerClosed is the error of a write on a connection the server had
// closed before it (on Linux: the kernel holds the server's FIN or RST):
// nothing of it was written, so net/http sends the request again on
// another connection (it does so only for a request nothing of which was
// written), and the request reached no handler on this one.
//
// Without this check a kept connection the server has just closed (it
// restarted, or its idle timeout ended the connection) could be picked
// for a call before net/http's read loop has seen the FIN: the request is
// written into the dead socket, the read fails with EOF, and a call that
// never reached the server looks as if it may have run.
var ErrPeerClosed = errors.New("the server had closed the connection before the request was written")

// NewTransport returns the transport an upstream's requests share when no
// HTTP client of the caller's gives one: net/http's defaults, but keeping
// up to perHost idle connections per host (net/http keeps 2), so that
// perHost calls in flight at once reuse theirs, and checking a connection
// before each write (see ErrPeerClosed).
func NewTransport(perHost int) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = perHost
	t.MaxIdleConns = max(t.MaxIdleConns, 4*perHost)
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return checkConn(c), nil
	}
	return t
}

// drainTransport lets a response outlive its request's context by
// DrainGrace, so that its connection is reused (see DrainGrace). Before the
// response headers arrive, the context's end cancels the request at once.
type drainTransport struct{ base http.RoundTripper }

func (t *drainTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	outer := r.Context()
	if outer.Done() == nil {
		return t.base.RoundTrip(r)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(outer))
	d := &drainBody{cancel: cancel}
	d.stop = context.AfterFunc(outer, d.ended)
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		d.stop()
		cancel()
		return nil, err
	}
	d.mu.Lock()
	d.answered = true
	d.mu.Unlock()
	d.ReadCloser = resp.Body
	resp.Body = d
	return resp, nil
}

// drainBody is a response body whose request's context ends when it is
// closed, or DrainGrace after the caller's context ended.
type drainBody struct {
	io.ReadCloser
	cancel context.CancelFunc
	stop   func() bool

	mu       sync.Mutex
	answered bool        // the response headers have arrived
	closed   bool        // Close was called
	timer    *time.Timer // cancels DrainGrace after the caller's context ended
}

// ended runs when the caller's context ends.
func (b *drainBody) ended() {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed:
	case !b.answered:
		b.cancel()
	default:
		b.timer = time.AfterFunc(DrainGrace, b.cancel)
	}
}

func (b *drainBody) Close() error {
	err := b.ReadCloser.Close()
	b.mu.Lock()
	b.closed = true
	if b.timer != nil {
		b.timer.Stop()
	}
	b.mu.Unlock()
	b.stop()
	b.cancel()
	return err
}
