package adapter

import (
	"sync"

	"github.com/agentadapter/agentadapter/adapter/canonical"
)

// ResultHash hashes an encoding that encoding/json used to produce by
// reflection (MarshalResult); appendResult produces the same bytes, byte
// for byte (a ResultHash must still be the hash of MarshalResult), for a
// fraction of the cost. TestResultHashIdentical and
// FuzzLedgerHashIdentical hold it to MarshalResult's output.

// hashBufs recycles the encoding buffers: a result's encoding is a few
// hundred bytes, made and hashed on the ledger's goroutine.
var hashBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxPooledHashBuf keeps one huge result from pinning its buffer.
const maxPooledHashBuf = 64 << 10

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
		b = canonical.AppendRaw(b, structured)
	}
	return append(b, '}'), true
}
