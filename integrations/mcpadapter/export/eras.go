package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// protocolStateless is the first protocol version of the stateless era:
// no initialize, the version and the client's capabilities in each
// request's _meta.
const protocolStateless = "2026-07-28"

// protocolVersionHeader is the header a client names its protocol version
// in (go-sdk's spelling; HTTP headers are case-insensitive).
const protocolVersionHeader = "Mcp-Protocol-Version"

// eras serves each request with the go-sdk handler of its era: stateless
// for 2026-07-28 and later, stateful (sessions) before it. go-sdk serves
// 2026-07-28 over HTTP only statelessly and answers it with -32022 on a
// stateful handler, so one handler cannot serve both.
type eras struct {
	stateless, stateful http.Handler
	maxBody             int64 // ≤ 0: no limit
	listens             *listenCaps
}

func (h *eras) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	modern, err := h.modern(w, r)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "failed to read body", http.StatusBadRequest)
		return
	}
	if modern {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Method") == "subscriptions/listen" {
			id := identityOf(r)
			if code := h.listens.take(id); code != 0 {
				w.Header().Set("Retry-After", strconv.Itoa(sessionRetryAfter))
				http.Error(w, "too many open subscriptions/listen streams", code)
				return
			}
			defer h.listens.give(id)
		}
		h.stateless.ServeHTTP(w, r)
		return
	}
	h.stateful.ServeHTTP(w, r)
}

// modern reports whether r belongs to the stateless era, classified as
// go-sdk classifies it: by the Mcp-Protocol-Version header, or, when the
// header names an older version or none, by a message of the body
// carrying _meta["io.modelcontextprotocol/protocolVersion"] (go-sdk then
// answers a missing or different header with -32020, header mismatch;
// sent to the stateful handler, the request would get -32022 instead). An
// Mcp-Session-Id does not make a request stateful: on 2026-07-28 there are
// no sessions, and the stateless handler ignores it.
//
// The body is read (up to h.maxBody) only for POST requests not already
// classified by their header, and put back for the handler.
func (h *eras) modern(w http.ResponseWriter, r *http.Request) (bool, error) {
	if v := r.Header.Get(protocolVersionHeader); v >= protocolStateless {
		return true, nil
	}
	if r.Method != http.MethodPost || r.Body == nil {
		return false, nil
	}
	body := r.Body
	if h.maxBody > 0 {
		body = http.MaxBytesReader(w, body, h.maxBody)
	}
	data, err := io.ReadAll(body)
	body.Close()
	if err != nil {
		return false, err
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	return carriesVersionMeta(data), nil
}

// carriesVersionMeta reports whether a JSON-RPC message or batch has a
// message whose params._meta names a protocol version (a non-empty
// string, as go-sdk reads it). Keys match exactly, as in go-sdk's decoder.
func carriesVersionMeta(body []byte) bool {
	// Without "_meta" spelled out or an escape that could spell it, no
	// message has one: the common legacy request is not decoded twice.
	if !bytes.Contains(body, []byte("_meta")) && !bytes.Contains(body, []byte(`\`)) {
		return false
	}
	body = bytes.TrimLeft(body, " \t\r\n")
	var msgs []json.RawMessage
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &msgs) != nil {
			return false
		}
	} else {
		msgs = []json.RawMessage{body}
	}
	for _, m := range msgs {
		var msg map[string]json.RawMessage
		if json.Unmarshal(m, &msg) != nil {
			continue
		}
		var params map[string]json.RawMessage
		if json.Unmarshal(msg["params"], &params) != nil {
			continue
		}
		var meta map[string]json.RawMessage
		if json.Unmarshal(params["_meta"], &meta) != nil {
			continue
		}
		var v string
		if json.Unmarshal(meta[mcp.MetaKeyProtocolVersion], &v) == nil && v != "" {
			return true
		}
	}
	return false
}

// listenCaps bounds the subscriptions/listen streams open on one handler:
// the standing stream of a 2026-07-28 client, which holds a request (and
// go-sdk's temporary session) open until the client goes, as a session's
// event stream does before 2026-07-28. They count under the session caps'
// numbers (of the handler's limiter, or of HTTPOptions), apart from the
// sessions: past the total, 503; past one identity's share, 429; both with
// Retry-After. go-sdk accepts a listen only when its Mcp-Method header
// names it, so the header is what is counted.
type listenCaps struct {
	caps  func() (total, perIdentity int) // 0: no cap
	mu    sync.Mutex
	open  map[string]int
	count int
}

func (l *listenCaps) take(id string) int {
	total, per := l.caps()
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case total > 0 && l.count >= total:
		return http.StatusServiceUnavailable
	case per > 0 && l.open[id] >= per:
		return http.StatusTooManyRequests
	}
	l.count++
	l.open[id]++
	return 0
}

func (l *listenCaps) give(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count--
	if l.open[id]--; l.open[id] <= 0 {
		delete(l.open, id)
	}
}
