package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"sync"
	"sync/atomic"
)

// EnvelopeSlack is what a result message may add on the wire to the
// MaxResultBytes of its content: the JSON-RPC envelope, _meta, SSE framing.
const EnvelopeSlack = 64 << 10

// ErrTooLarge ends the reading of a response past the size limit.
var ErrTooLarge = errors.New("mcpadapter: response larger than the result size limit")

// Watch records what the HTTP layer saw of one call: whether a response
// grew past the limit, and whether the connection broke. The call's context
// carries it to the round tripper ([WithWatch]).
type Watch struct {
	// TooLarge is set when a response grew past the limit.
	TooLarge atomic.Bool
	mu       sync.Mutex
	broken   error // a transport failure while sending or reading
}

func (w *Watch) setBroken(err error) {
	w.mu.Lock()
	if w.broken == nil {
		w.broken = err
	}
	w.mu.Unlock()
}

// Broken returns the transport failure seen while sending or reading, if
// any.
func (w *Watch) Broken() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.broken
}

type watchKey struct{}

// WithWatch returns ctx carrying w to the round trippers of its requests.
func WithWatch(ctx context.Context, w *Watch) context.Context {
	return context.WithValue(ctx, watchKey{}, w)
}

func watchFrom(ctx context.Context) *Watch {
	w, _ := ctx.Value(watchKey{}).(*Watch)
	return w
}

// Bound enforces the result size limit while responses are read, before
// the go-sdk decodes them: a JSON response as a whole, an event stream
// event by event. Limit <= 0 means no limit.
type Bound struct {
	Base  http.RoundTripper
	Limit int64
}

// RoundTrip implements http.RoundTripper.
func (t *Bound) RoundTrip(r *http.Request) (*http.Response, error) {
	w := watchFrom(r.Context())
	resp, err := t.Base.RoundTrip(r)
	if err != nil {
		if w != nil {
			w.setBroken(err)
		}
		return nil, err
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case ct == "text/event-stream":
		resp.Body = &boundBody{rc: resp.Body, w: w, limit: t.Limit, events: true}
	case t.Limit > 0 && resp.ContentLength > t.Limit:
		resp.Body.Close()
		if w != nil {
			w.TooLarge.Store(true)
		}
		return nil, ErrTooLarge
	default:
		resp.Body = &boundBody{rc: resp.Body, w: w, limit: t.Limit}
	}
	return resp, nil
}

// boundBody counts the bytes of a body (of the current event, when events
// is set: an event ends with an empty line) and fails past limit.
type boundBody struct {
	rc     io.ReadCloser
	w      *Watch
	limit  int64
	events bool
	n      int64 // bytes of the body, or of the current event
	line   int   // bytes of the current line, without its line ending
	cr     bool  // the last byte counted was '\r'
}

func (b *boundBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if b.events {
		b.count(p[:n])
	} else {
		b.n += int64(n)
	}
	if b.limit > 0 && b.n > b.limit {
		if b.w != nil {
			b.w.TooLarge.Store(true)
		}
		return 0, ErrTooLarge
	}
	if err != nil && err != io.EOF && b.w != nil {
		b.w.setBroken(err)
	}
	return n, err
}

// count advances the event counter over p, restarting it at every empty
// line (LF, CRLF or CR line endings).
func (b *boundBody) count(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			b.n += int64(len(p))
			b.line += len(p)
			return
		}
		b.n += int64(i + 1)
		b.line += i
		if crlf := i == 0 && b.cr && p[0] == '\n'; !crlf && b.line == 0 {
			b.n = 0 // an empty line ends the event
		}
		b.cr = p[i] == '\r'
		b.line = 0
		p = p[i+1:]
	}
}

func (b *boundBody) Close() error { return b.rc.Close() }
