package adapter

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
)

// Record is one ledger entry: every call through an [Executor], successful
// or not, is recorded exactly once.
type Record struct {
	Time        time.Time       `json:"time"`
	CallID      string          `json:"call_id"`
	RunID       string          `json:"run_id,omitempty"`
	Tool        string          `json:"tool"`
	Source      string          `json:"source"`
	Integration string          `json:"integration,omitempty"`
	Subject     string          `json:"subject,omitempty"`
	Args        json.RawMessage `json:"args,omitempty"` // redacted
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
	// redaction; see [CanonicalHash]): the value an approval ticket was
	// bound to. ResultHash is the SHA-256 of the result's encoding
	// ([MarshalResult]), empty when there was no result. The executor fills
	// both off the call path.
	ArgsHash   string `json:"args_hash,omitempty"`
	ResultHash string `json:"result_hash,omitempty"`

	// Seq, Prev and Hash place the record in its ledger's hash chain (see
	// [ChainHash]); a ledger without a chain leaves them empty. Seq is the
	// record's position, 1 for the first record ever written, and the
	// cursor of [LedgerQuery.After].
	Seq  int64  `json:"seq,omitempty"`
	Prev string `json:"prev,omitempty"`
	Hash string `json:"hash,omitempty"`
}

// OutcomeOK is the Outcome of a successful call.
const OutcomeOK = "ok"

// A Ledger writes records. The executor writes from one goroutine of its
// own, never on a call's path, so a slow or failing ledger cannot fail or
// stall calls (see ExecutorOptions.LedgerBuffer); a [DurableLedger] may ask
// for the opposite. Write must not keep r after it returns; the bytes of
// r.Args are never modified and may be kept. The adaptertest package checks
// an implementation.
type Ledger interface {
	Write(ctx context.Context, r *Record) error
}

// MemoryLedger keeps the most recent records in a ring. It chains them
// ([ChainHash]): each record written gets its Seq, Prev and Hash, and the
// record the ring drops becomes the anchor [MemoryLedger.Verify] starts
// from. It implements [LedgerReader] and [LedgerVerifier].
type MemoryLedger struct {
	mu     sync.Mutex
	ring   []Record
	next   int
	total  int
	head   ChainHead
	anchor ChainHead
}

// NewMemoryLedger returns a ledger keeping the last capacity records (zero: 10,000).
func NewMemoryLedger(capacity int) *MemoryLedger {
	if capacity <= 0 {
		capacity = 10000
	}
	return &MemoryLedger{ring: make([]Record, 0, capacity)}
}

// Write implements [Ledger].
func (m *MemoryLedger) Write(_ context.Context, r *Record) error {
	m.mu.Lock()
	c := *r
	c.Seq, c.Prev = m.head.Seq+1, m.head.Hash
	c.Hash = ChainHash(&c)
	m.head = ChainHead{Seq: c.Seq, Hash: c.Hash}
	if len(m.ring) < cap(m.ring) {
		m.ring = append(m.ring, c)
	} else {
		old := &m.ring[m.next]
		m.anchor = ChainHead{Seq: old.Seq, Hash: old.Hash}
		m.ring[m.next] = c
	}
	m.next = (m.next + 1) % cap(m.ring)
	m.total++
	m.mu.Unlock()
	return nil
}

// Query implements [LedgerReader] over the kept records, as they were when
// it was called.
func (m *MemoryLedger) Query(_ context.Context, q LedgerQuery) iter.Seq2[Record, error] {
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

// Verify implements [LedgerVerifier].
func (m *MemoryLedger) Verify(context.Context) error {
	m.mu.Lock()
	anchor, head := m.anchor, m.head
	recs := m.records()
	m.mu.Unlock()
	last, err := VerifyChain(func(yield func(Record, error) bool) {
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	}, anchor)
	if err != nil {
		return err
	}
	return CheckHead(last, head)
}

// Records returns the kept records, oldest first.
func (m *MemoryLedger) Records() []Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.records()
}

// records returns the kept records, oldest first. m.mu is held.
func (m *MemoryLedger) records() []Record {
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
func (m *MemoryLedger) Total() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total
}

// JSONLLedger writes one JSON object per line.
type JSONLLedger struct {
	mu sync.Mutex
	w  *bufio.Writer
	c  io.Closer
}

// NewJSONLLedger returns a ledger writing to w. Each record is flushed as it
// is written.
func NewJSONLLedger(w io.Writer) *JSONLLedger {
	l := &JSONLLedger{w: bufio.NewWriter(w)}
	if c, ok := w.(io.Closer); ok {
		l.c = c
	}
	return l
}

// OpenJSONLLedger opens (appending, creating if needed) a JSONL ledger file.
func OpenJSONLLedger(path string) (*JSONLLedger, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	return NewJSONLLedger(f), nil
}

// Write implements [Ledger].
func (l *JSONLLedger) Write(_ context.Context, r *Record) error {
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
func (l *JSONLLedger) Close() error {
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

// DefaultSecretKeys are the object keys whose values [RedactKeys] masks by
// default (matched case-insensitively, as substrings: "X-Api-Key" matches
// "api_key" after '-' is read as '_').
var DefaultSecretKeys = []string{"password", "passwd", "token", "secret", "authorization", "api_key", "apikey", "cookie", "credential", "private_key"}

// Redacted replaces masked values.
const Redacted = "[REDACTED]"

// RedactKeys returns a redaction function for ExecutorOptions.Redact that
// masks the values of object keys containing any of keys, at any depth.
func RedactKeys(keys ...string) func(tool string, args json.RawMessage) json.RawMessage {
	lower := make([]string, len(keys))
	for i, k := range keys {
		lower[i] = strings.ReplaceAll(strings.ToLower(k), "-", "_")
	}
	var first [256]bool
	for _, k := range lower {
		if len(k) > 0 {
			first[k[0]] = true
		}
	}
	return func(_ string, args json.RawMessage) json.RawMessage {
		if !mayHaveKey(args, lower, &first) {
			return args
		}
		var v any
		if json.Unmarshal(args, &v) != nil {
			return json.RawMessage(`"[UNPARSABLE]"`)
		}
		v = redact(v, lower)
		b, err := json.Marshal(v)
		if err != nil {
			return json.RawMessage(`"[UNPARSABLE]"`)
		}
		return b
	}
}

// mayHaveKey reports whether args contain any of keys (lower case), case
// insensitively and reading '-' as '_', without allocating: most arguments
// hold no secret and are passed through untouched.
// first marks the first bytes of keys.
func mayHaveKey(args []byte, keys []string, first *[256]bool) bool {
	for i := 0; i < len(args); i++ {
		c := foldByte(args[i])
		if !first[c] {
			continue
		}
		for _, k := range keys {
			if len(k) == 0 || k[0] != c || len(args)-i < len(k) {
				continue
			}
			j := 1
			for j < len(k) && foldByte(args[i+j]) == k[j] {
				j++
			}
			if j == len(k) {
				return true
			}
		}
	}
	return false
}

func foldByte(c byte) byte {
	switch {
	case 'A' <= c && c <= 'Z':
		return c + 'a' - 'A'
	case c == '-':
		return '_'
	}
	return c
}

func redact(v any, keys []string) any {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			lk := strings.ReplaceAll(strings.ToLower(k), "-", "_")
			secret := false
			for _, key := range keys {
				if strings.Contains(lk, key) {
					secret = true
					break
				}
			}
			if secret {
				v[k] = Redacted
			} else {
				v[k] = redact(sub, keys)
			}
		}
	case []any:
		for i := range v {
			v[i] = redact(v[i], keys)
		}
	}
	return v
}
