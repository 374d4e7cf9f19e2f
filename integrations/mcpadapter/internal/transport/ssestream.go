package transport

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// A legacy SSE client's stream is the GET its Connect opens, on Connect's
// context; the manager connects under its connect timeout, which ended
// the stream (and so the session) as soon as Connect returned: every call
// to an "sse" server failed as a lost connection. SSEStream gives
// the GET a context of its own. The connect timeout still bounds it until
// the stream's first bytes (the endpoint event); from then on it lasts
// until the client closes the stream.
type SSEStream struct{ Base http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (t *SSEStream) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet {
		return t.Base.RoundTrip(r) // a message POST: bounded by its caller
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	stop := context.AfterFunc(r.Context(), cancel)
	resp, err := t.Base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		stop()
		cancel()
		return nil, err
	}
	resp.Body = &streamBody{ReadCloser: resp.Body, stop: stop, cancel: cancel}
	return resp, nil
}

// streamBody releases the stream from the connect deadline at its first
// bytes and cancels its request when closed.
type streamBody struct {
	io.ReadCloser
	once   sync.Once
	stop   func() bool
	cancel context.CancelFunc
}

func (b *streamBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.once.Do(func() { b.stop() })
	}
	return n, err
}

func (b *streamBody) Close() error {
	err := b.ReadCloser.Close()
	b.stop()
	b.cancel()
	return err
}
