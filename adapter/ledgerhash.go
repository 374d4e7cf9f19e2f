package adapter

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/agentadapter/agentadapter/adapter/canonical"
)

// The ledger hashes every record it writes (ChainHash) and the result of
// every call (ResultHash). Both hash an encoding that encoding/json used
// to produce by reflection; the appending encoders here produce the same
// bytes, byte for byte (chains already stored must still verify, and a
// ResultHash must still be the hash of MarshalResult), for a fraction of
// the cost. TestChainHashIdentical and FuzzLedgerHashIdentical hold them
// to encoding/json's output.

// hashBufs recycles the encoding buffers: a record's canonical form is a
// few hundred bytes, made and hashed on the ledger's goroutine.
var hashBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxPooledHashBuf keeps one huge record from pinning its buffer.
const maxPooledHashBuf = 64 << 10

func hashEncoded(fill func([]byte) []byte) string {
	bp := hashBufs.Get().(*[]byte)
	defer hashBufs.Put(bp)
	b := fill((*bp)[:0])
	if cap(b) <= maxPooledHashBuf {
		*bp = b
	}
	return sha256Hex(b)
}

// chainForm is what ChainHash hashes: every field of a record but Seq and
// Hash, encoded as json.Marshal encodes this struct (appendChainForm does
// it without reflection). The field order and names are fixed here:
// changing them breaks every chain already written.
type chainForm struct {
	Prev        string          `json:"prev"`
	Time        int64           `json:"time"`
	CallID      string          `json:"call_id"`
	RunID       string          `json:"run_id"`
	Tool        string          `json:"tool"`
	Source      string          `json:"source"`
	Integration string          `json:"integration"`
	Subject     string          `json:"subject"`
	Args        json.RawMessage `json:"args"`
	Outcome     string          `json:"outcome"`
	Message     string          `json:"message"`
	Approval    string          `json:"approval"`
	Approver    string          `json:"approver"`
	Requester   string          `json:"requester,omitempty"` // omitempty: chains written before it verify
	Ticket      string          `json:"ticket"`
	CacheHit    bool            `json:"cache_hit"`
	Duration    int64           `json:"duration_ns"`
	ResultBytes int             `json:"result_bytes"`
	ArgsHash    string          `json:"args_hash"`
	ResultHash  string          `json:"result_hash"`
}

func newChainForm(r *Record, args json.RawMessage) chainForm {
	return chainForm{
		r.Prev, r.Time.UnixNano(), r.CallID, r.RunID, r.Tool, r.Source, r.Integration, r.Subject,
		args, r.Outcome, r.Message, r.Approval, r.Approver, r.Requester, r.Ticket, r.CacheHit,
		int64(r.Duration), r.ResultBytes, r.ArgsHash, r.ResultHash,
	}
}

// appendChainForm appends json.Marshal(newChainForm(r, args)) for args
// that are nil or valid JSON.
func appendChainForm(b []byte, r *Record, args []byte) []byte {
	b = append(b, `{"prev":`...)
	b = canonical.AppendString(b, r.Prev)
	b = append(b, `,"time":`...)
	b = strconv.AppendInt(b, r.Time.UnixNano(), 10)
	b = append(b, `,"call_id":`...)
	b = canonical.AppendString(b, r.CallID)
	b = append(b, `,"run_id":`...)
	b = canonical.AppendString(b, r.RunID)
	b = append(b, `,"tool":`...)
	b = canonical.AppendString(b, r.Tool)
	b = append(b, `,"source":`...)
	b = canonical.AppendString(b, r.Source)
	b = append(b, `,"integration":`...)
	b = canonical.AppendString(b, r.Integration)
	b = append(b, `,"subject":`...)
	b = canonical.AppendString(b, r.Subject)
	b = append(b, `,"args":`...)
	if args == nil {
		b = append(b, "null"...)
	} else {
		b = appendRawJSON(b, args)
	}
	b = append(b, `,"outcome":`...)
	b = canonical.AppendString(b, r.Outcome)
	b = append(b, `,"message":`...)
	b = canonical.AppendString(b, r.Message)
	b = append(b, `,"approval":`...)
	b = canonical.AppendString(b, r.Approval)
	b = append(b, `,"approver":`...)
	b = canonical.AppendString(b, r.Approver)
	if r.Requester != "" {
		b = append(b, `,"requester":`...)
		b = canonical.AppendString(b, r.Requester)
	}
	b = append(b, `,"ticket":`...)
	b = canonical.AppendString(b, r.Ticket)
	b = append(b, `,"cache_hit":`...)
	b = strconv.AppendBool(b, r.CacheHit)
	b = append(b, `,"duration_ns":`...)
	b = strconv.AppendInt(b, int64(r.Duration), 10)
	b = append(b, `,"result_bytes":`...)
	b = strconv.AppendInt(b, int64(r.ResultBytes), 10)
	b = append(b, `,"args_hash":`...)
	b = canonical.AppendString(b, r.ArgsHash)
	b = append(b, `,"result_hash":`...)
	b = canonical.AppendString(b, r.ResultHash)
	return append(b, '}')
}

// appendResult appends MarshalResult's encoding of r when r has the shape
// most results have (text blocks without metadata or annotations, no
// Meta, structured JSON of the executor's own encoding or none) and
// reports false, leaving b as it was, for anything else.
func appendResult(b []byte, r *Result) ([]byte, bool) {
	if len(r.Meta) != 0 {
		return b, false
	}
	var structured []byte
	if r.Structured != nil {
		if structured = r.cachedJSON(); structured == nil {
			return b, false // a value to encode (or unchecked raw JSON): MarshalResult's job
		}
	}
	start := len(b)
	b = append(b, `{"content":[`...)
	for i, c := range r.Content {
		t, ok := c.(*TextContent)
		if !ok || t == nil || len(t.Meta) != 0 || t.Annotations != nil {
			return b[:start], false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text"`...)
		if t.Text != "" {
			b = append(b, `,"text":`...)
			b = canonical.AppendString(b, t.Text)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if len(structured) > 0 {
		b = append(b, `,"structured":`...)
		b = appendRawJSON(b, structured)
	}
	return append(b, '}'), true
}

// appendRawJSON appends valid JSON as encoding/json writes a
// json.RawMessage field: compacted, with <, >, &, U+2028 and U+2029
// escaped. Canonical JSON and the executor's encodings have none of
// those bytes to change, so they are copied as they are.
func appendRawJSON(b, raw []byte) []byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r', '<', '>', '&', 0xE2: // 0xE2 starts U+2028 and U+2029
			enc, err := json.Marshal(json.RawMessage(raw))
			if err != nil { // unreachable for valid JSON: keep the bytes rather than lose them
				return append(b, raw...)
			}
			return append(b, enc...)
		}
	}
	return append(b, raw...)
}
