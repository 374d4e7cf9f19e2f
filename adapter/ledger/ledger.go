package ledger

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"iter"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Record is one ledger entry: every call through an adapter.Executor,
// successful or not, is recorded exactly once.
type Record struct {
	Time        time.Time `json:"time"`
	CallID      string    `json:"call_id"`
	RunID       string    `json:"run_id,omitempty"`
	Tool        string    `json:"tool"`
	Source      string    `json:"source"`
	Integration string    `json:"integration,omitempty"`
	Subject     string    `json:"subject,omitempty"`
	// Credential is what the call reached its MCP server with: "" for a
	// local tool or no OAuth, "shared" for the server's one identity,
	// "caller" for Subject's own token (its sign-in), "exchanged" for one
	// exchanged for Subject's inbound token (adapter.Source.Credential).
	Credential string          `json:"credential,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"` // redacted
	// Outcome is "ok" or the error kind.
	Outcome string `json:"outcome"`
	Message string `json:"message,omitempty"`
	// Approval is "", or the approval outcome: approved, denied, pending.
	Approval string `json:"approval,omitempty"`
	Approver string `json:"approver,omitempty"`
	// Requester is the subject who asked for the approval ticket the call
	// used; it differs from Subject only under an approval scope wider
	// than the subject.
	Requester   string        `json:"requester,omitempty"`
	Ticket      string        `json:"ticket,omitempty"`
	CacheHit    bool          `json:"cache_hit,omitempty"`
	Duration    time.Duration `json:"duration_ns"`
	ResultBytes int           `json:"result_bytes"`
	// ArgsHash is the canonical hash of the arguments that ran (before
	// redaction; see [canonical.Hash]): the value an approval ticket was
	// bound to. ResultHash is the SHA-256 of the result's encoding
	// (adapter.MarshalResult), empty when there was no result. The
	// executor fills both off the call path.
	ArgsHash   string `json:"args_hash,omitempty"`
	ResultHash string `json:"result_hash,omitempty"`

	// Seq, Prev and Hash place the record in its ledger's hash chain (see
	// [Hash]); a ledger without a chain leaves them empty. Seq is the
	// record's position, 1 for the first record ever written, and the
	// cursor of [Query.After].
	Seq  int64  `json:"seq,omitempty"`
	Prev string `json:"prev,omitempty"`
	Hash string `json:"hash,omitempty"`
}

// OutcomeOK is the Outcome of a successful call.
const OutcomeOK = "ok"

// ValidUTF8 replaces the bytes of r's text fields (and of its arguments)
// that are not UTF-8 with U+FFFD, as encoding/json does when it writes
// them. A chained ledger calls it before hashing the record: a database's
// text column refuses such bytes (PostgreSQL fails the whole batch) and a
// JSON export changes them, so a record holding them would be lost, or
// fail verification once exported. Text from a model, a client or a tool
// may hold anything.
func (r *Record) ValidUTF8() {
	for _, f := range [...]*string{&r.CallID, &r.RunID, &r.Tool, &r.Source, &r.Integration, &r.Subject,
		&r.Outcome, &r.Message, &r.Approval, &r.Approver, &r.Requester, &r.Ticket, &r.ArgsHash, &r.ResultHash} {
		if !utf8.ValidString(*f) {
			*f = strings.ToValidUTF8(*f, "\uFFFD")
		}
	}
	if !utf8.Valid(r.Args) {
		// Outside its strings JSON is ASCII: the arguments stay JSON.
		r.Args = json.RawMessage(strings.ToValidUTF8(string(r.Args), "\uFFFD"))
	}
}

// A Ledger writes records. The executor writes from one goroutine of its
// own, never on a call's path, so a slow or failing ledger cannot fail or
// stall calls (see adapter.ExecutorOptions.LedgerBuffer); a [Durable] may ask
// for the opposite. Write must not keep r after it returns; the bytes of
// r.Args are never modified and may be kept. The adaptertest package checks
// an implementation.
type Ledger interface {
	Write(ctx context.Context, r *Record) error
}

