package taskclient

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Over streamable HTTP the tasks are carried by the HTTP client rather
// than the connection (go-sdk's streamable client connection cannot be
// wrapped, see wire.go): the round tripper rewrites each POSTed message
// and the answer to it, a JSON body or the event of a stream that
// carries the answer, as the wrapped connection does.

// maxTaskRewrite bounds the request bodies the round tripper reads to
// rewrite; a larger one (never a tools/call of ours) passes as it is.
const maxTaskRewrite = 4 << 20

// WrapHTTP returns base, or http.DefaultTransport for nil, wrapped to do
// over streamable HTTP the rewriting Wrap does on a connection; it marks
// the table's session wrapped.
func (t *Table) WrapHTTP(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	t.SetWrapped(true)
	return &roundTripper{base: base, tab: t}
}

type roundTripper struct {
	base http.RoundTripper
	tab  *Table
}

func (rt *roundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost || r.Body == nil || r.ContentLength > maxTaskRewrite {
		return rt.base.RoundTrip(r)
	}
	// A body go-sdk made (its length known, GetBody set) is read through
	// GetBody, leaving r.Body unread: a message passing unchanged (every
	// tools/call without the tasks extension) goes on in r itself, with
	// no copy of the request or of its body.
	body, fresh := peekBody(r)
	if !fresh {
		var err error
		body, err = io.ReadAll(io.LimitReader(r.Body, maxTaskRewrite+1))
		r.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	var req *jsonrpc.Request
	what := ""
	changed := false
	if len(body) <= maxTaskRewrite && mayRewrite(body, rt.tab.Extension()) {
		if msg, err := jsonrpc.DecodeMessage(body); err == nil {
			out, w := rt.tab.Outgoing(msg)
			if out != msg {
				if b, err := jsonrpc.EncodeMessage(out); err == nil {
					body, changed = b, true
				}
			}
			req, _ = out.(*jsonrpc.Request)
			what = w
		}
	}
	r2 := r
	if !fresh || changed {
		if fresh {
			r.Body.Close() // replaced by the rewritten body
		}
		r2 = r.Clone(r.Context())
		r2.Body = io.NopCloser(bytes.NewReader(body))
		r2.ContentLength = int64(len(body))
		r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := rt.base.RoundTrip(r2)
	if err != nil || what == "" || req == nil {
		return resp, err
	}
	rewrite := func(data []byte) []byte { return rt.answer(data, req.ID, what) }
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		data = rewrite(data)
		resp.Body = io.NopCloser(bytes.NewReader(data))
		resp.ContentLength = int64(len(data))
		resp.Header.Del("Content-Length")
	case "text/event-stream":
		resp.Body = &sseRewriter{br: bufio.NewReader(resp.Body), c: resp.Body, rewrite: rewrite}
	}
	return resp, nil
}

// peekBody reads r's body through r.GetBody when its length is known,
// leaving r.Body unread; fresh is false when it cannot (the caller then
// reads r.Body).
func peekBody(r *http.Request) (body []byte, fresh bool) {
	if r.GetBody == nil || r.ContentLength <= 0 {
		return nil, false
	}
	rc, err := r.GetBody()
	if err != nil {
		return nil, false
	}
	defer rc.Close()
	body = make([]byte, r.ContentLength)
	if _, err := io.ReadFull(rc, body); err != nil {
		return nil, false
	}
	return body, true
}

// answer rewrites data if it is the answer to the request id.
func (rt *roundTripper) answer(data []byte, id jsonrpc.ID, what string) []byte {
	if !bytes.Contains(data, []byte(`"id"`)) {
		return data
	}
	msg, err := jsonrpc.DecodeMessage(data)
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok || resp.ID.Raw() != id.Raw() {
		return data
	}
	out := rt.tab.Incoming(resp, what)
	if out == jsonrpc.Message(resp) {
		return data
	}
	b, err := jsonrpc.EncodeMessage(out)
	if err != nil {
		return data
	}
	return b
}

// sseRewriter passes an event stream through, rewriting its single-line
// data fields.
type sseRewriter struct {
	br      *bufio.Reader
	c       io.Closer
	rewrite func([]byte) []byte
	out     []byte
	err     error
}

func (s *sseRewriter) Read(p []byte) (int, error) {
	for len(s.out) == 0 && s.err == nil {
		line, err := s.br.ReadBytes('\n')
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok && err == nil {
			payload := bytes.TrimSpace(rest)
			if nb := s.rewrite(payload); !bytes.Equal(nb, payload) {
				line = append(append([]byte("data: "), nb...), '\n')
			}
		}
		s.out, s.err = line, err
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	if len(s.out) == 0 && s.err != nil {
		return n, s.err
	}
	return n, nil
}

func (s *sseRewriter) Close() error { return s.c.Close() }

// mayRewrite tells cheaply, without decoding, whether outgoing may change
// a message or watch its answer (go-sdk writes compact JSON).
func mayRewrite(body []byte, ext bool) bool {
	for _, m := range []string{`"method":"initialize"`, `"method":"server/discover"`, `"method":"tools/list"`, MetaTTL} {
		if bytes.Contains(body, []byte(m)) {
			return true
		}
	}
	return ext && (bytes.Contains(body, []byte(`"method":"tools/call"`)) || bytes.Contains(body, []byte(`"method":"tasks/`)))
}
