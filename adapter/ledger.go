package adapter

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
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
// from. It implements [LedgerReader] and [HeadVerifier].
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
	c.ValidUTF8()
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
func (m *MemoryLedger) Verify(ctx context.Context) error { return m.VerifyHead(ctx, ChainHead{}) }

// Head implements [HeadVerifier].
func (m *MemoryLedger) Head(context.Context) (ChainHead, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.head, nil
}

// VerifyHead implements [HeadVerifier].
func (m *MemoryLedger) VerifyHead(_ context.Context, kept ChainHead) error {
	m.mu.Lock()
	anchor, head := m.anchor, m.head
	recs := m.records()
	m.mu.Unlock()
	return VerifyLedger(func(yield func(Record, error) bool) {
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	}, anchor, head, kept)
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

// defaultSecretKeys are the names [DefaultSecretKeys] returns.
var defaultSecretKeys = [...]string{
	"password", "passwd", "pwd", "passphrase", "secret", "token", "bearer",
	"authorization", "apikey", "accesskey", "privatekey", "sessionid",
	"cookie", "credential", "signature",
}

// DefaultSecretKeys returns the names whose values the ledger masks by
// default: a key matches when its normalised form (lower case, without
// '-', '_', '.' and spaces) contains one of them, so "X-Api-Key",
// "private_key", "PrivateKey" and "client.secret" all match. The slice is
// a copy: the defaults cannot be changed from outside.
func DefaultSecretKeys() []string { return append([]string(nil), defaultSecretKeys[:]...) }

// Redacted replaces masked values.
const Redacted = "[REDACTED]"

// RedactKeys returns a redaction function for ExecutorOptions.Redact that
// masks, at any depth of the decoded arguments (escapes resolved):
//   - the value of every object key whose normalised name contains one of
//     keys (normalised the same way, see [DefaultSecretKeys]);
//   - the "value" of a name/value pair whose name is such a key, as in
//     {"name":"Authorization","value":"Bearer …"};
//   - the user information of URLs in strings (https://user:pass@host).
//
// Arguments that do not parse are replaced by their size and SHA-256:
// {"unparsable":{"bytes":N,"sha256":"…"}}, never their text.
func RedactKeys(keys ...string) func(tool string, args json.RawMessage) json.RawMessage {
	r := newRedactor(keys)
	return func(_ string, args json.RawMessage) json.RawMessage {
		out, _ := r.redact(args)
		return out
	}
}

// redactor masks secrets (see RedactKeys).
type redactor struct {
	keys  []string // normalised
	first [256]bool
}

func newRedactor(keys []string) *redactor {
	r := &redactor{}
	for _, k := range keys {
		if n := normKey(k); n != "" {
			r.keys = append(r.keys, n)
			r.first[n[0]] = true
		}
	}
	return r
}

// normKey lower-cases s and drops separators.
func normKey(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c == '-' || c == '_' || c == '.' || c == ' ' {
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (r *redactor) secret(key string) bool {
	n := normKey(key)
	for _, k := range r.keys {
		if strings.Contains(n, k) {
			return true
		}
	}
	return false
}

// redact returns args with secrets masked, and the strings it masked (so
// that a message quoting one can be scrubbed too).
func (r *redactor) redact(args json.RawMessage) (json.RawMessage, []string) {
	if !json.Valid(args) {
		return unparsable(args), nil
	}
	return r.redactValid(args)
}

// redactValid is redact for arguments known to be valid JSON, as the
// executor's records hold (validated arguments, or the unparsable form).
func (r *redactor) redactValid(args json.RawMessage) (json.RawMessage, []string) {
	if !r.mayHaveSecret(args) {
		return args, nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return unparsable(args), nil
	}
	var masked []string
	v = r.walk(v, &masked)
	b, err := json.Marshal(v)
	if err != nil {
		return unparsable(args), masked
	}
	return b, masked
}

// unparsable stands in for arguments that are not JSON: their size and
// hash identify them without repeating a secret they may hold.
func unparsable(args []byte) json.RawMessage {
	sum := sha256.Sum256(args)
	return json.RawMessage(fmt.Sprintf(`{"unparsable":{"bytes":%d,"sha256":"%s"}}`, len(args), hex.EncodeToString(sum[:])))
}

// mayHaveSecret reports, without allocating, whether args might hold
// something to mask: a backslash (an escape may spell a key), an '@' (a
// URL's user information), or a key's letters in order, case folded,
// separators skipped. Most arguments hold none and pass through untouched.
func (r *redactor) mayHaveSecret(args []byte) bool {
	for i := 0; i < len(args); i++ {
		c := args[i]
		if c == '\\' || c == '@' {
			return true
		}
		c = lowerByte(c)
		if !r.first[c] {
			continue
		}
		for _, k := range r.keys {
			if k[0] == c && matchFolded(args[i:], k) {
				return true
			}
		}
	}
	return false
}

// matchFolded reports whether b starts with k (normalised), reading b case
// folded and skipping separators after its first byte.
func matchFolded(b []byte, k string) bool {
	j := 0
	for i := 0; i < len(b) && j < len(k); i++ {
		c := lowerByte(b[i])
		if i > 0 && (c == '-' || c == '_' || c == '.' || c == ' ') {
			continue
		}
		if c != k[j] {
			return false
		}
		j++
	}
	return j == len(k)
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// pairNames are the keys naming the other member of a name/value pair.
var pairNames = [...]string{"name", "key", "header", "field"}

func (r *redactor) walk(v any, masked *[]string) any {
	switch v := v.(type) {
	case map[string]any:
		pair := false
		for _, n := range pairNames {
			if s, ok := v[n].(string); ok && r.secret(s) {
				pair = true
			}
		}
		for k, sub := range v {
			if r.secret(k) || (pair && strings.EqualFold(k, "value")) {
				collect(sub, masked)
				v[k] = Redacted
				continue
			}
			v[k] = r.walk(sub, masked)
		}
		return v
	case []any:
		for i := range v {
			v[i] = r.walk(v[i], masked)
		}
		return v
	case string:
		return maskUserinfo(v, masked)
	}
	return v
}

// collect appends the strings and numbers of a masked value to masked.
func collect(v any, masked *[]string) {
	switch v := v.(type) {
	case string:
		if v != "" {
			*masked = append(*masked, v)
		}
	case json.Number:
		*masked = append(*masked, v.String())
	case map[string]any:
		for _, sub := range v {
			collect(sub, masked)
		}
	case []any:
		for _, sub := range v {
			collect(sub, masked)
		}
	}
}

// maskUserinfo masks the user information of every URL in s:
// "https://u:p@host/x" becomes "https://[REDACTED]@host/x".
func maskUserinfo(s string, masked *[]string) string {
	if !strings.Contains(s, "@") || !strings.Contains(s, "://") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			break
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		end := strings.IndexAny(s, "/?# \t\n\"'<>")
		if end < 0 {
			end = len(s)
		}
		at := strings.LastIndexByte(s[:end], '@')
		if at <= 0 {
			continue
		}
		*masked = append(*masked, s[:at])
		if u, err := url.PathUnescape(s[:at]); err == nil && u != s[:at] {
			*masked = append(*masked, u)
		}
		b.WriteString(Redacted)
		s = s[at:]
	}
	b.WriteString(s)
	return b.String()
}

// scrub masks in msg every occurrence of the masked strings, as written or
// quoted (Go and JSON quoting differ only in escapes).
func scrub(msg string, masked []string) string {
	for _, m := range masked {
		if len(m) < 3 { // too short to mask without masking everything
			continue
		}
		msg = strings.ReplaceAll(msg, m, Redacted)
		if q := strconv.Quote(m); q[1:len(q)-1] != m {
			msg = strings.ReplaceAll(msg, q[1:len(q)-1], Redacted)
		}
		if j, err := json.Marshal(m); err == nil && string(j[1:len(j)-1]) != m {
			msg = strings.ReplaceAll(msg, string(j[1:len(j)-1]), Redacted)
		}
	}
	return msg
}