// Memory keeps the most recent records in a ring. It chains them
// ([Hash]): each record written gets its Seq, Prev and Hash, and the
// record the ring drops becomes the anchor [Memory.Verify] starts
// from. It implements [Reader] and [HeadVerifier]. The zero value keeps
// 10,000 records, as NewMemory(0) does.
type Memory struct {
	mu     sync.Mutex
	ring   []Record
	next   int
	total  int
	head   Head
	anchor Head
}

// NewMemory returns a ledger keeping the last capacity records (zero: 10,000).
func NewMemory(capacity int) *Memory {
	if capacity <= 0 {
		capacity = 10000
	}
	return &Memory{ring: make([]Record, 0, capacity)}
}

// Write implements [Ledger].
func (m *Memory) Write(_ context.Context, r *Record) error {
	m.mu.Lock()
	if cap(m.ring) == 0 { // the zero Memory keeps the default capacity
		m.ring = make([]Record, 0, 10000)
	}
	c := *r
	c.ValidUTF8()
	c.Seq, c.Prev = m.head.Seq+1, m.head.Hash
	c.Hash = Hash(&c)
	m.head = Head{Seq: c.Seq, Hash: c.Hash}
	if len(m.ring) < cap(m.ring) {
		m.ring = append(m.ring, c)
	} else {
		old := &m.ring[m.next]
		m.anchor = Head{Seq: old.Seq, Hash: old.Hash}
		m.ring[m.next] = c
	}
	m.next = (m.next + 1) % cap(m.ring)
	m.total++
	m.mu.Unlock()
	return nil
}

// Query implements [Reader] over the kept records, as they were when
// it was called.
func (m *Memory) Query(_ context.Context, q Query) iter.Seq2[Record, error] {
	recs := m.Records()
	return func(yield func(Record, error) bool) {
		n := 0
		for i := range recs {
			if q.Newest {
				i = len(recs) - 1 - i
			}
			r := &recs[i]
			if !q.Match(r) {
				continue
			}
			if q.Limit > 0 && n >= q.Limit {
				return
			}
			n++
			if !yield(*r, nil) {
				return
			}
		}
	}
}

// Verify implements [Verifier].
func (m *Memory) Verify(ctx context.Context) error { return m.VerifyHead(ctx, Head{}) }

// Head implements [HeadVerifier].
func (m *Memory) Head(context.Context) (Head, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.head, nil
}

// VerifyHead implements [HeadVerifier].
func (m *Memory) VerifyHead(_ context.Context, kept Head) error {
	m.mu.Lock()
	anchor, head := m.anchor, m.head
	recs := m.records()
	m.mu.Unlock()
	return VerifyBetween(func(yield func(Record, error) bool) {
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	}, anchor, head, kept)
}

// Records returns the kept records, oldest first.
func (m *Memory) Records() []Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.records()
}

// records returns the kept records, oldest first. m.mu is held.
func (m *Memory) records() []Record {
	out := make([]Record, 0, len(m.ring))
	if len(m.ring) == cap(m.ring) {
		out = append(out, m.ring[m.next:]...)
		out = append(out, m.ring[:m.next]...)
	} else {
		out = append(out, m.ring...)
	}
	return out
}

// Total returns how many records were ever written.
func (m *Memory) Total() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total
}

// JSONL writes one JSON object per line.
type JSONL struct {
	mu sync.Mutex
	w  *bufio.Writer
	c  io.Closer
}

// NewJSONL returns a ledger writing to w. Each record is flushed as it
// is written.
func NewJSONL(w io.Writer) *JSONL {
	l := &JSONL{w: bufio.NewWriter(w)}
	if c, ok := w.(io.Closer); ok {
		l.c = c
	}
	return l
}

// OpenJSONL opens (appending, creating if needed) a JSONL ledger file.
func OpenJSONL(path string) (*JSONL, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	return NewJSONL(f), nil
}

// Write implements [Ledger].
func (l *JSONL) Write(_ context.Context, r *Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(append(b, '\n')); err != nil {
		return err
	}
	return l.w.Flush()
}

// Close flushes and closes the underlying writer if it is an io.Closer.
func (l *JSONL) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.w.Flush()
	if l.c != nil {
		if cerr := l.c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
