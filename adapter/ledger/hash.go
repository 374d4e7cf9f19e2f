package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/agentadapter/agentadapter/adapter/canonical"
)

// A chained ledger hashes every record it writes ([Hash]). The hash is of
// an encoding that encoding/json used to produce by reflection; the
// appending encoder here produces the same bytes, byte for byte (chains
// already stored must still verify), for a fraction of the cost.
// TestChainHashIdentical and FuzzLedgerHashIdentical hold it to
// encoding/json's output.

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

// chainForm is what Hash hashes: every field of a record but Seq and
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
		b = canonical.AppendRaw(b, args)
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
	if r.Credential != "" {
		b = append(b, `,"credential":`...)
		b = canonical.AppendString(b, r.Credential)
	}
	return append(b, '}')
}

// credentialForm is the chain form of a record with a Credential, which
// chainForm predates: chainForm's fields, then "credential" (a record
// without one hashes as before, so chains written before it verify).
type credentialForm struct {
	chainForm
	Credential string `json:"credential,omitempty"`
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	return string(h[:])
}
